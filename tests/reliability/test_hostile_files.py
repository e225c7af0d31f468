"""Hostile bytes on disk and in text: each case once, so no run depends on Hypothesis finding it."""

from __future__ import annotations

import pytest

from companion.errors import FrontmatterError
from companion.memory.daylog import DayLog, read_file
from companion.memory.longterm import LongTermStore
from companion.paths import Home
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability


def test_deeply_nested_json_line_is_skipped_not_fatal(home: Home, clock) -> None:
    log = DayLog(home.days, clock)
    first = log.append("user", "before")
    path = log.path_for(first.day)
    with open(path, "ab") as handle:
        handle.write(b"[" * 200_000 + b"\n")
    second = log.append("user", "after")
    result = read_file(path)
    assert [r.text for r in result.records] == ["before", "after"]
    assert len(result.problems) == 1 and second.seq == first.seq + 1


def test_non_ascii_digit_in_an_id_is_rejected_on_read(home: Home, clock) -> None:
    log = DayLog(home.days, clock)
    path = log.path_for(clock().date())
    path.parent.mkdir(parents=True)
    path.write_text('{"id":"2026-11-29#\u00b2","ts":"2026-11-29T10:00:00+01:00","role":"user","text":"x"}\n', encoding="utf-8")
    assert read_file(path).records == []
    assert log.append("user", "next").seq == 2  # the unreadable line still counts, so ids never repeat


@pytest.mark.parametrize(
    ("text", "expected"),
    [("half \ud800 pair", "half \ufffd pair"), ("\udfff", "\ufffd"), ("emoji as pair \ud83d\ude00", "emoji as pair 😀")],
)
def test_lone_surrogates_in_a_message_never_reach_the_log(home: Home, clock, text: str, expected: str) -> None:
    """They would make every later turn fail in the tokenizer; U+FFFD keeps the rest of the message."""
    log = DayLog(home.days, clock)
    record = log.append("user", text)
    assert record.text == expected
    assert [r.text for r in log.read_day(record.day).records] == [expected]


def test_a_lone_surrogate_escape_written_by_another_tool_reads_as_replacement(home: Home, clock) -> None:
    log = DayLog(home.days, clock)
    path = log.path_for(clock().date())
    path.parent.mkdir(parents=True)
    path.write_text('{"id":"2026-11-29#1","ts":"2026-11-29T10:00:00+01:00","role":"user","text":"a\\ud800b"}\n', encoding="utf-8")
    assert [r.text for r in log.read_day(clock().date()).records] == ["a\ufffdb"]


def test_crlf_file_keeps_its_line_endings_through_edits(home: Home) -> None:
    store = LongTermStore(home)
    path = home.long_term("USER.md")
    path.write_bytes(b"---\r\nschema_version: 1\r\n---\r\n# User\r\n\r\n## Profile\r\n- Name: Lea\r\n")
    store._append("USER.md", "- Lives in Lyon", "## Profile", actor=Actor.EDITOR)
    assert path.read_bytes() == b"---\r\nschema_version: 1\r\n---\r\n# User\r\n\r\n## Profile\r\n- Name: Lea\r\n- Lives in Lyon\n"
    previous = store.history.versions("USER.md")[0]
    store._restore("USER.md", previous, expected_sha=None)
    assert path.read_bytes().startswith(b"---\r\nschema_version: 1\r\n---\r\n# User\r\n")
    assert path.read_bytes().endswith(b"- Name: Lea\r\n")


def test_file_with_bytes_that_are_not_utf8_can_still_be_edited(home: Home) -> None:
    """A file saved by another editor in GBK or Latin-1: edits work, the odd bytes survive."""
    store = LongTermStore(home)
    path = home.long_term("MEMORY.md")
    original = path.read_bytes() + "- 喜欢".encode("gbk") + b"\n"
    path.write_bytes(original)
    store._append("MEMORY.md", "- Drinks tea (2026-11-29#1)", "## Facts", actor=Actor.EDITOR)
    saved = path.read_bytes()
    assert "喜欢".encode("gbk") in saved and b"- Drinks tea (2026-11-29#1)" in saved
    snapshot = store.history.versions("MEMORY.md")[0]
    assert snapshot.path.read_bytes() == original


def test_bytes_that_are_not_utf8_in_frontmatter_give_a_clear_error(home: Home) -> None:
    home.long_term("SOUL.md").write_bytes(b"---\nname: \xff\xfe\n---\n# Soul\n")
    with pytest.raises(FrontmatterError, match="not valid UTF-8"):
        LongTermStore(home).read("SOUL.md")


def test_lone_surrogate_from_a_tool_is_saved_as_replacement_character(home: Home) -> None:
    store = LongTermStore(home)
    doc = store._append("MEMORY.md", "- odd \ud800 text, emoji \ud83d\ude00", "## Facts", actor=Actor.TOOL)
    saved = home.long_term("MEMORY.md").read_text(encoding="utf-8")
    assert "- odd \ufffd text, emoji 😀" in saved
    assert store.read("MEMORY.md").sha == doc.sha  # the writer's view matches the disk, so the next CAS works


@pytest.mark.model
def test_a_memory_file_with_bytes_that_are_not_utf8_does_not_break_chat(home: Home, clock, tiny_backend) -> None:
    from companion.agent.turn import Agent
    from companion.settings import Settings

    path = home.long_term("MEMORY.md")
    path.write_bytes(path.read_bytes() + "- 喜欢喝茶\n".encode("gbk"))  # saved as GBK by another editor
    settings = Settings()
    settings.model.max_reply_tokens = 4
    events = list(Agent(home, tiny_backend, settings, clock=clock).run_turn("hi"))
    assert events[-1].kind == "done"


def test_an_old_string_that_overlaps_itself_is_ambiguous(home: Home) -> None:
    from companion.errors import AmbiguousMatchError

    store = LongTermStore(home)
    store._replace_all("MEMORY.md", "### Detail\n", actor=Actor.EDITOR)
    with pytest.raises(AmbiguousMatchError, match="2 times"):
        store._edit("MEMORY.md", "##", "#0", actor=Actor.EDITOR)  # starts at 0 and at 1: which one was meant?
    assert store.read("MEMORY.md").body == "### Detail\n"
