"""The nightly audit: near-duplicates merged, contradictions superseded (newest wins), nothing lost."""

from __future__ import annotations

from datetime import date

import pytest

from companion.curate.consolidate import contradicts, near_duplicate, plan
from companion.memory import entries as E

TODAY = date(2026, 11, 30)


def test_near_duplicates_and_contradictions() -> None:
    assert near_duplicate("Likes hiking in the mountains", "Likes mountain hiking")
    assert not near_duplicate("Has 2 kids", "Has 3 kids")
    assert not near_duplicate("Does not eat pork", "Eats pork")
    assert contradicts("Eats pork", "Does not eat pork") and contradicts("喜欢猫", "不喜欢猫")
    assert not contradicts("Likes cats", "Likes dogs")


def test_plan_merges_across_files_and_keeps_the_profile_copy() -> None:
    bodies = {"USER.md": "## Profile\n- Allergic to peanuts (2026-11-01#1)\n",
              "MEMORY.md": "## Facts\n- allergic to peanuts (2026-11-02#4)\n"}
    new, outcomes = plan(bodies, TODAY)
    assert [(o.status, o.op.file) for o in outcomes] == [("merged", "MEMORY.md")]
    assert E.active_entries(new["USER.md"]) == ["- Allergic to peanuts (2026-11-01#1)"]
    assert E.active_entries(new["MEMORY.md"]) == []
    assert "~~allergic to peanuts~~" in new["MEMORY.md"]  # kept, marked


def test_plan_supersedes_the_older_of_two_contradicting_entries() -> None:
    bodies = {"USER.md": "## Profile\n- Lives in York (2026-11-20#1)\n- Lives in Leeds (2026-10-01#1)\n- Name: Lea\n"
                         "## Preferences\n- Eats pork (2026-09-01#1)\n- Does not eat pork (2026-11-01#2)\n",
              "MEMORY.md": ""}
    new, outcomes = plan(bodies, TODAY)
    retired = sorted(E.entry_text(o.old_line) for o in outcomes if o.status == "retired")
    assert retired == ["Eats pork", "Lives in Leeds"]
    assert [E.entry_text(l) for l in E.active_entries(new["USER.md"])] == ["Lives in York", "Name: Lea", "Does not eat pork"]


def test_a_clean_file_is_left_alone() -> None:
    bodies = {"USER.md": "## Profile\n- Lives in York (2026-11-20#1)\n- Likes cats (2026-11-20#2)\n", "MEMORY.md": "## Facts\n- Likes dogs (2026-11-21#1)\n"}
    assert plan(bodies, TODAY) == (bodies, [])


@pytest.mark.slow
def test_a_full_file_is_audited_without_comparing_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    import companion.curate.consolidate as C

    calls = 0
    real = C.normalized_duplicate

    def counting(a: str, b: str) -> bool:
        nonlocal calls
        calls += 1
        return real(a, b)

    monkeypatch.setattr(C, "normalized_duplicate", counting)
    n = 3000
    body = "## Facts\n" + "".join(f"- Fact number {i:06d} about the garden and the weather (2026-11-28#{i})\n" for i in range(n))
    body += "- Fact number 000007 about the garden and the weather\n"  # a true duplicate among them
    new, outcomes = C.plan({"USER.md": "", "MEMORY.md": body}, date(2026, 11, 30))
    assert [o.status for o in outcomes] == ["merged"]
    assert calls < 5 * n  # every pair would be about n * n / 2
