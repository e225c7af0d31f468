"""Bring in memory from older formats: a JSON-lines memory file, config.json personality, chat history.

Each migrated original is renamed to `<name>.bak`, so a second run finds nothing to do; entries and
records that are already present are skipped, so migrating a copy again adds nothing either.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Literal

from companion.errors import PortabilityError, StorageError, UnrecognizedSourceError
from companion.atomic import describe_os_error
from companion.memory.history import History
from companion.memory.swap import StagedMemory
from companion.portability.backup import backup_target
from companion.portability.chat_history import (
    ImportedMessage,
    looks_like_chatgpt,
    looks_like_messages,
    messages_from_chatgpt,
    messages_from_list,
    parse_time,
)
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.memory import maintenance
from companion.memory.document import Document
from companion.memory.longterm import LongTermStore
from companion.memory import entries as E
from companion.portability.merge import FUTURE_SLACK, DayLogMerger, MergeCount, merge_body
from companion.paths import LONG_TERM_FILES, Home

log = logging.getLogger(__name__)

Kind = Literal["memory", "config", "chat"]
MAX_DETECT_BYTES = 512 * 1024 * 1024
LEGACY_DIRNAME = ".companion"
_CATEGORY = {
    "preference": ("USER.md", "Preferences"),
    "fact": ("MEMORY.md", "Facts"),
    "pattern": ("MEMORY.md", "Patterns"),
}
_PERSONA_TEXT_KEYS = ("description", "prompt", "text", "custom", "persona", "personality", "system_prompt")


@dataclass(frozen=True)
class LegacySource:
    kind: Kind
    path: Path
    detail: str  # e.g. "ChatGPT export", for the user


@dataclass
class MigrationReport:
    backup: Path | None = None
    done: list[str] = field(default_factory=list)  # one line per source
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = list(self.done) or ["Nothing to migrate."]
        out.extend(self.notes)
        if self.backup is not None:
            out.append(f"Backup of the previous memory: {self.backup}")
        return out


# -- detection -------------------------------------------------------------------------------


def default_locations() -> list[Path]:
    """Where older versions kept their files in the user's own folder (~/.companion). A `.companion`
    in the current folder may belong to anyone (a downloaded repository): it is used only when named."""
    return [Path.home() / LEGACY_DIRNAME]


def _load_json(path: Path) -> Any:
    with open(path, encoding="utf-8-sig") as handle:
        return json.load(handle)


def _is_memory_line(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("content"), str) and "category" in data


def detect_file(path: Path) -> LegacySource | None:
    """What an older-format file is, by its content (the name only picks the parser)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_DETECT_BYTES:
            return None
        if path.suffix.lower() == ".jsonl":
            with open(path, encoding="utf-8-sig", errors="replace") as handle:
                for line in handle:
                    if line.strip():
                        ok = _is_memory_line(json.loads(line))
                        return LegacySource("memory", path, "memory entries") if ok else None
            return None
        if path.suffix.lower() != ".json":
            return None
        data = _load_json(path)
    except (OSError, ValueError, RecursionError):  # deeply nested JSON raises RecursionError
        return None
    if isinstance(data, dict) and "personality" in data:
        return LegacySource("config", path, "personality settings")
    if looks_like_chatgpt(data):
        return LegacySource("chat", path, "ChatGPT export")
    if looks_like_messages(data):
        return LegacySource("chat", path, "chat history")
    return None


def detect(path: Path) -> list[LegacySource]:
    """Older-format files at `path`: the file itself, or those in a folder and its `.companion/`."""
    if path.is_file():
        found = detect_file(path)
        return [found] if found else []
    if not path.is_dir():
        return []
    candidates = sorted(p for p in path.iterdir() if p.is_file())
    nested = path / LEGACY_DIRNAME
    if nested.is_dir():
        candidates += sorted(p for p in nested.iterdir() if p.is_file())
    return [s for s in (detect_file(p) for p in candidates) if s is not None]


# -- conversion ------------------------------------------------------------------------------


