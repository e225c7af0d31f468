"""The one write policy: may this entry go into SOUL/USER/MEMORY, written by this actor? Every writer asks here.

Writers, each named by its `Actor` (the vocabulary the history uses too): "remember", "remind me"
and "forget" requests, first-conversation answers, the model's tool calls, daytime learning, the
night, the Preferences dialog, the editor, imports, migrations, restores and other agents over MCP.
They all reach the files through one door, `curate/gate.py`'s MemoryWriter, which asks here.

    decision = decide(Proposal("Allergic to peanuts", "USER.md", Actor.LEARN), existing={"USER.md": body})
    if not decision.accepted: tell_the_user(decision.reason)

The policy, in order:
1. Secrets (passwords, keys, tokens, card/IBAN/social security numbers) are never stored by any
   writer. The user's own edit in the editor is the one exception: the editor warns and the user
   decides (`Actor.EDITOR`, confirmed).
2. Contact data and identifiers (email, phone, street address, ID/passport numbers) are stored
   only on the user's explicit request (REMEMBER, USER, IMPORT), never learned.
3. Injected or pasted instructions (chat-template tokens, `<context>`, "[system]", "ignore the
   previous instructions", names that are instructions) are never stored.
4. Hedged text ("maybe", "I think I might", "可能") is not stored as a plain fact; keeping the
   hedge explicitly ("Might like opera (unsure)") is fine.
5. An entry is one short statement (5-200 characters, CJK counted double, at least 3 letters).
6. The persona (SOUL.md) and standing instructions (USER.md Instructions, in any language) change
   only from the user's direct request: what learning and the night infer needs the user's own
   words as grounds, and pasted or quoted words never count.
7. One fact lives in one place: a duplicate of an active entry in USER.md or MEMORY.md is refused.
8. Rewrites keep what is stored: a rewrite may drop at most a quarter of a file's entries, the
   nightly audit (which keeps what it retires, marked) at most half.
9. A model's tool call that changes the persona, replaces a section or a file, or drops many entries
   waits for the user's approval unless the user's own message of this turn asked for it (`asked_for`:
   the one answer to "did the user ask for this?", negations such as "don't change ..." included).
10. What learning and the night propose cites the day log, and at least one of the user's messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum

from companion.curate import listen
from companion.curate.extract import own_words
from companion.curate.ops import MAX_TEXT, MIN_TEXT
from companion.curate.sensitive import find_contact, find_sensitive, label_zh, scan
from companion.memory import entries as E
from companion.memory.dedupe import find_duplicate_entry
from companion.memory.lang import cjk_count
from companion.memory import sections
from companion.memory.history import Actor
from companion.memory.section_names import canonical

__all__ = ["Actor", "Code", "Decision", "Proposal", "Reason", "reason_in", "asked_for", "approval_reason", "check_block", "check_change",
           "check_digest_line", "check_text", "decide", "audit_refusal", "rewrite_refusal", "dropped_share", "grounds_refusal",
           "import_refusal"]

FACT_FILES = ("USER.md", "MEMORY.md")  # one fact, one place: duplicates are checked across both


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


# The user's explicit request or the user's own text: contact data may be stored.
EXPLICIT = frozenset({Actor.REMEMBER, Actor.REMINDER, Actor.USER, Actor.EDITOR, Actor.APPROVED, Actor.IMPORT,
                      Actor.MIGRATE})
INFERRED = frozenset({Actor.LEARN, Actor.SLEEP})  # read from the conversation: need the user's words as grounds
# The user's own notes keep their wording (hedges, length): only these refusals count for them. An import
# skips what the memory already holds by its own rule (`portability/merge.py`), so a near-repeat stays.
OWN_WORDS: dict[Actor, frozenset[Code]] = {
    Actor.EDITOR: frozenset({Code.SECRET, Code.INJECTION, Code.DUPLICATE}),
    Actor.IMPORT: frozenset({Code.SECRET, Code.INJECTION}),
    Actor.MIGRATE: frozenset({Code.SECRET, Code.INJECTION}),
}
UNCHECKED = frozenset({Actor.RESTORE, Actor.FORGET, Actor.SYSTEM,  # puts back or takes out: adds nothing new
                       Actor.SYNC})  # brings in what the user's other computer wrote through this same policy
MAX_DROP_SHARE = 0.25  # a rewrite that drops more than this share of a file's entries is refused
MAX_AUDIT_SHARE = 0.5  # the audit keeps what it retires (marked), so it may touch more, not everything


class Reason(str):
    """Why something was refused, in words fit for the user: the English text (what logs, reports and
    callers compare), carrying its Chinese in `zh` for a Chinese session (`reason_in`)."""

    zh: str

    def __new__(cls, en: str, zh: str = "") -> "Reason":
        reason = super().__new__(cls, en)
        reason.zh = zh or en
        return reason


def reason_in(reason: str, chinese: bool) -> str:
    """`reason` in Chinese when `chinese` and known (a reason read back from a saved report is English only)."""
    return getattr(reason, "zh", reason) if chinese else str(reason)


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
_SPACE = re.compile(r"\s+")


def text_width(text: str) -> int:
    """Length where a CJK character counts twice: "喜欢喝茶" says as much as "Likes tea"."""
    return len(text) + cjk_count(text)


def clean(text: str) -> str:
    """One entry's text: no bullet, citation or superseded mark, single spaces, no wrapping quotes."""
    return _SPACE.sub(" ", E.entry_text(text.strip())).strip().strip("\"'“”")


