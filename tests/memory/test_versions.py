"""Which logged messages count: versions of a regenerated reply (the chosen one, else the newest) and deletions."""

from __future__ import annotations

from companion.memory.records import Record, conversational
from companion.memory.versions import chosen_versions, counted, deleted_ids, version_chains


def _r(seq: int, role: str, text: str = "", **extra: object) -> Record:
    return Record(f"2026-12-01#{seq}", f"2026-12-01T10:{seq:02d}:00.000+00:00", role, text or f"{role} {seq}", extra)


def test_a_reply_regenerated_from_any_version_joins_one_chain() -> None:
    records = [_r(1, "user"), _r(2, "assistant"), _r(3, "assistant", replaces="2026-12-01#2"),
               _r(4, "event", chooses="2026-12-01#2"), _r(5, "assistant", replaces="2026-12-01#2")]
    assert version_chains(records) == [["2026-12-01#2", "2026-12-01#3", "2026-12-01#5"]]
    assert set(chosen_versions(records).values()) == {"2026-12-01#5"}  # the newest, made after the choice


def test_the_chosen_version_counts_and_the_others_do_not() -> None:
    records = [_r(1, "user"), _r(2, "assistant", "first"), _r(3, "assistant", "second", replaces="2026-12-01#2"),
               _r(4, "event", chooses="2026-12-01#2")]
    assert [r.text for r in conversational(records)] == ["user 1", "first"]
    assert [r.text for r in conversational(records[:3])] == ["user 1", "second"]  # no choice: the newest


def test_a_deleted_message_stays_in_the_log_but_counts_nowhere() -> None:
    records = [_r(1, "user", "my cat is Tom"), _r(2, "assistant"), _r(3, "event", deletes="2026-12-01#1")]
    assert deleted_ids(records) == {"2026-12-01#1"}
    assert [r.id for r in counted(records)] == ["2026-12-01#2", "2026-12-01#3"]
    assert all(r.text != "my cat is Tom" for r in conversational(records, private=False))
