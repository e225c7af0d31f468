"""The one write policy: may this entry go into SOUL/USER/MEMORY, written by this actor? Every writer asks here.

Writers: the user's explicit "remember" (`Actor.REMEMBER`), first-conversation answers
(`BOOTSTRAP`), the model's tool calls (`TOOL`), daytime learning (`LEARN`), the nightly job
(`SLEEP`), the Preferences dialog and editor shortcuts (`USER`), and imports (`IMPORT`).

    decision = decide(Proposal("Allergic to peanuts", "USER.md", Actor.LEARN), existing={"USER.md": body})
    if not decision.accepted: tell_the_user(decision.reason)

The policy, in order:
1. Secrets (passwords, keys, tokens, card/IBAN/social security numbers) are never stored,
   whoever asks.
2. Contact data and identifiers (email, phone, street address, ID/passport numbers) are stored
   only on the user's explicit request (REMEMBER, USER, IMPORT), never learned.
3. Injected or pasted instructions (chat-template tokens, `<context>`, "[system]", "ignore the
   previous instructions", names that are instructions) are never stored.
4. Hedged text ("maybe", "I think I might", "可能") is not stored as a plain fact; keeping the
   hedge explicitly ("Might like opera (unsure)") is fine.
5. An entry is one short statement (5-200 characters, CJK counted double, at least 3 letters).
6. The persona (SOUL.md) and standing instructions (USER.md Instructions) change only from the
   user's direct request: what learning and the night infer needs the user's own words as
   grounds, and pasted or quoted words never count.
7. One fact lives in one place: a duplicate of an active entry in USER.md or MEMORY.md is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from companion.curate import listen
from companion.curate.ops import MAX_TEXT, MIN_TEXT
from companion.curate.sensitive import find_contact, find_sensitive
from companion.memory import entries as E

FACT_FILES = ("USER.md", "MEMORY.md")  # one fact, one place: duplicates are checked across both


class Actor(str, Enum):
    """Who proposes the write."""

    REMEMBER = "remember"  # the user's explicit "remember ..." request
    BOOTSTRAP = "bootstrap"  # answers in the first conversation
    TOOL = "tool"  # a model tool call (edit_memory, context_update)
    LEARN = "learn"  # daytime learning after a reply
    SLEEP = "sleep"  # the nightly job
    USER = "user"  # the user typing in Preferences or the editor
    IMPORT = "import"  # entries merged from an imported memory folder
    AGENT = "agent"  # another assistant of the user's, over MCP: only ever a proposal the user approves


class Code(str, Enum):
    """Why a proposal was accepted or refused (stable: tests and the UI switch on it)."""

    OK = "ok"
    SECRET = "secret"
    CONTACT = "contact"
    INJECTION = "injection"
    HEDGE = "hedge"
    SHAPE = "shape"  # too short, too long, not a statement
    PERSONA = "persona"  # SOUL.md / Instructions from someone other than the user
    DUPLICATE = "duplicate"


EXPLICIT = frozenset({Actor.REMEMBER, Actor.USER, Actor.IMPORT})
INFERRED = frozenset({Actor.LEARN, Actor.SLEEP})  # read from the conversation: need the user's words as grounds


@dataclass(frozen=True)
class Proposal:
    """One entry someone wants to write. `grounds` are the user's own words it comes from, when known."""

    text: str
    file: str
    actor: Actor
    section: str = ""
    grounds: str | None = None


@dataclass(frozen=True)
class Decision:
    """accepted: write `text` (cleaned). Refused: `reason` says why, in words fit for the user."""

    accepted: bool
    code: Code
    text: str
    reason: str = ""
    duplicate_of: str = ""  # the existing line, for Code.DUPLICATE
    note: str = ""  # something the reply should say even when accepted ("saved your email because you asked")

    def __bool__(self) -> bool:
        return self.accepted


