"""The model path: one distiller per long-term file proposes ops as schema-constrained JSON, chunk by chunk."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from typing import Any

from companion.errors import CompanionError, SleepCancelledError
from companion.llm.base import Backend, GenerationOptions, Message, collect
from companion.memory import records as R
from companion.memory.records import Record
from companion.curate.sensitive import mask
from companion.memory import entries as E
from companion.curate.policy import asked_for
from companion.curate.ops import MAX_TEXT, SECTIONS, Op

log = logging.getLogger(__name__)

MAX_OPS = 4
REPLY_TOKENS = 192
RECORD_CHARS = 600
FILE_BUDGET_SHARE = 0.25

FOCUS = {
    "USER.md": (
        "You maintain USER.md: who the user is (Profile: name, job, home, family, health), "
        "explicit instructions the user gave the assistant (Instructions), and likes and dislikes (Preferences)."
    ),
    "MEMORY.md": (
        "You maintain MEMORY.md: facts and decisions, corrections (where the assistant was wrong and the right answer), "
        "topics and interests, a dated timeline of notable events, and upcoming events with absolute dates "
        "written as 'YYYY-MM-DD: what'."
    ),
    "SOUL.md": (
        "You maintain SOUL.md, the assistant's persona. Change it ONLY when the user explicitly asked the assistant "
        "to behave differently (e.g. 'be more concise', 'call yourself Mo'). Otherwise answer with op 'none'."
    ),
}
RULES_TEXT = (
    "Read the new conversation lines and the current file. Propose at most {max_ops} operations as JSON. "
    "op: add (a new entry), update (replace the entry quoted in 'old'), supersede (mark 'old' outdated and add 'text'), "
    "none (nothing worth keeping). 'text' is one short entry in the user's words, 5-200 characters, in the third person "
    "without pronouns ('Allergic to shellfish'), with absolute dates (YYYY-MM-DD), never 'today' or 'tomorrow'. "
    "'sources' lists the ids of the lines it comes from. Never store passwords, keys, card numbers, emails or phone numbers. "
    "Do not repeat what the file already says."
)


@dataclass
class ModelStats:
    calls: int = 0
    prompt_tokens: int = 0
    generated_tokens: int = 0
    seconds: float = 0.0
    invalid: int = 0  # replies that were not usable JSON

    def add(self, other: "ModelStats") -> None:
        for name in ("calls", "prompt_tokens", "generated_tokens", "seconds", "invalid"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def ops_schema(file: str, ids: list[str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "ops": {
                "type": "array",
                "maxItems": MAX_OPS,
                "items": {
                    "type": "object",
                    "properties": {
                        "op": {"type": "string", "enum": ["add", "update", "supersede", "none"]},
                        "section": {"type": "string", "enum": list(SECTIONS[file])},
                        "text": {"type": "string", "maxLength": MAX_TEXT},
                        "old": {"type": "string", "maxLength": MAX_TEXT},
                        "sources": {"type": "array", "minItems": 1, "maxItems": 3, "items": {"type": "string", "enum": ids}},
                    },
                    "required": ["op", "section", "text", "sources"],
                },
            }
        },
        "required": ["ops"],
    }


def render_record(record: Record) -> str:
    text = " ".join(mask(record.text).split())  # the model cannot copy a secret it never sees
    if len(text) > RECORD_CHARS:
        text = text[:RECORD_CHARS] + "…"
    return f"[{record.id}] {record.timestamp:%Y-%m-%d %H:%M} {record.role}: {text}"


def conversational(records: list[Record]) -> list[Record]:
    """The user's and the companion's words worth distilling: not a replaced reply, never a private turn."""
    return R.conversational(records, private=False)


def chunk_records(records: list[Record], backend: Backend, budget_tokens: int) -> list[list[Record]]:
    """Consecutive groups whose rendered lines fit `budget_tokens` (a long record gets a chunk alone)."""
    chunks: list[list[Record]] = []
    current: list[Record] = []
    used = 0
    for record in records:
        cost = backend.count_tokens(render_record(record)) + 2
        if current and used + cost > budget_tokens:
            chunks.append(current)
            current, used = [], 0
        current.append(record)
        used += cost
    if current:
        chunks.append(current)
    return chunks


def record_budget(backend: Backend) -> int:
    """Tokens left for conversation lines after instructions, the file excerpt and the reply."""
    n_ctx = backend.info.n_ctx
    return max(256, int(n_ctx * (1 - FILE_BUDGET_SHARE)) - REPLY_TOKENS - 300)


def file_excerpt(body: str, backend: Backend) -> str:
    """The file's entries (headings kept), newest last, trimmed to a quarter of the context."""
    lines = [l for l in body.splitlines() if l.startswith("## ") or (E.is_entry(l) and not E.is_superseded(l))]
    budget = int(backend.info.n_ctx * FILE_BUDGET_SHARE)
    while lines and backend.count_tokens("\n".join(lines)) > budget:
        entry = next((i for i, l in enumerate(lines) if not l.startswith("## ")), None)
        if entry is None:
            break
        del lines[entry]
    return "\n".join(lines) or "(empty)"


