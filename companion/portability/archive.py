"""Safe .zip extraction for imports: every entry is checked before a single byte is written."""

from __future__ import annotations

import shutil
import stat
import zipfile
from pathlib import Path, PurePosixPath

from companion.errors import UnsafeArchiveError

MAX_TOTAL_BYTES = 2 * 1024**3  # uncompressed; a memory of many years of chat is far smaller
MAX_ENTRY_BYTES = 64 * 1024**2  # one day log or memory file
MAX_ENTRIES = 200_000
MAX_RATIO = 100  # text packs 3-10:1; a "zip bomb" packs 1000:1
RATIO_FROM = 1024**2  # small entries may pack tighter (a file of blank lines)
_CHUNK = 1024 * 1024


def _entry_problem(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if "\x00" in name:
        return "a name with a NUL byte"
    posix = name.replace("\\", "/")
    if posix.startswith("/") or (len(posix) > 1 and posix[1] == ":"):
        return "an absolute path"
    if ".." in PurePosixPath(posix).parts:
        return "a '..' path that points outside the archive"
    mode = info.external_attr >> 16
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        return "a special file"
    return None


def check_archive(path: Path, max_bytes: int = MAX_TOTAL_BYTES) -> list[zipfile.ZipInfo]:
    """The archive's entries, or UnsafeArchiveError naming the first unsafe one."""
    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
    except (zipfile.BadZipFile, OSError) as exc:
        raise UnsafeArchiveError(f"{path.name} is not a readable .zip file ({exc}).") from exc
    if len(infos) > MAX_ENTRIES:
        raise UnsafeArchiveError(f"{path.name} holds {len(infos)} files; more than {MAX_ENTRIES} is refused.")
    total = 0
    names: set[str] = set()
    for info in infos:
        problem = _entry_problem(info)
        if problem:
            raise UnsafeArchiveError(f"Refused {path.name}: {info.filename!r} is {problem}. Nothing was extracted.")
        name = info.filename.replace("\\", "/").rstrip("/").casefold()
        if name in names:
            raise UnsafeArchiveError(f"Refused {path.name}: it holds {info.filename!r} twice. Nothing was extracted.")
        names.add(name)
        if info.file_size > MAX_ENTRY_BYTES:
            raise UnsafeArchiveError(
                f"Refused {path.name}: {info.filename!r} unpacks to {info.file_size // 1024**2} MB, "
                f"over the {MAX_ENTRY_BYTES // 1024**2} MB a memory file may have. Nothing was extracted."
            )
        if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(1, info.compress_size):
            raise UnsafeArchiveError(
                f"Refused {path.name}: {info.filename!r} is compressed more than {MAX_RATIO}:1, as only a "
                "zip bomb is. Nothing was extracted."
            )
        total += info.file_size
        if total > max_bytes:
            raise UnsafeArchiveError(
                f"Refused {path.name}: it unpacks to more than {max_bytes // 1024**2} MB. Nothing was extracted."
            )
    return infos


def extract_archive(path: Path, dest: Path, max_bytes: int = MAX_TOTAL_BYTES) -> None:
    """Check, then extract into `dest`, counting real bytes (a lying size header is caught too)."""
    infos = check_archive(path, max_bytes)
    root = dest.resolve()
    written = 0
    with zipfile.ZipFile(path) as archive:
        for info in infos:
            target = (root / info.filename.replace("\\", "/")).resolve()
            if root != target and root not in target.parents:
                raise UnsafeArchiveError(f"Refused {path.name}: {info.filename!r} points outside the archive.")
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(target, "wb") as out:
                entry = 0
                while chunk := source.read(_CHUNK):
                    written += len(chunk)
                    entry += len(chunk)
                    if entry > info.file_size:  # the header lied about the size
                        raise UnsafeArchiveError(f"Refused {path.name}: {info.filename!r} is larger than it says.")
                    if written > max_bytes:
                        raise UnsafeArchiveError(
                            f"Refused {path.name}: it unpacks to more than {max_bytes // 1024**2} MB."
                        )
                    out.write(chunk)


def remove_tree(folder: Path) -> None:
    shutil.rmtree(folder, ignore_errors=True)
