"""Import a memory folder or .zip (an exported skill, or any SOUL/USER/MEMORY.md folder): merge or replace."""

from __future__ import annotations

import os
import re
import shutil
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, Literal

from companion.errors import (
    FrontmatterError,
    PortabilityError,
    StorageError,
    TransferCancelledError,
    UnrecognizedSourceError,
)
from companion.portability.archive import extract_archive
from companion.atomic import atomic_write, describe_os_error
from companion.portability.backup import backup_target
from companion.memory.daylog import read_file
from companion.memory.document import Document, parse_document, split_frontmatter
from companion.memory.history import History
from companion.curate.gate import MemoryWriter
from companion.curate.policy import Actor
from companion.memory import maintenance
from companion.memory.longterm import MAX_FILE_BYTES, LongTermStore
from companion.memory.records import DEVICE_TAG, Record
from companion.memory.swap import StagedMemory, scratch_folder
from companion.portability.merge import FUTURE_SLACK, DayLogMerger, MergeCount, merge_body, rewrite_citations
from companion.portability.skill_doc import DIGEST_LEVELS
from companion.paths import LONG_TERM_FILES, Home

Mode = Literal["merge", "replace"]
Progress = Callable[[int, int, str], None]
MAX_DAY_FILE_BYTES = 64 * 2**20
FOREIGN_CONTROL = ("replaces", "trigger")  # fields that steer this app's display and triggers
_DAY_NAME = re.compile(rf"^\d{{4}}-\d{{2}}-\d{{2}}(?:\.{DEVICE_TAG})?\.jsonl$")  # one per computer when synced
_DIGEST_NAMES = {
    "day": re.compile(r"^\d{4}-\d{2}-\d{2}$"),
    "week": re.compile(r"^\d{4}-W\d{2}$"),
    "month": re.compile(r"^\d{4}-\d{2}$"),
    "year": re.compile(r"^\d{4}$"),
}


@dataclass
class ImportReport:
    """What an import changed, for the user."""

    source: Path
    mode: str
    backup: Path | None = None
    entries_added: dict[str, int] = field(default_factory=dict)
    entries_skipped: int = 0
    entries_refused: int = 0  # lines the write policy kept out: secrets, instructions to the assistant
    files_replaced: list[str] = field(default_factory=list)
    records_added: int = 0
    records_skipped: int = 0
    digests_added: int = 0
    digests_kept: int = 0
    notes: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        out = [f"Imported {self.source} ({self.mode})."]
        if self.mode == "merge":
            added = ", ".join(f"{n} to {f}" for f, n in self.entries_added.items() if n) or "none"
            out.append(f"Entries added: {added}; {self.entries_skipped} already known were skipped.")
        else:
            out.append(f"Replaced: {', '.join(self.files_replaced) or 'nothing'}.")
        if self.entries_refused:
            out.append(f"Left out {self.entries_refused} entries that hold a secret or an instruction to the assistant.")
        out.append(f"Day-log records added: {self.records_added}; {self.records_skipped} already present.")
        out.append(f"Digests added: {self.digests_added}; {self.digests_kept} existing kept.")
        out.extend(self.notes)
        if self.backup is not None:
            out.append(f"Backup of the previous memory: {self.backup}")
        return out


def _children(folder: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    try:
        for path in folder.iterdir():
            found.setdefault(path.name.casefold(), []).append(path)
    except OSError:
        pass
    return found


def long_term_sources(root: Path) -> dict[str, Path]:
    """SOUL.md / USER.md / MEMORY.md found in `root`, matched case-insensitively (two spellings: refused)."""
    children = _children(root)
    found: dict[str, Path] = {}
    for name in LONG_TERM_FILES:
        matches = [p for p in children.get(name.casefold(), []) if p.is_file() or p.is_symlink()]
        if len(matches) > 1:
            raise PortabilityError(
                f"The import holds {name} twice ({', '.join(sorted(p.name for p in matches))}); keep one and import again."
            )
        if matches:
            found[name] = matches[0]
    return found


def find_memory_root(folder: Path) -> Path | None:
    """`folder` or its only subfolder, whichever holds the memory files."""
    if long_term_sources(folder) or (folder / "days").is_dir() and (folder / "SKILL.md").is_file():
        return folder
    subfolders = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))]
    if len(subfolders) == 1 and long_term_sources(subfolders[0]):
        return subfolders[0]
    return None


@contextmanager
def open_source(src: Path, home: Home) -> Iterator[Path]:
    """The memory folder inside `src` (a folder, or a .zip unpacked into a scratch folder of `home`)."""
    if src.is_dir():
        root = find_memory_root(src)
        if root is None:
            raise UnrecognizedSourceError(f"{src} holds no SOUL.md, USER.md or MEMORY.md to import.")
        yield root
        return
    if not zipfile.is_zipfile(src):
        raise UnrecognizedSourceError(f"{src} is neither a memory folder nor a .zip of one.")
    scratch = scratch_folder(home, "unzip")
    try:
        try:
            extract_archive(src, scratch)
        except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
            raise PortabilityError(f"{src.name} is damaged and cannot be unpacked ({exc}).") from exc
        except OSError as exc:
            raise StorageError(describe_os_error(exc, scratch)) from exc
        root = find_memory_root(scratch)
        if root is None:
            raise UnrecognizedSourceError(f"{src.name} holds no SOUL.md, USER.md or MEMORY.md to import.")
        yield root
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def is_memory_source(src: Path) -> bool:
    if src.is_dir():
        return find_memory_root(src) is not None
    return src.is_file() and zipfile.is_zipfile(src)


