"""Export the memory folder as an Agent Skill (folder or .zip), never touching the live memory."""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any, Callable, Protocol

from companion import __version__
from companion.errors import FrontmatterError, PortabilityError, StorageError, TransferCancelledError
from companion.atomic import atomic_write, describe_os_error
from companion.memory.document import split_frontmatter
from companion.portability.redact import Redactions, redact
from companion.portability.skill_doc import DIGEST_LEVELS, SKILL_NAME, MemorySummary, count_entries, render_skill_md
from companion.memory.daylog import day_files
from companion.paths import LONG_TERM_FILES, Home

Progress = Callable[[int, int, str], None]  # (done, total, what)
_KEEP_AS_IS = ("id", "ts", "ref", "role")


@dataclass(frozen=True)
class ExportOptions:
    as_zip: bool = False
    include_logs: bool = True
    redact: bool = False
    include_private: bool = False  # turns logged while memory was paused stay home unless asked for


@dataclass
class ExportResult:
    path: Path
    summary: MemorySummary
    files: int
    redactions: Redactions = field(default_factory=Redactions)
    skipped_lines: int = 0  # unreadable day-log lines left out
    private_left_out: int = 0  # records logged while memory was paused


class _Sink(Protocol):
    def write(self, relpath: str, data: bytes) -> None: ...


class _FolderSink:
    def __init__(self, root: Path) -> None:
        self.root = root

    def write(self, relpath: str, data: bytes) -> None:
        atomic_write(self.root / relpath, data)


class _ZipSink:
    def __init__(self, archive: zipfile.ZipFile, prefix: str, stamp: datetime) -> None:
        self.archive = archive
        self.prefix = prefix
        self.date_time = stamp.timetuple()[:6]

    def write(self, relpath: str, data: bytes) -> None:
        info = zipfile.ZipInfo(f"{self.prefix}/{relpath}", date_time=self.date_time)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | 0o644) << 16
        self.archive.writestr(info, data)


def resolve_target(dest: Path, as_zip: bool) -> tuple[Path, bool]:
    """Where the export goes: DEST/companion-memory[.zip], or DEST itself when it names a .zip."""
    if dest.suffix.lower() == ".zip":
        return dest, True
    if dest.exists() and not dest.is_dir():
        raise PortabilityError(f"{dest} is a file; choose a folder to export into, or a name ending in .zip.")
    return dest / (SKILL_NAME + (".zip" if as_zip else "")), as_zip


def plan_files(home: Home, include_logs: bool) -> list[str]:
    """Paths relative to the memory folder that an export copies (SKILL.md is written fresh)."""
    memory = home.memory
    files = [name for name in LONG_TERM_FILES if (memory / name).is_file()]
    for level in DIGEST_LEVELS:
        folder = home.digests / level
        if folder.is_dir():
            files += [f"digests/{level}/{p.name}" for p in sorted(folder.glob("*.md")) if not p.name.startswith(".")]
    if include_logs:  # every computer's day files; conflict copies are merged back first, not exported
        files += [f"days/{p.parent.name}/{p.name}" for p in day_files(home.days) if not p.parent.name.startswith(".")]
    return files


def export_memory(
    home: Home,
    dest: Path,
    options: ExportOptions = ExportOptions(),
    *,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
) -> ExportResult:
    """Copy the memory into a new skill folder or zip; the live memory is only read."""
    target, as_zip = resolve_target(Path(dest).expanduser().absolute(), options.as_zip)
    _refuse_inside_memory(home, target)
    if target.exists():
        raise PortabilityError(f"{target} already exists. Choose another folder, or move the old export away.")
    files = plan_files(home, options.include_logs)
    exporter = _Exporter(home, options, progress, cancelled, total=len(files) + 1)
    stamp = clock()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if as_zip:
            _export_zip(exporter, files, target, stamp)
        else:
            _export_folder(exporter, files, target, stamp)
    except OSError as exc:
        raise StorageError(describe_os_error(exc, target)) from exc
    return ExportResult(target, exporter.summary, len(files) + 1, exporter.found, exporter.skipped_lines,
                        exporter.private_left_out)