def build_messages(file: str, body: str, chunk: list[Record], backend: Backend) -> list[Message]:
    system = FOCUS[file] + " " + RULES_TEXT.format(max_ops=MAX_OPS)
    user = (
        f"Current {file}:\n{file_excerpt(body, backend)}\n\n"
        "New conversation lines:\n" + "\n".join(render_record(r) for r in chunk) + "\n\nAnswer with JSON only."
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def generate_json(backend: Backend, messages: list[Message], schema: dict[str, Any], stats: ModelStats) -> Any:
    """One constrained generation; None when the reply is not JSON. Raises SleepCancelledError."""
    options = GenerationOptions(max_tokens=REPLY_TOKENS, temperature=0.0, top_p=1.0, json_schema=schema, seed=0)
    started = time.perf_counter()
    try:
        text, _calls, reason = collect(backend.stream_chat(messages, options))
    except CompanionError as exc:
        log.warning("The model failed during the sleep job: %s", exc)
        stats.invalid += 1
        return None
    stats.calls += 1
    stats.seconds += time.perf_counter() - started
    stats.prompt_tokens += sum(backend.count_tokens(str(m.get("content", ""))) for m in messages)
    stats.generated_tokens += backend.count_tokens(text)
    if reason == "cancelled":
        raise SleepCancelledError("The sleep job was cancelled.")
    try:
        return json.loads(text)
    except ValueError:
        stats.invalid += 1
        return None


def parse_ops(file: str, data: Any) -> list[Op]:
    """Ops from a reply; anything malformed is dropped here (validation comes later)."""
    items = data.get("ops") if isinstance(data, dict) else None
    ops: list[Op] = []
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        sources = item.get("sources")
        ops.append(
            Op(
                kind=str(item.get("op", "none")),
                file=file,
                section=str(item.get("section", "")),
                text=str(item.get("text", "")),
                sources=[s for s in sources if isinstance(s, str)] if isinstance(sources, list) else [],
                old=str(item.get("old", "") or ""),
                origin="model",
            )
        )
    return ops[:MAX_OPS]


def distill_chunk(backend: Backend, file: str, body: str, chunk: list[Record], stats: ModelStats) -> list[Op]:
    """The model's proposals for one file and one chunk (SOUL only when the user asked for a change)."""
    if not any(r.role == "user" for r in chunk):
        return []
    if file == "SOUL.md" and not any(r.role == "user" and asked_for(r.text, "persona") for r in chunk):
        return []
    messages = build_messages(file, body, chunk, backend)
    data = generate_json(backend, messages, ops_schema(file, [r.id for r in chunk]), stats)
    return parse_ops(file, data)
