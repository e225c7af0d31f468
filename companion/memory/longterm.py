"""Long-term files (SOUL/USER/MEMORY): read, and edit by compare-and-swap with a snapshot first.

The edit methods are private: `curate/gate.py`'s MemoryWriter is the one caller (tests/test_one_writer.py)."""

from __future__ import annotations

import logging
import os
import re
import stat
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from companion.errors import (
    AmbiguousMatchError,
    ConflictError,
    InvalidMemoryFileError,
    NoMatchError,
    StorageError,
)
from companion.memory import sections
from companion.atomic import atomic_write
from companion.memory.document import Document, content_hash, parse_document
from companion.filelock import locked
from companion.memory.history import Actor, History, Version
from companion.paths import LONG_TERM_FILES, Home

log = logging.getLogger(__name__)

Listener = Callable[[str, Document], None]


@dataclass(frozen=True)
class Change:
    """One change a writer made: the file, who (`actor`), the text before and the document after."""

    name: str
    actor: str
    before: str
    after: Document


ChangeListener = Callable[[Change], None]
MAX_FILE_BYTES = 1_000_000


def check_name(name: object) -> str:
    """The canonical file name, or InvalidMemoryFileError for anything off the whitelist."""
    if not isinstance(name, str) or not name:
        raise InvalidMemoryFileError("A memory file name is required: one of SOUL.md, USER.md, MEMORY.md.")
    if ".." in name or "/" in name or "\\" in name or ":" in name or name.startswith("~"):
        raise InvalidMemoryFileError(
            f"Refused {name!r}: memory tools only reach SOUL.md, USER.md and MEMORY.md (no paths)."
        )
    canonical = name if name.upper().endswith(".MD") else name + ".md"
    for allowed in LONG_TERM_FILES:
        if canonical.upper() == allowed.upper():
            return allowed
    raise InvalidMemoryFileError(f"Unknown memory file {name!r}: use SOUL.md, USER.md or MEMORY.md.")


_SURROGATE_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")
_LONE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")