def _export_folder(exporter: "_Exporter", files: list[str], target: Path, stamp: datetime) -> None:
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-", dir=target.parent))
    try:
        root = staging / target.name
        exporter.run(_FolderSink(root), files, stamp)
        os.rename(root, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _export_zip(exporter: "_Exporter", files: list[str], target: Path, stamp: datetime) -> None:
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.partial-", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as raw, zipfile.ZipFile(raw, "w") as archive:
            exporter.run(_ZipSink(archive, SKILL_NAME, stamp), files, stamp)
            archive.close()
            raw.flush()
            os.fsync(raw.fileno())
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise


def _refuse_inside_memory(home: Home, target: Path) -> None:
    resolved = target.resolve()
    for inner in (home.memory.resolve(), home.state.resolve()):
        if resolved == inner or inner in resolved.parents:
            raise PortabilityError(f"Cannot export into {inner}: choose a folder outside Companion's memory.")


class _Exporter:
    """Reads each planned file once, transforms it (redaction, torn lines) and hands it to a sink."""

    def __init__(
        self,
        home: Home,
        options: ExportOptions,
        progress: Progress | None,
        cancelled: Callable[[], bool] | None,
        total: int,
    ) -> None:
        self.home = home
        self.options = options
        self.progress = progress
        self.cancelled = cancelled
        self.total = total
        self.done = 0
        self.found = Redactions()
        self.skipped_lines = 0
        self.private_left_out = 0
        self.summary = MemorySummary(logs_included=options.include_logs, redacted=options.redact)

    def run(self, sink: _Sink, files: list[str], stamp: datetime) -> None:
        for relpath in files:
            self._check_cancel()
            sink.write(relpath, self._content(relpath))
            self._step(relpath)
        self.summary.days.sort()
        skill = render_skill_md(self.summary, stamp, __version__)
        sink.write("SKILL.md", skill.encode("utf-8"))
        self._step("SKILL.md")

    def _check_cancel(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise TransferCancelledError("Export cancelled; nothing was written.")

    def _step(self, what: str) -> None:
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, what)

    def _content(self, relpath: str) -> bytes:
        path = self.home.memory / relpath
        try:
            raw = path.read_bytes()
        except OSError as exc:
            raise StorageError(f"Could not read {path}: {exc.strerror or exc}") from exc
        if relpath.startswith("days/"):
            return self._day_log(relpath, raw)
        text = raw.decode("utf-8", errors="replace")
        if relpath in LONG_TERM_FILES:
            self.summary.entries[relpath] = count_entries(_body(text))
        else:
            level, stem = relpath.split("/")[1], Path(relpath).stem
            self.summary.digests.setdefault(level, []).append(stem)
        if self.options.redact:
            text = redact(text, self.found)
        return text.encode("utf-8")

    def _day_log(self, relpath: str, raw: bytes) -> bytes:
        complete = raw[: raw.rfind(b"\n") + 1]  # a torn last line is still being written: leave it out
        if len(complete) < len(raw):
            self.skipped_lines += 1
        out: list[bytes] = []
        for line in complete.splitlines(keepends=True):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if not isinstance(data, dict):
                    raise ValueError("not an object")
            except ValueError:
                self.skipped_lines += 1
                continue
            if data.get("private") is True and not self.options.include_private:
                self.private_left_out += 1
                continue
            self.summary.records += 1
            if self.options.redact:
                redacted = {k: v if k in _KEEP_AS_IS else _redact_value(v, self.found) for k, v in data.items()}
                line = (json.dumps(redacted, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
            out.append(line)
        try:
            self.summary.days.append(date.fromisoformat(Path(relpath).stem))
        except ValueError:
            pass
        return b"".join(out)


def _body(text: str) -> str:
    try:
        return split_frontmatter(text)[2]
    except FrontmatterError:
        return text


def _redact_value(value: Any, found: Redactions) -> Any:
    if isinstance(value, str):
        return redact(value, found)
    if isinstance(value, list):
        return [_redact_value(v, found) for v in value]
    if isinstance(value, dict):
        return {k: _redact_value(v, found) for k, v in value.items()}
    return value