def _refuse(code: Code, text: str, reason: str, zh: str, duplicate_of: str = "") -> Decision:
    return Decision(False, code, text, Reason(reason, zh), duplicate_of)


def check_text(text: str, actor: Actor) -> Decision:
    """Rules 1-5, which need no file: secrets, contact data, injection, hedges, shape."""
    text = clean(text)
    kind = find_sensitive(text)
    if kind:
        return _refuse(Code.SECRET, text, f"it looks like {kind}, and secrets are never stored in memory",
                       f"看起来像{label_zh(kind)}，记忆里从不保存机密")
    contact = find_contact(text)
    note = ""
    if contact:
        if actor not in EXPLICIT:
            return _refuse(Code.CONTACT, text, f"it holds {contact}, which is stored only when the user asks explicitly",
                           f"其中有{label_zh(contact)}，只有用户明确要求时才会保存")
        note = f"Stored {contact} because the user asked explicitly."
    name = E.Entry(text).name
    if listen.injected(text) or (name and listen.name_is_instruction(name)):
        return _refuse(Code.INJECTION, text, "it reads like an instruction to the assistant, not a fact",
                       "读起来像是给助手的指令，而不是事实")
    if listen.hedged(text):
        return _refuse(Code.HEDGE, text, "it is uncertain; it can be kept with the doubt, e.g. 'Might like opera (unsure)'",
                       "内容不确定；可以连同疑问一起记下，例如“可能喜欢歌剧（不确定）”")
    if not MIN_TEXT <= text_width(text) <= MAX_TEXT:
        return _refuse(Code.SHAPE, text, f"an entry must be {MIN_TEXT}-{MAX_TEXT} characters (this is {len(text)})",
                       f"一条记忆必须是 {MIN_TEXT}-{MAX_TEXT} 个字符（这条是 {len(text)} 个）")
    if len(_LETTERS.findall(E.ID.sub("", text))) < 3:
        return _refuse(Code.SHAPE, text, "it is not a statement", "这不是一句陈述")
    return Decision(True, Code.OK, text, note=note)


def check_digest_line(text: str) -> Decision:
    """Rules 1-3 for a line of a day, week, month or year digest, exactly as for an entry: a secret, contact
    data or an injected instruction never reaches a digest, whoever wrote the line (the rules or a model)."""
    text = " ".join(text.split())
    found = scan(text)  # one pass of the detector: a digest has many lines
    secret = next((f for f in found if f.is_secret), None)
    if secret is not None:
        return _refuse(Code.SECRET, text, f"it looks like {secret.label}, and secrets are never written to a digest",
                       f"看起来像{label_zh(secret.label)}，摘要里从不写入机密")
    if found:
        return _refuse(Code.CONTACT, text, f"it holds {found[0].label}", f"其中有{label_zh(found[0].label)}")
    if listen.injected(text) or listen.paste_start(text) == 0:
        return _refuse(Code.INJECTION, text, "it reads like an instruction to the assistant or pasted material",
                       "读起来像是给助手的指令或粘贴的内容")
    return Decision(True, Code.OK, text)