def _encodable(text: str) -> str:
    """Text that can be saved: surrogate pairs joined, other lone surrogates -> U+FFFD.

    U+DC80-U+DCFF stay: they stand for bytes that were not UTF-8 when the file was read
    and are written back as the same bytes."""
    try:
        text.encode("utf-8", "surrogateescape")
        return text
    except UnicodeEncodeError:
        pass
    text = _SURROGATE_PAIR.sub(lambda m: m.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le"), text)
    return _LONE_SURROGATE.sub("\ufffd", text)


def locked_by_user(path: Path) -> bool:
    """A memory file the user made read-only is locked: no writer of ours replaces it."""
    try:
        return not os.stat(path).st_mode & stat.S_IWUSR
    except OSError:
        return False


def _occurrences(text: str, sub: str) -> int:
    """How many places `sub` starts at, overlaps included ('##' is in '###' twice, so it is ambiguous)."""
    count, at = 0, text.find(sub)
    while at != -1:
        count += 1
        at = text.find(sub, at + 1)
    return count


class LongTermStore:
    """Reads the files; every change goes through `_write`/`_apply`: lock, compare hashes, snapshot,
    atomic write, notify. Only the MemoryWriter changes files, so every change passes the policy."""

    def __init__(self, home: Home, history: History | None = None) -> None:
        self.home = home
        self.history = history or History(home.history)
        self._listeners: list[Listener] = []
        self._change_listeners: list[ChangeListener] = []
        self._listeners_lock = threading.Lock()

    # -- observing -----------------------------------------------------------

    def subscribe(self, listener: Listener) -> None:
        with self._listeners_lock:
            self._listeners.append(listener)

    def unsubscribe(self, listener: Listener) -> None:
        with self._listeners_lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def subscribe_changes(self, listener: ChangeListener) -> None:
        """`listener(Change)` after every write that changed a file (called in the writer's thread)."""
        with self._listeners_lock:
            self._change_listeners.append(listener)

    def unsubscribe_changes(self, listener: ChangeListener) -> None:
        with self._listeners_lock:
            if listener in self._change_listeners:
                self._change_listeners.remove(listener)

    def _tell_change(self, name: str, actor: str, before: str, after: Document) -> None:
        if before == after.raw:
            return
        with self._listeners_lock:
            listeners = list(self._change_listeners)
        for listener in listeners:
            try:
                listener(Change(name, actor, before, after))
            except Exception:  # a listener's bug must not fail the write
                log.exception("memory change listener failed")

    def announce(self, name: str) -> None:
        """Tell listeners `name` changed outside the store (a whole memory folder was swapped in)."""
        self._notify(check_name(name), self.read(name))

    def _notify(self, name: str, doc: Document) -> None:
        with self._listeners_lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(name, doc)
            except Exception:  # a broken observer must not undo a saved change
                log.exception("memory change listener failed")

    # -- reading -------------------------------------------------------------

    def path(self, name: str) -> Path:
        return self.home.long_term(check_name(name))

    def read_raw(self, name: str) -> str:
        path = self.path(name)
        try:  # newline="": keep CRLF and lone CR as written, so edits change only what they edit
            with open(path, encoding="utf-8", errors="surrogateescape", newline="") as handle:
                return handle.read()
        except FileNotFoundError:
            return ""
        except OSError as exc:
            raise StorageError(f"Could not read {path}: {exc.strerror or exc}") from exc

    def read(self, name: str) -> Document:
        """Parsed file; FrontmatterError (with line) if the YAML is broken. Never rewrites."""
        name = check_name(name)
        return parse_document(name, self.read_raw(name))

    # -- the one write path --------------------------------------------------

    def _lock(self, name: str):  # noqa: ANN202 - a context manager
        return locked(self.home.state / "locks" / f"{name}.lock")

    def _write(self, name: str, new_raw: str, expected_sha: str | None, *, actor: Actor) -> Document:
        """Replace the file if it still has `expected_sha` (None: whatever it has now)."""
        name = check_name(name)
        with self._lock(name):
            current = self.read_raw(name)
            if expected_sha is not None and content_hash(current) != expected_sha:
                raise ConflictError(
                    f"{name} changed since it was read (by another editor, a memory tool or the sleep job). "
                    "Reload it and apply the change again."
                )
            doc = self._replace(name, current, new_raw, actor)
        self._notify(name, doc)
        self._tell_change(name, actor, current, doc)
        return doc

    def _replace(self, name: str, current: str, new_raw: str, actor: Actor) -> Document:
        """Validate, snapshot and atomically write; the caller holds the file's lock."""
        new_raw = _encodable(new_raw)
        doc = parse_document(name, new_raw)  # refuse to save what could not be read back
        if len(new_raw.encode("utf-8", "surrogateescape")) > MAX_FILE_BYTES:
            raise StorageError(f"{name} would grow over {MAX_FILE_BYTES // 1000} kB; compact it first.")
        if current == new_raw:
            return doc
        path = self.path(name)
        if locked_by_user(path):
            raise StorageError(f"{name} is read-only, so Companion leaves it as it is. Make it writable to let it change.")
        if current:
            self.history.snapshot(name, current, actor)
        atomic_write(path, new_raw.encode("utf-8", "surrogateescape"))
        return doc

    def _apply(
        self,
        name: str,
        change: Callable[[Document], str],
        expected_sha: str | None,
        actor: Actor,
    ) -> Document:
        """Read, change and write under the file's lock, so concurrent operations never lose one another."""
        name = check_name(name)
        with self._lock(name):
            current = self.read_raw(name)
            doc = parse_document(name, current)
            if expected_sha is not None and doc.sha != expected_sha:
                raise ConflictError(f"{name} changed since it was read. Reload it and apply the change again.")
            new = self._replace(name, current, change(doc), actor)
        self._notify(name, new)
        self._tell_change(name, actor, current, new)
        return new

    # -- operations ----------------------------------------------------------

    def _append(
        self, name: str, text: str, section: str | None = None, *, expected_sha: str | None = None, actor: Actor
    ) -> Document:
        """Add `text` at the end of the body, or of `section` (created at the end if missing)."""
        return self._apply(name, lambda doc: appended(doc, text, section), expected_sha, actor)

    def _replace_section(
        self, name: str, heading: str, content: str, *, expected_sha: str | None = None, actor: Actor
    ) -> Document:
        """Replace what is under `heading` (to the next heading of the same or higher level).

        A missing heading is created at the end of the file, so a distiller can fill a
        section the user deleted.
        """
        return self._apply(name, lambda doc: section_replaced(doc, heading, content), expected_sha, actor)

    def _replace_all(
        self, name: str, content: str, *, expected_sha: str | None = None, actor: Actor
    ) -> Document:
        """Replace the whole body; the frontmatter stays byte-identical."""
        return self._apply(name, lambda doc: all_replaced(doc, content), expected_sha, actor)

    def _edit(
        self,
        name: str,
        old_string: str,
        new_string: str,
        *,
        expected_sha: str | None = None,
        actor: Actor,
    ) -> Document:
        """Replace the one exact occurrence of `old_string` in the body."""
        return self._apply(name, lambda doc: edited(doc, old_string, new_string), expected_sha, actor)

    def _restore(self, name: str, version: Version, *, expected_sha: str | None = None) -> Document:
        """Put an earlier version back (the current content is snapshotted first)."""
        return self._write(name, version.read(), expected_sha, actor=Actor.RESTORE)


# -- the edit operations as pure functions (raw text in, raw text out) ---------


def appended(doc: Document, text: str, section: str | None = None) -> str:
    if section is None:
        return doc.with_body(sections.append_text(doc.body, text))
    body = sections.append_to_section(doc.body, section, text)
    if body is None:
        body = sections.add_section(doc.body, section, text)
    return doc.with_body(body)


def section_replaced(doc: Document, heading: str, content: str) -> str:
    body = sections.replace_section(doc.body, heading, content)
    if body is None:
        body = sections.add_section(doc.body, heading, content)
    return doc.with_body(body)


def all_replaced(doc: Document, content: str) -> str:
    return doc.with_body(content if content.endswith("\n") or not content else content + "\n")


def edited(doc: Document, old_string: str, new_string: str) -> str:
    if not old_string:
        raise NoMatchError("old_string is empty: quote the exact text to replace.")
    count = _occurrences(doc.body, old_string)
    if count == 0:
        raise NoMatchError(f"old_string was not found in {doc.name}. Read the file again and copy the text exactly.")
    if count > 1:
        raise AmbiguousMatchError(
            f"old_string occurs {count} times in {doc.name}. Include more surrounding text so it is unique.", count
        )
    return doc.with_body(doc.body.replace(old_string, new_string, 1))
