"""Parse a long-term file into frontmatter + Markdown body, keeping the raw frontmatter verbatim."""

from __future__ import annotations

import copy
import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import frontmatter
import yaml
from yaml.composer import ComposerError

from companion.errors import FrontmatterError, SchemaVersionError

SCHEMA_VERSION = 1
MAX_FRONTMATTER_CHARS = 16_000  # a few settings and triggers; a bigger block is not ours
MAX_FRONTMATTER_DEPTH = 20  # lists in mappings in lists...: triggers need three levels
_OPEN = re.compile(r"\A---[ \t]*\r?\n")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.MULTILINE)


def content_hash(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Document:
    """A long-term file as read: edits change `body` and keep `front` byte-identical."""

    name: str
    raw: str
    front: str
    body: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def sha(self) -> str:
        return content_hash(self.raw)

    def with_body(self, body: str) -> str:
        """The full file text with a new body."""
        return self.front + body


def split_frontmatter(raw: str) -> tuple[str, str, str]:
    """(front block incl. delimiters, YAML text, body). No frontmatter -> ('', '', raw)."""
    opening = _OPEN.match(raw)
    if not opening:
        return "", "", raw
    closing = _CLOSE.search(raw, opening.end())
    if closing is None:
        raise FrontmatterError("The frontmatter that starts on line 1 is never closed with '---'.", line=1)
    end = closing.end()
    if raw.startswith("\r\n", end):
        end += 2
    elif raw.startswith("\n", end):
        end += 1
    return raw[:end], raw[opening.end() : closing.start()], raw[end:]


_SURROGATE = re.compile("[\ud800-\udfff]")


class _PlainYaml(yaml.SafeLoader):
    """Safe YAML without aliases (`*name` can expand a few lines into gigabytes, a "billion laughs")
    and nested no deeper than MAX_FRONTMATTER_DEPTH (the composer recurses once per level)."""

    _depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise ComposerError(None, None, "aliases (*name) are not allowed here", self.peek_event().start_mark)
        if self._depth >= MAX_FRONTMATTER_DEPTH:
            raise ComposerError(None, None, f"values are nested more than {MAX_FRONTMATTER_DEPTH} levels deep",
                                self.peek_event().start_mark)
        self._depth += 1
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def parse_meta(yaml_text: str, name: str = "file") -> dict[str, Any]:
    """The frontmatter mapping; errors name the line in the file (frontmatter starts on line 2).

    Every turn reads the long-term files: the same block is parsed once (YAML is slow), each caller
    gets its own copy."""
    return copy.deepcopy(_parsed_meta(yaml_text, name))


@functools.lru_cache(maxsize=32)
def _parsed_meta(yaml_text: str, name: str) -> dict[str, Any]:
    if not yaml_text.strip():
        return {}
    if len(yaml_text) > MAX_FRONTMATTER_CHARS:
        raise FrontmatterError(
            f"The frontmatter of {name} is over {MAX_FRONTMATTER_CHARS // 1000} kB; keep it to a few settings.", line=2
        )
    not_utf8 = FrontmatterError(
        f"The frontmatter of {name} holds bytes that are not valid UTF-8; open the file and retype that part."
    )
    if _SURROGATE.search(yaml_text):  # bytes that were not UTF-8, read with surrogateescape
        raise not_utf8
    try:
        meta = frontmatter.YAMLHandler().load(yaml_text, Loader=_PlainYaml)  # a SafeLoader subclass
    except UnicodeError as exc:
        raise not_utf8 from exc
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = mark.line + 2 if mark is not None else None
        where = f" on line {line}" if line else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError(f"The frontmatter of {name} is not valid YAML{where}: {problem}.", line=line) from exc
    except (ValueError, RecursionError, MemoryError) as exc:  # e.g. an integer of thousands of digits
        raise FrontmatterError(
            f"The frontmatter of {name} holds a value Companion cannot read ({str(exc)[:80] or type(exc).__name__}). "
            "Open the file and fix or remove that value.", line=2
        ) from exc
    if meta is None:
        return {}
    if not isinstance(meta, dict):
        raise FrontmatterError(f"The frontmatter of {name} must be a set of 'key: value' lines.", line=2)
    version = meta.get("schema_version", SCHEMA_VERSION)
    if isinstance(version, int) and version > SCHEMA_VERSION:
        raise SchemaVersionError(
            f"{name} was written by a newer Companion (schema {version}); update Companion to edit it."
        )
    return meta


def parse_document(name: str, raw: str) -> Document:
    front, yaml_text, body = split_frontmatter(raw)
    meta = parse_meta(yaml_text, name)
    return Document(name=name, raw=raw, front=front, body=body, meta=meta)


def body_only(name: str, raw: str) -> Document:
    """A file whose frontmatter is broken, as chat can still use it: its body, no settings (never written back)."""
    try:
        front, _yaml, body = split_frontmatter(raw)
    except FrontmatterError:  # never closed: where the body starts cannot be told
        front, body = raw, ""
    return Document(name=name, raw=raw, front=front, body=body, meta={})


def render_front(meta: dict[str, Any]) -> str:
    """A frontmatter block for `meta`, keys in the given order."""
    if not meta:
        return ""
    text = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, default_flow_style=False)
    return f"---\n{text}---\n"