def _one_line(text: str) -> str:
    return " ".join(text.split())


def memory_entries(path: Path, report: MigrationReport) -> dict[str, dict[str, list[str]]]:
    """file -> section -> entries, oldest first, from a JSON-lines memory file."""
    rows: list[tuple[str, str, str, str]] = []
    bad = 0
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except (ValueError, RecursionError):
                bad += 1
                continue
            if not _is_memory_line(data) or not data["content"].strip():
                bad += 1
                continue
            category = str(data.get("category", "")).lower()
            file, section = _CATEGORY.get(category, ("MEMORY.md", "Facts"))
            when = parse_time(data.get("timestamp"))
            sort_key = when.isoformat() if when else ""
            sources = (when.date().isoformat(),) if when else ()
            rows.append((sort_key, file, section, E.Entry(_one_line(data["content"]), sources).line()))
    if bad:
        report.notes.append(f"{path.name}: {bad} unreadable lines were skipped.")
    grouped: dict[str, dict[str, list[str]]] = {}
    for _, file, section, entry in sorted(rows, key=lambda row: row[0]):
        grouped.setdefault(file, {}).setdefault(section, []).append(entry)
    return grouped


def _persona_value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(_one_line(str(v)) for v in value if str(v).strip())
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_persona_value(v)}" for k, v in value.items())
    return _one_line(str(value))


def persona_entries(path: Path, current_soul: str) -> tuple[dict[str, list[str]], list[str]]:
    """SOUL.md section -> entries from `personality`, and notes about what was kept as it was."""
    personality = _load_json(path).get("personality")
    sections: dict[str, list[str]] = {}
    notes: list[str] = []
    if isinstance(personality, str):
        if personality.strip():
            sections["Identity"] = [E.format_entry(_one_line(personality))]
        return sections, notes
    if not isinstance(personality, dict):
        return sections, notes
    for key, value in personality.items():
        text = _persona_value(value)
        if not text:
            continue
        label = str(key).replace("_", " ").strip().capitalize()
        if key == "name":
            existing = [n for n in map(E.name_of, current_soul.splitlines()) if n]
            if existing and not any(text.casefold() in n.casefold() for n in existing):
                notes.append(f"SOUL.md already names the companion; the old name {text!r} was not added.")
                continue
            sections.setdefault("Identity", []).append(E.format_entry(E.name_entry(text)))
        elif key in ("expertise", "skills", "role"):
            sections.setdefault("Identity", []).append(E.format_entry(f"{label}: {text}"))
        elif key in _PERSONA_TEXT_KEYS:
            sections.setdefault("Identity", []).append(E.format_entry(text))
        else:
            sections.setdefault("Style", []).append(E.format_entry(f"{label}: {text}"))
    return sections, notes


def _as_body(sections: dict[str, list[str]]) -> str:
    return "".join(f"## {title}\n" + "".join(e + "\n" for e in items) + "\n" for title, items in sections.items())


def chat_messages(source: LegacySource, fallback: datetime) -> list[ImportedMessage]:
    """Messages in time order; each ChatGPT conversation opens with an event naming it."""
    data = _load_json(source.path)
    out: list[ImportedMessage] = []
    if looks_like_chatgpt(data):
        for title, messages in messages_from_chatgpt(data, fallback):
            first = messages[0]
            ref = first.ref.rsplit(":", 1)[0]
            out.append(ImportedMessage(first.when, "event", f"Imported conversation from ChatGPT: {title}", ref))
            out.extend(messages)
    else:
        out.extend(messages_from_list(data, source.path.name, fallback))
    return sorted(out, key=lambda message: message.when)


# -- running ---------------------------------------------------------------------------------


def _keep_original(path: Path, report: MigrationReport) -> None:
    target = path.with_name(path.name + ".bak")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.{counter}.bak")
    try:
        os.rename(path, target)
    except OSError as exc:
        report.notes.append(
            f"Could not rename {path} to {target.name} ({exc.strerror or exc}); running again skips what is already in."
        )