def _inside(chosen: Path, path: Path, limit: int) -> Path:
    """`path` if it is a plain file inside the chosen folder and under `limit` bytes, else PortabilityError."""
    where = str(path.relative_to(chosen)) if path.is_relative_to(chosen) else path.name
    if path.is_symlink() or not path.resolve().is_relative_to(chosen.resolve()):
        raise PortabilityError(f"{where} in the import is a link to a file elsewhere; links are not imported. Nothing was changed.")
    if not path.is_file():
        raise PortabilityError(f"{where} in the import is not a regular file. Nothing was changed.")
    size = path.stat().st_size
    if size > limit:
        raise PortabilityError(f"{where} in the import is {size / 2**20:.1f} MB, over the {limit // 2**20} MB limit. Nothing was changed.")
    return path


def _day_files(root: Path, report: ImportReport) -> list[Path]:
    days = root / "days"
    if not days.is_dir():
        return []
    found = []
    for path in sorted(p for p in days.glob("*/*.jsonl") if not p.name.startswith(".")):
        if not _DAY_NAME.match(path.name) or path.parent.name != path.name[:7]:
            report.notes.append(f"Left out days/{path.parent.name}/{path.name}: not a day log name (YYYY-MM/YYYY-MM-DD.jsonl).")
            continue
        found.append(path)
    return found


def _digest_files(root: Path, report: ImportReport) -> list[Path]:
    found: list[Path] = []
    for level in DIGEST_LEVELS:
        folder = root / "digests" / level
        if not folder.is_dir():
            continue
        for path in sorted(p for p in folder.glob("*.md") if not p.name.startswith(".")):
            if _DIGEST_NAMES[level].match(path.stem):
                found.append(path)
            else:
                report.notes.append(f"Left out digests/{level}/{path.name}: not a {level} digest name.")
    return found


def _read_sources(sources: dict[str, Path]) -> dict[str, str]:
    """Source texts of the long-term files, refusing broken frontmatter before anything changes."""
    texts: dict[str, str] = {}
    for name, path in sources.items():
        raw = path.read_text(encoding="utf-8", errors="replace")
        try:
            parse_document(name, raw)
        except FrontmatterError as exc:
            raise PortabilityError(f"{name} in the import cannot be read: {exc} Fix it and import again.") from exc
        texts[name] = raw
    return texts


class _Importer:
    """Applies one import to a staged copy of the memory folder."""

    def __init__(self, home: Home, store: LongTermStore, report: ImportReport, progress: Progress | None,
                 cancelled: Callable[[], bool] | None, total: int, now: datetime) -> None:
        self.home = home
        self.store = store
        self.report = report
        self.progress = progress
        self.cancelled = cancelled
        self.total = total
        self.done = 0
        self.latest = now + FUTURE_SLACK
        self.ids: dict[str, str] = {}  # record id -> the file it came from
        self.future = 0

    def step(self, what: str) -> None:
        if self.cancelled is not None and self.cancelled():
            raise TransferCancelledError("Import stopped; nothing was changed.")
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, what)

    def records(self, path: Path) -> list[Record]:
        """A day file's records without foreign control fields and future dates; a repeated id is refused."""
        where = f"days/{path.parent.name}/{path.name}"
        kept = []
        for record in read_file(path).records:
            if record.id in self.ids:
                raise PortabilityError(
                    f"The import holds record {record.id} twice ({self.ids[record.id]} and {where}); "
                    "it may be damaged. Nothing was changed."
                )
            self.ids[record.id] = where
            try:
                when = record.timestamp
            except ValueError:
                continue
            if (when if when.tzinfo else when.astimezone()) > self.latest:
                self.future += 1
                continue
            for name in FOREIGN_CONTROL:
                record.extra.pop(name, None)
            kept.append(record)
        return kept

    def merge_logs(self, files: list[Path]) -> dict[str, str]:
        merger = DayLogMerger(self.home.days)
        for path in files:
            merger.add_all(self.records(path))
            self.step(f"days/{path.parent.name}/{path.name}")
        merger.flush()
        self.report.records_added += merger.result.added
        self.report.records_skipped += merger.result.skipped
        return merger.result.id_map

    def replace_logs(self, files: list[Path]) -> None:
        fresh = self.home.memory / ".days.importing"
        shutil.rmtree(fresh, ignore_errors=True)
        for path in files:
            records = self.records(path)
            atomic_write(fresh / path.parent.name / path.name, b"".join(r.to_line() for r in records))
            self.report.records_added += len(records)
            self.step(f"days/{path.parent.name}/{path.name}")
        if self.home.days.exists():
            shutil.rmtree(self.home.days)  # the live folder becomes the backup
        if fresh.exists():
            os.rename(fresh, self.home.days)
        else:
            self.home.days.mkdir(parents=True, exist_ok=True)

    def merge_long_term(self, texts: dict[str, str], id_map: dict[str, str]) -> None:
        rewrite = rewrite_citations(id_map)
        writer = MemoryWriter(self.store)
        for name, raw in texts.items():
            counts: list[MergeCount] = []

            def merged(doc: Document, source: str = split_frontmatter(raw)[2]) -> str:
                body, count = merge_body(doc.body, source, rewrite)
                counts[:] = [count]
                return doc.with_body(body)

            writer.merge_in(name, merged, actor=Actor.IMPORT)
            self.report.entries_added[name] = counts[0].added
            self.report.entries_skipped += counts[0].skipped
            self.report.entries_refused += counts[0].secrets
            self.step(name)

    def replace_long_term(self, texts: dict[str, str]) -> None:
        writer = MemoryWriter(self.store)
        for name, raw in texts.items():
            _, filtered = writer.replace_with(name, raw, actor=Actor.IMPORT)
            self.report.files_replaced.append(name)
            self.report.entries_refused += filtered.refused
            self.report.entries_skipped += filtered.repeated
            self.step(name)
        for name in LONG_TERM_FILES:
            if name not in texts:
                self.report.notes.append(f"{name} was not in the import and was kept as it was.")

    def digests(self, files: list[Path], replace: bool) -> None:
        if replace and self.home.digests.exists():
            shutil.rmtree(self.home.digests)
        for path in files:
            target = self.home.digests / path.parent.name / path.name
            data = path.read_bytes()
            if target.exists():
                self.report.digests_kept += 1
            else:
                atomic_write(target, data)
                self.report.digests_added += 1
            self.step(f"digests/{path.parent.name}/{path.name}")