def _standing(proposal: Proposal) -> bool:
    """SOUL.md, or the Instructions section under any of its titles ("Instructions", "指示")."""
    title = sections.parse_heading(proposal.section)[1] if proposal.section.lstrip().startswith("#") else proposal.section
    return proposal.file == "SOUL.md" or canonical(title).casefold() == "instructions"


def decide(proposal: Proposal, existing: Mapping[str, str] | None = None) -> Decision:
    """The policy's answer for one entry. `existing` maps file names to their current bodies."""
    decision = check_text(proposal.text, proposal.actor)
    if not decision:
        return decision
    text = decision.text
    if _standing(proposal):
        if proposal.actor in INFERRED and proposal.grounds is None:
            return _refuse(Code.PERSONA, text, "the persona and standing instructions change only when the user asks directly",
                           "人设和长期指示只在用户直接要求时才会改变")
        if proposal.grounds is not None and not listen.direct_request(proposal.grounds):
            return _refuse(Code.PERSONA, text, "it comes from pasted or quoted text, not from the user's own request",
                           "它来自粘贴或引用的文字，而不是用户自己的要求")
        if proposal.file == "SOUL.md" and proposal.actor in INFERRED and not asked_for(proposal.grounds or "", "persona"):
            return _refuse(Code.PERSONA, text, "SOUL.md changes only when the user asks for a different persona",
                           "只有用户要求换一个人设时，SOUL.md 才会改变")
    for file in _places(proposal.file):
        line = find_duplicate_entry(text, (existing or {}).get(file, ""))
        if line is not None:
            return _refuse(Code.DUPLICATE, text, f"already in {file}: {E.entry_text(line)}",
                           f"已在 {file} 中：{E.entry_text(line)}", line)
    return decision


def _places(file: str) -> tuple[str, ...]:
    return FACT_FILES if file in FACT_FILES else (file,)


def _block_lines(content: str) -> list[tuple[str, str, bool]]:
    """(section, text, is_heading) for every line of a block a policy can read: headings by their title
    and HTML comments by what they say, since both reach the prompt as much as entries do."""
    out: list[tuple[str, str, bool]] = []
    section = ""
    for raw in content.splitlines():
        line = raw.strip()
        if not line or line == "---" or set(line) <= set("-*_= "):
            continue
        if line.startswith("#"):
            section = sections.parse_heading(line)[1]
            out.append((section, section, True))
            continue
        if line.startswith("<!--"):
            line = line.removeprefix("<!--").removesuffix("-->").strip()
        out.append((section, line, False))
    return out


def _refuses(decision: Decision, actor: Actor) -> bool:
    if decision or decision.code == Code.SHAPE:  # a block holds lines that are not entries: not decisive
        return False
    return decision.code in OWN_WORDS[actor] if actor in OWN_WORDS else True


def check_block(content: str, file: str, actor: Actor, existing: Mapping[str, str] | None = None,
                *, grounds: str | None = None, section: str = "") -> Decision:
    """A whole block of Markdown (a tool call's new text, an imported section, an edit): every line must
    pass, headings and comments included. Blank lines and lines the file already holds pass; the first
    refused line decides. `section` is where the block goes when it names none itself."""
    present = {l.strip() for l in (existing or {}).get(file, "").splitlines()}
    for where, line, heading in _block_lines(content):
        if line in present or f"## {line}" in present:
            continue
        if heading:
            decision = check_text(line, actor)
        else:
            decision = decide(Proposal(line, file, actor, where or section, grounds), existing)
        if _refuses(decision, actor):
            return decision
    return Decision(True, Code.OK, content)


