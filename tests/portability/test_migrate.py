"""Migration from older formats: legacy memory lines, config.json personality, chat exports; each run twice."""

from __future__ import annotations

import shutil
from datetime import datetime
from pathlib import Path

import pytest

from companion.errors import UnrecognizedSourceError
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.portability.migrate import default_locations, detect, migrate, migrate_path
from companion.paths import Home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

LEGACY = Path(__file__).parent.parent / "fixtures" / "portability" / "legacy"


@pytest.fixture
def legacy(tmp_path: Path) -> Path:
    target = tmp_path / "legacy"
    shutil.copytree(LEGACY, target)
    return target


def body(home: Home, name: str) -> str:
    return LongTermStore(home).read(name).body


def section(text: str, title: str) -> str:
    after = text.split(f"## {title}\n", 1)[1]
    return after.split("\n## ", 1)[0]


def all_records(home: Home) -> list:
    log = DayLog(home.days)
    return [r for day in log.days() for r in log.read_day(day).records]


def test_detects_each_kind(legacy: Path) -> None:
    kinds = {s.path.name: (s.kind, s.detail) for s in detect(legacy)}
    assert kinds == {
        "memory.jsonl": ("memory", "memory entries"),
        "config.json": ("config", "personality settings"),
        "chat_messages.json": ("chat", "chat history"),
        "conversations.json": ("chat", "ChatGPT export"),
    }
    project = detect(legacy / "project")
    assert [(s.kind, s.path.parent.name) for s in project] == [("memory", ".companion")]


def test_default_locations_are_only_the_users_own_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert default_locations() == [Path.home() / ".companion"]


def test_legacy_memory_file_to_user_and_memory(home: Home, legacy: Path) -> None:
    report = migrate_path(home, legacy / "memory.jsonl")
    prefs = section(body(home, "USER.md"), "Preferences")
    assert "- Prefers dark mode in every app (2025-03-02)" in prefs
    assert "- 喜欢用中文讨论诗歌 (2025-03-05)" in prefs
    facts = section(body(home, "MEMORY.md"), "Facts")
    assert facts.index("Allergic to peanuts (2025-01-20)") < facts.index("Works as a nurse in Lyon (2025-02-11)")
    assert "Usually asks for recipes on Sunday evenings" in section(body(home, "MEMORY.md"), "Patterns")
    assert not (legacy / "memory.jsonl").exists() and (legacy / "memory.jsonl.bak").exists()
    assert any("1 unreadable lines" in n for n in report.notes)
    assert report.backup is not None and (report.backup / "USER.md").exists()
    assert LongTermStore(home).history.versions("USER.md")[0].actor == "migrate"

    before = (home.memory / "USER.md").read_bytes(), (home.memory / "MEMORY.md").read_bytes()
    assert detect(legacy / "memory.jsonl") == []  # the original is now .bak: a second run finds nothing
    assert migrate(home, detect(legacy / "memory.jsonl")).lines() == ["Nothing to migrate."]
    assert ((home.memory / "USER.md").read_bytes(), (home.memory / "MEMORY.md").read_bytes()) == before


def test_global_and_project_files_together_dedupe(home: Home, legacy: Path) -> None:
    sources = detect(legacy / "memory.jsonl") + detect(legacy / "project")
    migrate(home, sources)
    user = body(home, "USER.md")
    assert user.count("ark mode in every app") == 1
    assert "The garden project uses raised beds (2025-04-01)" in body(home, "MEMORY.md")


def test_migrating_a_copy_again_adds_nothing(home: Home, legacy: Path, tmp_path: Path) -> None:
    spare = tmp_path / "spare.jsonl"
    shutil.copy(legacy / "memory.jsonl", spare)
    migrate_path(home, legacy / "memory.jsonl")
    before = (home.memory / "USER.md").read_bytes(), (home.memory / "MEMORY.md").read_bytes()
    migrate_path(home, spare)
    assert ((home.memory / "USER.md").read_bytes(), (home.memory / "MEMORY.md").read_bytes()) == before


def test_config_personality_to_soul(home: Home, legacy: Path) -> None:
    migrate_path(home, legacy / "config.json")
    soul = body(home, "SOUL.md")
    identity, style = section(soul, "Identity"), section(soul, "Style")
    assert "- Name: Pip" in identity and "- Expertise: gardening, cooking" in identity
    assert "- A cheerful helper who remembers the little things" in identity
    assert "- Tone: playful but kind" in style and "- Language: English and 中文" in style
    assert "old-model.bin" not in soul
    assert (legacy / "config.json.bak").exists()
    shutil.copy(legacy / "config.json.bak", legacy / "config.json")
    before = (home.memory / "SOUL.md").read_bytes()
    migrate_path(home, legacy / "config.json")
    assert (home.memory / "SOUL.md").read_bytes() == before
    assert (legacy / "config.json.2.bak").exists()


def test_free_text_personality_and_existing_name(home: Home, legacy: Path) -> None:
    MemoryWriter(LongTermStore(home)).append("SOUL.md", "- Name: Xiaoyu", section="Identity", actor=Actor.EDITOR)
    migrate_path(home, legacy / "text-persona")
    assert "- You are a calm, patient tutor who explains step by step." in body(home, "SOUL.md")
    report = migrate_path(home, legacy / "config.json")
    assert "Pip" not in body(home, "SOUL.md")
    assert any("already names" in n for n in report.notes)