def import_memory(
    home: Home,
    src: Path,
    mode: Mode = "merge",
    *,
    store: LongTermStore | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: Callable[[], datetime] = datetime.now,
) -> ImportReport:
    """Merge `src` into the memory (or replace the memory with it), all or nothing.

    The change is made on a staged copy and swapped in at the end; the folder it replaces is kept
    as the backup. A failure, a cancel or a killed process leaves the memory as it was."""
    if mode not in ("merge", "replace"):
        raise PortabilityError(f"Unknown import mode {mode!r}: use merge or replace.")
    src = Path(src).expanduser()
    if not src.exists():
        raise PortabilityError(f"{src} does not exist.")
    store = store or LongTermStore(home)
    report = ImportReport(source=src, mode=mode)
    with open_source(src, home) as root:
        if root.resolve() == home.memory.resolve():
            raise PortabilityError("That is Companion's own memory folder; choose an export or another folder.")
        chosen = src if src.is_dir() else root
        sources = {name: _inside(chosen, path, MAX_FILE_BYTES) for name, path in long_term_sources(root).items()}
        day_files = [_inside(chosen, p, MAX_DAY_FILE_BYTES) for p in _day_files(root, report)]
        digest_files = [_inside(chosen, p, MAX_FILE_BYTES) for p in _digest_files(root, report)]
        texts = _read_sources(sources)
        with maintenance.exclusive(home):  # from the copy to the swap: no write or night step lands between
            _import_staged(home, mode, texts, day_files, digest_files, report, progress, cancelled, clock)
    for name in LONG_TERM_FILES:
        store.announce(name)
    return report


def _import_staged(home: Home, mode: Mode, texts: dict[str, str], day_files: list[Path], digest_files: list[Path],
                   report: ImportReport, progress: Progress | None, cancelled: Callable[[], bool] | None,
                   clock: Callable[[], datetime]) -> None:
    """The import on a staged copy of the memory, swapped in at the end (the caller holds the memory lock)."""
    stage = StagedMemory(home)
    try:
        staged = LongTermStore(stage.home, history=History(home.history))
        now = clock().astimezone()
        importer = _Importer(stage.home, staged, report, progress, cancelled,
                             len(texts) + len(day_files) + len(digest_files), now)
        if mode == "merge":
            importer.merge_long_term(texts, importer.merge_logs(day_files))
        else:
            importer.replace_logs(day_files)
            importer.replace_long_term(texts)
        importer.digests(digest_files, replace=mode == "replace")
        if importer.future:
            report.notes.append(f"Left out {importer.future} records dated in the future.")
        if cancelled is not None and cancelled():
            raise TransferCancelledError("Import stopped; nothing was changed.")
        report.backup = backup_target(home, "import", clock)
        stage.commit(keep=report.backup)
    except OSError as exc:
        raise StorageError(f"{describe_os_error(exc, home.memory)} Nothing was changed.") from exc
    finally:
        stage.discard()