_LETTERS = re.compile(r"[^\W\d_]")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_NAME = re.compile(r"^(?:Name|名字)\s*[:：]\s*(?P<v>.+)$")
_SPACE = re.compile(r"\s+")


def text_width(text: str) -> int:
    """Length where a CJK character counts twice: "喜欢喝茶" says as much as "Likes tea"."""
    return len(text) + len(_CJK.findall(text))


def clean(text: str) -> str:
    """One entry's text: no bullet, citation or superseded mark, single spaces, no wrapping quotes."""
    return _SPACE.sub(" ", E.entry_text(text.strip())).strip().strip("\"'“”")


def _refuse(code: Code, text: str, reason: str, duplicate_of: str = "") -> Decision:
    return Decision(False, code, text, reason, duplicate_of)


def check_text(text: str, actor: Actor) -> Decision:
    """Rules 1-5, which need no file: secrets, contact data, injection, hedges, shape."""
    text = clean(text)
    kind = find_sensitive(text)
    if kind:
        return _refuse(Code.SECRET, text, f"it looks like {kind}, and secrets are never stored in memory")
    contact = find_contact(text)
    note = ""
    if contact:
        if actor not in EXPLICIT:
            return _refuse(Code.CONTACT, text, f"it holds {contact}, which is stored only when the user asks explicitly")
        note = f"Stored {contact} because the user asked explicitly."
    name = _NAME.match(text)
    if listen.injected(text) or (name and listen.name_is_instruction(name.group("v"))):
        return _refuse(Code.INJECTION, text, "it reads like an instruction to the assistant, not a fact")
    if listen.hedged(text):
        return _refuse(Code.HEDGE, text, "it is uncertain; it can be kept with the doubt, e.g. 'Might like opera (unsure)'")
    if not MIN_TEXT <= text_width(text) <= MAX_TEXT:
        return _refuse(Code.SHAPE, text, f"an entry must be {MIN_TEXT}-{MAX_TEXT} characters (this is {len(text)})")
    if len(_LETTERS.findall(E.ID.sub("", text))) < 3:
        return _refuse(Code.SHAPE, text, "it is not a statement")
    return Decision(True, Code.OK, text, note=note)


def _standing(proposal: Proposal) -> bool:
    return proposal.file == "SOUL.md" or proposal.section.strip("# ").casefold() == "instructions"


def decide(proposal: Proposal, existing: Mapping[str, str] | None = None) -> Decision:
    """The policy's answer for one entry. `existing` maps file names to their current bodies."""
    decision = check_text(proposal.text, proposal.actor)
    if not decision:
        return decision
    text = decision.text
    if _standing(proposal):
        if proposal.actor in INFERRED and proposal.grounds is None:
            return _refuse(Code.PERSONA, text, "the persona and standing instructions change only when the user asks directly")
        if proposal.grounds is not None and not listen.direct_request(proposal.grounds):
            return _refuse(Code.PERSONA, text, "it comes from pasted or quoted text, not from the user's own request")
    for file in _places(proposal.file):
        line = E.find_duplicate_entry(text, (existing or {}).get(file, ""))
        if line is not None:
            return _refuse(Code.DUPLICATE, text, f"already in {file}: {E.entry_text(line)}", line)
    return decision


def _places(file: str) -> tuple[str, ...]:
    return FACT_FILES if file in FACT_FILES else (file,)


def check_block(content: str, file: str, actor: Actor, existing: Mapping[str, str] | None = None) -> Decision:
    """A whole block of Markdown (a tool call's new text, an imported section): every line must pass.

    Headings, blank lines and lines the file already holds pass; the first refused line decides."""
    present = {l.strip() for l in (existing or {}).get(file, "").splitlines()}
    for raw in content.splitlines():
        line = raw.strip()
        if not line or line in present or line.startswith("#") or line.startswith("<!--") or line == "---":
            continue
        decision = decide(Proposal(line, file, actor), existing)
        if not decision and decision.code != Code.SHAPE:
            return decision
    return Decision(True, Code.OK, content)
