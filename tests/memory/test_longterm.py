"""Long-term files: parsing, operations, compare-and-swap, whitelist, snapshots."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from companion.errors import (
    AmbiguousMatchError,
    ConflictError,
    FrontmatterError,
    InvalidMemoryFileError,
    NoMatchError,
    SchemaVersionError,
    StorageError,
)
from companion.memory.longterm import LongTermStore, check_name
from companion.paths import Home
from companion.memory.history import Actor

FRONT = "---\n# keep this comment\nschema_version: 1\nzeta: keep\nalpha: [1, 2]\n---\n"


@pytest.fixture
def store(home):
    s = LongTermStore(home)
    s._write("MEMORY.md", FRONT + "# Memory\n\n## Facts\n- likes tea (2026-11-29#1)\n\n## Timeline\n", expected_sha=None, actor=Actor.SYSTEM)
    return s


def test_template_files_parse(home):
    s = LongTermStore(home)
    for name in ("SOUL.md", "USER.md", "MEMORY.md"):
        doc = s.read(name)
        assert doc.meta["schema_version"] == 1
        assert "## " in doc.body


def test_append_to_section_keeps_frontmatter_byte_identical(store):
    doc = store._append("MEMORY.md", "- lives in Graz (2026-11-29#2)", "## Facts", actor=Actor.REMEMBER)
    assert doc.raw.startswith(FRONT)
    assert "- likes tea (2026-11-29#1)\n- lives in Graz (2026-11-29#2)\n\n## Timeline" in doc.raw
    assert doc.meta["zeta"] == "keep"


def test_append_creates_a_missing_section_and_appends_at_end(store):
    doc = store._append("MEMORY.md", "- dentist 2026-12-03", "## Upcoming", actor=Actor.EDITOR)
    assert doc.body.rstrip().endswith("## Upcoming\n- dentist 2026-12-03")
    doc = store._append("MEMORY.md", "last line", actor=Actor.EDITOR)
    assert doc.body.endswith("last line\n")


def test_replace_section_and_replace_all(store):
    doc = store._replace_section("MEMORY.md", "## Facts", "- only this", actor=Actor.EDITOR)
    assert "- likes tea" not in doc.body and "- only this\n\n## Timeline" in doc.body
    doc = store._replace_all("MEMORY.md", "# New body", actor=Actor.EDITOR)
    assert doc.raw == FRONT + "# New body\n"


def test_edit_requires_a_unique_exact_match(store):
    store._append("MEMORY.md", "- likes tea", "## Timeline", actor=Actor.EDITOR)
    with pytest.raises(NoMatchError, match="not found"):
        store._edit("MEMORY.md", "likes coffee", "x", actor=Actor.EDITOR)
    with pytest.raises(AmbiguousMatchError, match="2 times") as info:
        store._edit("MEMORY.md", "likes tea", "x", actor=Actor.EDITOR)
    assert info.value.count == 2
    doc = store._edit("MEMORY.md", "- likes tea (2026-11-29#1)", "- likes green tea (2026-11-29#1)", actor=Actor.EDITOR)
    assert "likes green tea" in doc.body


def test_stale_write_is_refused(store):
    seen = store.read("MEMORY.md")
    store._append("MEMORY.md", "- someone else wrote this", "## Facts", actor=Actor.SLEEP)
    with pytest.raises(ConflictError):
        store._append("MEMORY.md", "- mine", "## Facts", expected_sha=seen.sha, actor=Actor.EDITOR)
    with pytest.raises(ConflictError):
        store._write("MEMORY.md", seen.raw + "x", expected_sha=seen.sha, actor=Actor.EDITOR)
    assert "someone else wrote this" in store.read("MEMORY.md").body


def test_concurrent_appends_lose_nothing(store):
    def worker(n):
        for i in range(10):
            store._append("MEMORY.md", f"- fact {n}-{i}", "## Facts", actor=Actor.REMEMBER)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    body = store.read("MEMORY.md").body
    assert all(f"- fact {n}-{i}" in body for n in range(4) for i in range(10))


@pytest.mark.parametrize("name", ["../SOUL.md", "/etc/passwd", "..\\USER.md", "sub/MEMORY.md", "NOTES.md", "", None, "C:MEMORY.md"])
def test_names_off_the_whitelist_are_refused(name):
    with pytest.raises(InvalidMemoryFileError):
        check_name(name)


def test_names_are_canonicalized():
    assert check_name("memory") == "MEMORY.md"
    assert check_name("user.md") == "USER.md"


def test_broken_frontmatter_names_the_line_and_is_not_rewritten(home):
    s = LongTermStore(home)
    path = home.long_term("USER.md")
    broken = "---\nschema_version: 1\nname: [unclosed\n---\n# User\n"
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(FrontmatterError) as info:
        s.read("USER.md")
    assert info.value.line in (3, 4)
    assert "line" in str(info.value)
    with pytest.raises(FrontmatterError):
        s._append("USER.md", "- x", actor=Actor.EDITOR)
    assert path.read_text(encoding="utf-8") == broken


def test_unclosed_frontmatter_and_newer_schema(home):
    s = LongTermStore(home)
    home.long_term("USER.md").write_text("---\nschema_version: 1\n# User\n", encoding="utf-8")
    with pytest.raises(FrontmatterError, match="never closed"):
        s.read("USER.md")
    home.long_term("USER.md").write_text("---\nschema_version: 99\n---\n# User\n", encoding="utf-8")
    with pytest.raises(SchemaVersionError, match="newer"):
        s.read("USER.md")


def test_writing_invalid_yaml_is_refused(store):
    with pytest.raises(FrontmatterError):
        store._write("MEMORY.md", "---\na: [\n---\nbody\n", expected_sha=None, actor=Actor.EDITOR)


def test_every_change_is_snapshotted_and_restorable(store):
    original = store.read("MEMORY.md").raw
    store._append("MEMORY.md", "- one", "## Facts", actor=Actor.REMEMBER)
    store._append("MEMORY.md", "- two", "## Facts", actor=Actor.SLEEP)
    versions = store.history.versions("MEMORY.md")
    assert [v.actor for v in versions[:2]] == ["remember", "sleep"][::-1]
    oldest_relevant = versions[1]
    assert oldest_relevant.read() == original
    store._restore("MEMORY.md", oldest_relevant, expected_sha=None)
    assert store.read("MEMORY.md").raw == original
    assert store.history.versions("MEMORY.md")[0].actor == "restore"


def test_history_retention_is_bounded(home):
    from companion.memory.history import History

    s = LongTermStore(home, History(home.history, keep=3))
    for i in range(6):
        s._append("USER.md", f"- {i}", actor=Actor.EDITOR)
    assert len(s.history.versions("USER.md")) == 3


def test_listeners_hear_about_changes(store):
    heard = []
    store.subscribe(lambda name, doc: heard.append((name, doc.sha)))
    doc = store._append("MEMORY.md", "- x", actor=Actor.EDITOR)
    assert heard == [("MEMORY.md", doc.sha)]


def test_failed_atomic_write_keeps_the_old_file(store, monkeypatch):
    import errno
    import os

    before = store.read("MEMORY.md").raw

    def no_space(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", no_space)
    with pytest.raises(StorageError, match="disk is full"):
        store._append("MEMORY.md", "- lost?", actor=Actor.EDITOR)
    monkeypatch.undo()
    assert store.read("MEMORY.md").raw == before
    leftovers = [p.name for p in store.home.memory.iterdir() if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_a_linked_memory_file_is_written_through_the_link(home: Home, tmp_path: Path) -> None:
    synced = tmp_path / "synced" / "USER.md"
    synced.parent.mkdir()
    synced.write_text("## Profile\n- Name: Ana\n", encoding="utf-8")
    link = home.long_term("USER.md")
    link.unlink()
    link.symlink_to(synced)
    store = LongTermStore(home)
    store._append("USER.md", "- Likes tea", "## Profile", actor=Actor.EDITOR)
    assert link.is_symlink() and "- Likes tea" in synced.read_text(encoding="utf-8")
    assert store.read("USER.md").body == "## Profile\n- Name: Ana\n- Likes tea\n"


def test_a_read_only_memory_file_is_left_alone(home: Home) -> None:
    import stat

    path = home.long_term("MEMORY.md")
    before = path.read_bytes()
    path.chmod(stat.S_IRUSR)
    try:
        with pytest.raises(StorageError, match="read-only"):
            LongTermStore(home)._append("MEMORY.md", "- Overwritten anyway?", actor=Actor.EDITOR)
        assert path.read_bytes() == before and not path.stat().st_mode & stat.S_IWUSR
    finally:
        path.chmod(stat.S_IRUSR | stat.S_IWUSR)