def added_lines(before: str, after: str) -> list[str]:
    """The lines of `after` that `before` does not hold (as many times as they are new), in order."""
    left: dict[str, int] = {}
    for line in before.splitlines():
        left[line] = left.get(line, 0) + 1
    added = []
    for line in after.splitlines():
        if left.get(line, 0):
            left[line] -= 1
        else:
            added.append(line)
    return added


def check_change(file: str, before: str, after: str, actor: Actor, others: Mapping[str, str] | None = None,
                 *, grounds: str | None = None) -> Decision:
    """The policy for a change of a whole body: every line it adds, in the section it lands in, against
    what the files will hold besides it (so an edited entry is not its own duplicate)."""
    if actor in UNCHECKED:
        return Decision(True, Code.OK, after)
    new = added_lines(before, after)
    if not new:
        return Decision(True, Code.OK, after)
    rest = added_lines("\n".join(new), after)  # the body without the added lines
    existing = {**(others or {}), file: "\n".join(rest)}
    where = _sections_of(after)
    for line in new:
        block = f"## {where[line]}\n{line}" if where.get(line) and not line.lstrip().startswith("#") else line
        decision = check_block(block, file, actor, existing, grounds=grounds)
        if not decision:
            return decision
    return Decision(True, Code.OK, after)


def _sections_of(body: str) -> dict[str, str]:
    """Each line's `##` section title (the first place it occurs)."""
    found: dict[str, str] = {}
    section = ""
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            level, title = sections.parse_heading(stripped)
            if level <= 2:
                section = title
            continue
        found.setdefault(line, section)
    return found


def import_refusal(text: str) -> Decision | None:
    """Why an imported entry (with its continuation lines) stays out, or None: a secret anywhere in it,
    or a line that is an instruction to the assistant. Imported notes keep their wording otherwise."""
    kind = find_sensitive(text)
    if kind:
        return _refuse(Code.SECRET, clean(text), f"it looks like {kind}, and secrets are never stored in memory",
                       f"看起来像{label_zh(kind)}，记忆里从不保存机密")
    for line in text.splitlines():
        if line.strip():
            decision = check_text(line.lstrip("#").strip() if line.lstrip().startswith("#") else line, Actor.IMPORT)
            if decision.code in (Code.SECRET, Code.INJECTION):
                return decision
    return None


def grounds_refusal(roles: list[str]) -> str | None:
    """Rule 10: a proposed operation cites the day-log records it comes from (their roles here), and
    at least one is the user's own message: the companion's words are no grounds for a fact."""
    if not roles:
        return "cites no record of the day log"
    if "user" not in roles:
        return "cites only the companion's own words"
    return None


# -- rewrites: how much a change may drop -----------------------------------------------------


def dropped_share(old_body: str, new_body: str) -> tuple[int, int]:
    """(entries of old_body no longer active in new_body, active entries in old_body)."""
    before = [E.entry_text(l) for l in E.active_entries(old_body)]
    after = {E.entry_text(l).casefold() for l in E.active_entries(new_body)}
    lost = sum(1 for text in before if text.casefold() not in after)
    return lost, len(before)


def rewrite_refusal(old_body: str, new_body: str) -> str | None:
    """Why a change drops too many entries, or None. One replaced entry is always fine."""
    lost, total = dropped_share(old_body, new_body)
    if lost > 1 and lost > total * MAX_DROP_SHARE:
        return Reason(f"would drop {lost} of {total} entries (more than a quarter); refused to protect the file",
                      f"会删掉 {total} 条中的 {lost} 条（超过四分之一）；为保护文件而拒绝")
    return None


def audit_refusal(old_body: str, new_body: str) -> str | None:
    """Why the nightly audit may not retire this many entries at once, or None."""
    lost, total = dropped_share(old_body, new_body)
    if lost > 2 and lost > total * MAX_AUDIT_SHARE:  # an audit that retires half a file is a bug, not a cleanup
        return f"would retire {lost} of {total} entries at once; left for you to review"
    return None


# -- did the user ask for this? ---------------------------------------------------------------

