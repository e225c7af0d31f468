"""Whether tonight's model is worth its cost: a known-too-weak list and a one-call format probe of the distiller."""

from __future__ import annotations

import re
from datetime import date, datetime, timezone
from pathlib import Path

from companion.curate.ops import MAX_TEXT, MIN_TEXT, SECTIONS
from companion.llm.base import Backend
from companion.memory.records import Record
from companion.sleep.distill import ModelStats, build_messages, generate_json, ops_schema, parse_ops

# Models that cannot distill: their proposals never add anything the rules miss, at 100x the cost.
TOO_WEAK = ("smollm2135m",)
PROBE_FILE = "USER.md"
PROBE_DAY = date(2000, 1, 3)
PROBE_LINES = (
    ("user", "My name is Ana and I work as a nurse in Graz."),
    ("assistant", "Nice to meet you, Ana!"),
    ("user", "Please remember that I'm allergic to peanuts."),
)
PROBE_WORDS = ("ana", "nurse", "graz", "peanut")


def _squash(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.casefold())


def known_too_weak(backend: Backend) -> bool:
    names = (_squash(backend.info.name), _squash(Path(backend.info.path).name))
    return any(weak in name for weak in TOO_WEAK for name in names if name)


def probe_records() -> list[Record]:
    start = datetime(PROBE_DAY.year, PROBE_DAY.month, PROBE_DAY.day, 9, 0, tzinfo=timezone.utc)
    return [
        Record(f"{PROBE_DAY.isoformat()}#{n}", start.replace(minute=n).isoformat(), role, text)
        for n, (role, text) in enumerate(PROBE_LINES, 1)
    ]


def probe(backend: Backend, stats: ModelStats) -> str | None:
    """One distiller call on a three-line conversation with obvious facts. None if the answer is usable, else why not."""
    records = probe_records()
    ids = [r.id for r in records]
    messages = build_messages(PROBE_FILE, "## Profile\n", records, backend)
    data = generate_json(backend, messages, ops_schema(PROBE_FILE, ids), stats)
    if data is None:
        return "its answer to a test conversation was not valid JSON"
    usable = [
        op for op in parse_ops(PROBE_FILE, data)
        if op.kind in ("add", "update", "supersede") and op.section in SECTIONS[PROBE_FILE]
        and MIN_TEXT <= len(op.text) <= MAX_TEXT and op.sources and set(op.sources) <= set(ids)
        and any(word in op.text.casefold() for word in PROBE_WORDS)
    ]
    if not usable:
        return "its answer to a test conversation named none of the facts in it"
    return None


def skip_reason(backend: Backend, stats: ModelStats) -> str | None:
    """Why the model path should not run tonight, or None to run it."""
    if known_too_weak(backend):
        return f"{backend.info.name} is too small to distill memory reliably"
    failed = probe(backend, stats)
    return f"{backend.info.name} failed the distiller's check: {failed}" if failed else None
