"""Import a memory folder or .zip (an exported skill, or any SOUL/USER/MEMORY.md folder): merge or replace."""

from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
import zlib
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Callable, Iterator, Literal

from companion.errors import CompanionError, FrontmatterError, PortabilityError, StorageError, UnrecognizedSourceError
from companion.portability.archive import extract_archive
from companion.atomic import atomic_write, describe_os_error
from companion.portability.backup import backup_memory
from companion.memory.daylog import read_file
from companion.memory.document import parse_document, split_frontmatter
from companion.memory.longterm import LongTermStore
from companion.portability.merge import DayLogMerger, rewrite_citations, merge_body
from companion.portability.skill_doc import DIGEST_LEVELS
from companion.paths import LONG_TERM_FILES, Home

Mode = Literal["merge", "replace"]
Progress = Callable[[int, int, str], None]


@dataclass
class ImportReport:
    """What an import changed, for the user."""

    source: Path
    mode: str
    backup: Path | None = None
    entries_added: dict[str, int] = field(default_factory=dict)
    entries_skipped: int = 0
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
        out.append(f"Day-log records added: {self.records_added}; {self.records_skipped} already present.")
        out.append(f"Digests added: {self.digests_added}; {self.digests_kept} existing kept.")
        out.extend(self.notes)
        if self.backup is not None:
            out.append(f"Backup of the previous memory: {self.backup}")
        return out


def _children(folder: Path) -> dict[str, Path]:
    try:
        return {p.name.casefold(): p for p in folder.iterdir()}
    except OSError:
        return {}


def long_term_sources(root: Path) -> dict[str, Path]:
    """SOUL.md / USER.md / MEMORY.md found in `root`, matched case-insensitively."""
    children = _children(root)
    return {name: children[name.casefold()] for name in LONG_TERM_FILES if name.casefold() in children and children[name.casefold()].is_file()}


def find_memory_root(folder: Path) -> Path | None:
    """`folder` or its only subfolder, whichever holds the memory files."""
    if long_term_sources(folder) or (folder / "days").is_dir() and (folder / "SKILL.md").is_file():
        return folder
    subfolders = [p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))]
    if len(subfolders) == 1 and long_term_sources(subfolders[0]):
        return subfolders[0]
    return None


@contextmanager
def open_source(src: Path) -> Iterator[Path]:
    """The memory folder inside `src` (a folder, or a .zip unpacked to a temporary folder)."""
    if src.is_dir():
        root = find_memory_root(src)
        if root is None:
            raise UnrecognizedSourceError(f"{src} holds no SOUL.md, USER.md or MEMORY.md to import.")
        yield root
        return
    if not zipfile.is_zipfile(src):
        raise UnrecognizedSourceError(f"{src} is neither a memory folder nor a .zip of one.")
    scratch = Path(tempfile.mkdtemp(prefix="companion-import-"))
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


def _day_files(root: Path) -> list[Path]:
    days = root / "days"
    if not days.is_dir():
        return []
    return sorted(p for p in days.glob("*/*.jsonl") if not p.name.startswith("."))


def _digest_files(root: Path) -> list[Path]:
    found: list[Path] = []
    for level in DIGEST_LEVELS:
        folder = root / "digests" / level
        if folder.is_dir():
            found += sorted(p for p in folder.glob("*.md") if not p.name.startswith("."))
    return found


def _read_sources(root: Path) -> dict[str, str]:
    """Source texts of the long-term files, refusing broken frontmatter before anything changes."""
    texts: dict[str, str] = {}
    for name, path in long_term_sources(root).items():
        raw = path.read_text(encoding="utf-8", errors="replace")
        try:
            parse_document(name, raw)
        except FrontmatterError as exc:
            raise PortabilityError(f"{name} in the import cannot be read: {exc} Fix it and import again.") from exc
        texts[name] = raw
    return texts


class _Importer:
    def __init__(self, home: Home, store: LongTermStore, report: ImportReport, progress: Progress | None, total: int) -> None:
        self.home = home
        self.store = store
        self.report = report
        self.progress = progress
        self.total = total
        self.done = 0

    def step(self, what: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, what)

    def merge_logs(self, files: list[Path]) -> dict[str, str]:
        merger = DayLogMerger(self.home.days)
        for path in files:
            merger.add_all(read_file(path).records)
            self.step(f"days/{path.parent.name}/{path.name}")
        merger.flush()
        self.report.records_added += merger.result.added
        self.report.records_skipped += merger.result.skipped
        return merger.result.id_map

    def replace_logs(self, files: list[Path]) -> None:
        fresh = self.home.memory / ".days.importing"
        shutil.rmtree(fresh, ignore_errors=True)
        for path in files:
            records = read_file(path).records
            atomic_write(fresh / path.parent.name / path.name, b"".join(r.to_line() for r in records))
            self.report.records_added += len(records)
            self.step(f"days/{path.parent.name}/{path.name}")
        if self.home.days.exists():
            shutil.rmtree(self.home.days)  # the backup holds them
        if fresh.exists():
            os.rename(fresh, self.home.days)
        else:
            self.home.days.mkdir(parents=True, exist_ok=True)

    def merge_long_term(self, texts: dict[str, str], id_map: dict[str, str]) -> None:
        rewrite = rewrite_citations(id_map)
        for name, raw in texts.items():
            doc = self.store.read(name)
            body, count = merge_body(doc.body, split_frontmatter(raw)[2], rewrite)
            if count.added:
                self.store.write(name, doc.with_body(body), doc.sha, actor="import")
            self.report.entries_added[name] = count.added
            self.report.entries_skipped += count.skipped
            self.step(name)

    def replace_long_term(self, texts: dict[str, str]) -> None:
        for name, raw in texts.items():
            doc = self.store.read(name)
            front, _, body = split_frontmatter(raw)
            self.store.write(name, raw if front else doc.front + body, doc.sha, actor="import")
            self.report.files_replaced.append(name)
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
    clock: Callable[[], datetime] = datetime.now,
) -> ImportReport:
    """Back up the memory, then merge `src` into it (or replace it with `src`)."""
    if mode not in ("merge", "replace"):
        raise PortabilityError(f"Unknown import mode {mode!r}: use merge or replace.")
    src = Path(src).expanduser()
    if not src.exists():
        raise PortabilityError(f"{src} does not exist.")
    store = store or LongTermStore(home)
    report = ImportReport(source=src, mode=mode)
    with open_source(src) as root:
        if root.resolve() == home.memory.resolve():
            raise PortabilityError("That is Companion's own memory folder; choose an export or another folder.")
        texts = _read_sources(root)
        day_files, digest_files = _day_files(root), _digest_files(root)
        report.backup = backup_memory(home, "import", clock)
        importer = _Importer(home, store, report, progress, len(texts) + len(day_files) + len(digest_files))
        try:
            if mode == "merge":
                id_map = importer.merge_logs(day_files)
                importer.merge_long_term(texts, id_map)
            else:
                importer.replace_logs(day_files)
                importer.replace_long_term(texts)
            importer.digests(digest_files, replace=mode == "replace")
        except CompanionError as exc:
            raise PortabilityError(f"{exc} The memory before the import is saved in {report.backup}.") from exc
        except OSError as exc:
            raise StorageError(
                f"{describe_os_error(exc, home.memory)} The memory before the import is saved in {report.backup}."
            ) from exc
    return report