class _Migrator:
    def __init__(self, home: Home, store: LongTermStore, report: MigrationReport, clock: Callable[[], datetime]) -> None:
        self.home = home
        self.store = store
        self.report = report
        self.clock = clock

    def merge_sections(self, name: str, sections: dict[str, list[str]]) -> tuple[int, int]:
        counts: list[MergeCount] = []

        def merged(doc: Document) -> str:
            body, count = merge_body(doc.body, _as_body(sections))
            counts[:] = [count]
            return doc.with_body(body)

        MemoryWriter(self.store).merge_in(name, merged, actor=Actor.MIGRATE)
        if counts[0].secrets:
            self.report.notes.append(f"Left out {counts[0].secrets} entries of {name} that hold a secret or an instruction to the assistant.")
        return counts[0].added, counts[0].skipped

    def memory(self, source: LegacySource) -> str:
        added = skipped = 0
        for name, sections in memory_entries(source.path, self.report).items():
            a, s = self.merge_sections(name, sections)
            added, skipped = added + a, skipped + s
        return f"{source.path}: {added} entries added to USER.md/MEMORY.md, {skipped} already known."

    def config(self, source: LegacySource) -> str:
        sections, notes = persona_entries(source.path, self.store.read("SOUL.md").body)
        self.report.notes.extend(notes)
        added, skipped = self.merge_sections("SOUL.md", sections)
        return f"{source.path}: {added} persona entries added to SOUL.md, {skipped} already there."

    def chat(self, source: LegacySource) -> str:
        merger = DayLogMerger(self.home.days)
        fallback = datetime.fromtimestamp(source.path.stat().st_mtime).astimezone()
        label = "chatgpt" if source.detail == "ChatGPT export" else "chat"
        latest = self.clock().astimezone() + FUTURE_SLACK
        future = 0
        for message in chat_messages(source, fallback):
            if message.when.astimezone() > latest:  # a future date would sit at the end of every prompt
                future += 1
                continue
            merger.add(message.to_record(), {"ref": message.ref, "imported": label})
        result = merger.flush()
        left_out = f"; {future} dated in the future left out" if future else ""
        return (f"{source.path} ({source.detail}): {result.added} messages added to the day logs, "
                f"{result.skipped} already there{left_out}.")


def migrate(
    home: Home,
    sources: Iterable[LegacySource],
    *,
    store: LongTermStore | None = None,
    clock: Callable[[], datetime] = datetime.now,
    backup: bool = True,
) -> MigrationReport:
    """Migrate every source into a staged copy of the memory, swap it in (the replaced folder is the
    backup), then rename each source to .bak. All or nothing: a failure changes nothing."""
    report = MigrationReport()
    todo = list(sources)
    if not todo:
        return report
    with maintenance.exclusive(home):  # from the copy to the swap: no write or night step lands between
        stage = StagedMemory(home)
        try:
            migrator = _Migrator(stage.home, LongTermStore(stage.home, history=History(home.history)), report, clock)
            for source in todo:
                try:
                    line = getattr(migrator, source.kind)(source)
                except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                    reason = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)
                    raise PortabilityError(f"{source.path} could not be read ({reason}); nothing was changed.") from exc
                except OSError as exc:
                    raise StorageError(describe_os_error(exc, source.path)) from exc
                report.done.append(line)
            report.backup = backup_target(home, "migrate", clock) if backup else None
            stage.commit(keep=report.backup)
        finally:
            stage.discard()
    for source in todo:
        _keep_original(source.path, report)
    live = store or LongTermStore(home)
    for name in LONG_TERM_FILES:
        live.announce(name)
    return report


def migrate_path(home: Home, path: Path, **kwargs: Any) -> MigrationReport:
    """Detect and migrate whatever older-format files `path` holds."""
    sources = detect(path)
    if not sources:
        raise UnrecognizedSourceError(
            f"Found nothing to import in {path}: expected a memory folder or .zip, a JSON-lines memory file, "
            "a config.json with personality settings, or a chat history export (.json)."
        )
    return migrate(home, sources, **kwargs)