def test_chat_messages_become_imported_records_on_their_dates(home: Home, legacy: Path) -> None:
    migrate_path(home, legacy / "chat_messages.json")
    records = all_records(home)
    assert [r.role for r in records] == ["user", "assistant", "user", "assistant"]
    assert all(r.extra["imported"] == "chat" for r in records)
    assert records[0].extra["ref"] == "chat_messages.json:1"
    assert records[3].text == "好的，我会记得。"
    expected_day = datetime.fromisoformat("2025-05-01T09:00:05+02:00").astimezone().date()
    assert records[0].day == expected_day
    assert datetime.fromisoformat(records[0].ts) == datetime.fromisoformat("2025-05-01T09:00:05+02:00")
    assert len({r.id for r in records}) == 4

    shutil.copy(legacy / "chat_messages.json.bak", legacy / "again.json")
    report = migrate_path(home, legacy / "again.json")
    assert len(all_records(home)) == 4
    assert "0 messages added" in report.done[0]


def test_chatgpt_export_follows_the_visible_branch(home: Home, legacy: Path) -> None:
    migrate_path(home, legacy / "conversations.json")
    records = all_records(home)
    assert [r.role for r in records] == ["event", "user", "assistant", "user", "assistant"]
    assert "Sourdough help" in records[0].text
    texts = [r.text for r in records]
    assert "An abandoned answer." not in texts
    assert "Here is a photo" in texts
    assert records[2].extra["ref"] == "chatgpt:c-123:n2"
    assert records[1].day == datetime.fromtimestamp(1746090010.5).astimezone().date()
    assert not (legacy / "conversations.json").exists()
    with pytest.raises(UnrecognizedSourceError):
        migrate_path(home, legacy / "conversations.json.bak")


def test_whole_folder_twice(home: Home, legacy: Path) -> None:
    first = migrate_path(home, legacy)
    assert len(first.done) == 4
    snapshot = {p: p.read_bytes() for p in home.memory.rglob("*") if p.is_file()}
    with pytest.raises(UnrecognizedSourceError):
        migrate_path(home, legacy)  # everything is .bak now: nothing to do
    assert {p: p.read_bytes() for p in home.memory.rglob("*") if p.is_file()} == snapshot


def test_unrelated_json_is_not_detected(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1"}')
    (tmp_path / "notes.jsonl").write_text('{"id": "2026-11-29#1", "ts": "x", "role": "user", "text": "hi"}\n')
    (tmp_path / "broken.json").write_text("{nope")
    assert detect(tmp_path) == []


def test_a_migration_that_fails_part_way_changes_nothing(home: Home, legacy: Path) -> None:
    from companion.portability.migrate import LegacySource

    broken = legacy / "broken.json"
    broken.write_text('[{"role": "user", "content": "cut off', encoding="utf-8")
    sources = detect(legacy / "memory.jsonl") + detect(legacy / "config.json")
    sources.append(LegacySource("chat", broken, "chat history"))  # read last, fails
    before = {p.name: p.read_bytes() for p in home.memory.iterdir() if p.is_file()}
    with pytest.raises(Exception, match="broken.json"):
        migrate(home, sources)
    assert {p.name: p.read_bytes() for p in home.memory.iterdir() if p.is_file()} == before
    assert (legacy / "memory.jsonl").exists() and (legacy / "config.json").exists()  # nothing renamed to .bak
    assert not any(home.scratch.iterdir())


def test_chat_messages_dated_in_the_future_are_left_out(home: Home, tmp_path: Path) -> None:
    import json

    chat = tmp_path / "chat_messages.json"
    chat.write_text(json.dumps([
        {"role": "user", "content": "hello from the past", "timestamp": "2024-01-01T10:00:00+00:00"},
        {"role": "assistant", "content": "pinned at the end forever", "timestamp": "2099-01-01T10:00:00+00:00"},
    ]), encoding="utf-8")
    report = migrate_path(home, chat)
    assert [r.text for r in all_records(home)] == ["hello from the past"]
    assert "1 dated in the future left out" in report.lines()[0]


def test_deeply_nested_json_is_not_a_source_and_never_a_traceback(home: Home, tmp_path: Path) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "conversations.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    (folder / "memory.jsonl").write_text('{"a": ' * 50_000 + "1" + "}" * 50_000 + "\n", encoding="utf-8")
    assert detect(folder) == []
    with pytest.raises(UnrecognizedSourceError):
        migrate_path(home, folder)


@pytest.mark.parametrize("existing", ["- 名字：小雨", "1. Name: Xiaoyu (2026-11-29#2)"])
def test_a_name_in_either_label_or_bullet_is_the_companions_name(home: Home, legacy: Path, existing: str) -> None:
    MemoryWriter(LongTermStore(home)).append("SOUL.md", existing, section="Identity", actor=Actor.EDITOR)
    report = migrate_path(home, legacy / "config.json")
    assert "Pip" not in body(home, "SOUL.md") and any("already names" in n for n in report.notes)