# A longer first paragraph is most likely pasted text, not an instruction the user typed.
MAX_REQUEST_CHARS = 600
_PERSONA_REQUEST = re.compile(
    r"\b(call yourself|your name (is|should be|will be)|i'?ll call you|be (more|less) \w+|(please )?be \w+er\b|"
    r"(talk|speak|reply|answer|write) (more |less )?\w+ly|(don't|do not|stop) (use|using|being|saying)|"
    r"use (more|less|fewer) \w+)|你就叫|就叫你|你叫|你的名字|说话|回答.{0,4}(简洁|简短|详细)|别再|不要再",
    re.I,
)
_VERB = (
    r"(?:change|update|edit|rewrite|set|write|add|put|modify|adjust|replace|reset|redo|clear|wipe|"
    r"erase|overwrite|restructure|reorgani[sz]e|clean up|fix|remove|delete)"
)
_SOUL_REQUEST = re.compile(
    rf"\b{_VERB}\b.{{0,40}}\b(soul(?:\.md)?|persona|personality|yourself|your (?:name|style|tone|character))\b"
    r"|(改|写|更新|修改|设定|重写|替换|换).{0,12}(人设|性格|SOUL|你的名字|你的风格|语气)",
    re.I | re.S,
)
_REPLACE_REQUEST = re.compile(
    r"\b(replace|rewrite|overwrite|redo|reset|clear|wipe|erase|start over|from scratch|clean up|"
    r"reorgani[sz]e|restructure|tidy)\b|重写|替换|覆盖|清空|重置|重新写|整理",
    re.I,
)
_REQUESTS = {"persona": (_PERSONA_REQUEST, _SOUL_REQUEST), "replace": (_REPLACE_REQUEST,)}
# "Don't change ...", "please never rewrite ...", "不要改 ...": the words before a request that take it back.
_NEGATED = re.compile(
    r"(?:\b(?:don'?t|do not|never|no need to|not|stop|won'?t|shouldn'?t|mustn'?t)\b(?:\s+\w+){0,2}\s*"
    r"|(?:不要|别|不用|不必|无需|不许|不准|千万别)\S{0,3})$",
    re.I,
)


def own_request(user_text: str) -> str:
    """The part of a message that can ask for a change: its first paragraph, in the user's own words.
    What follows a blank line is most often pasted (a page, a mail), and a page can say anything."""
    first = re.split(r"\n\s*\n", own_words(listen.own_part(user_text)).strip(), maxsplit=1)[0]
    return first if len(first) <= MAX_REQUEST_CHARS and listen.direct_request(first) else ""


def asked_for(user_text: str, change: str) -> bool:
    """Did the user's own words ask for this kind of change ("persona" or "replace")? A request the
    words take back ("Don't change your persona.", "Do not clear my profile please") does not count."""
    words = own_request(user_text)
    for pattern in _REQUESTS[change]:
        for match in pattern.finditer(words):
            clause = re.split(r"[.!?;,，。！？；]", words[: match.start()])[-1]
            if not _NEGATED.search(clause):
                return True
    return False


_FILE_OF_ACTION = {"SOUL.md": "your companion's persona (SOUL.md)", "USER.md": "your profile (USER.md)",
                   "MEMORY.md": "the memory file (MEMORY.md)"}


def approval_reason(file: str, action: str, user_text: str, before: str, after: str) -> str | None:
    """Why a model's change needs the user's approval, or None when the user's message asked for it."""
    where = _FILE_OF_ACTION.get(file, file)
    if file == "SOUL.md" and not asked_for(user_text, "persona"):
        return f"it changes {where}, and you did not ask for that in this message"
    persona_section = action == "replace_section" and file == "SOUL.md"  # asked for above
    replace = asked_for(user_text, "replace")
    if action in ("replace_all", "replace_section") and not persona_section and not replace:
        what = "the whole of" if action == "replace_all" else "a section of"
        return f"it replaces {what} {where}, and you did not ask for that in this message"
    if rewrite_refusal(before, after) is not None and not replace:
        lost, total = dropped_share(before, after)
        return f"it removes {lost} of the {total} entries in {where}"
    if before.strip() and not after.strip() and not replace:
        return f"it empties {where}"
    return None
