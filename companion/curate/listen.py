"""How a careful listener reads a statement: hedged, sarcastic, hypothetical, past, pasted or injected.

The rule extractor and the write policy both ask these questions; each marker list is English
and Chinese. A statement that trips one is not a plain fact about the user.
"""

from __future__ import annotations

import re

from companion.memory.lang import HAN

HEDGE = re.compile(
    r"\b(?:i think i (?:might|may)|i might|i may|maybe|perhaps|probably|possibly|not (?:so |too |really |entirely |a hundred percent )?sure"
    r"|i'?m not certain|not certain|i guess|i suppose|kind of|sort of|might be|may be|could be|i wonder if|unsure|undecided"
    r"|not decided|haven'?t decided|who knows|i'?m not positive|i believe|i reckon|apparently|supposedly|i'?m thinking (?:about|of)"
    r"|considering|i'?m (?:still )?deciding|or something|or so)\b|,\s*i think[.!]?$"
    r"|我?好像|可能|说不准|说不定|也许|大概|不确定|不一定|或许|应该是吧|吧[。！!？?]?$|还没想好|拿不准|估计|似乎|貌似|大约|没准|我觉得我?(?:应该|可能)",
    re.I,
)
UNSURE_MARK = re.compile(r"\((?:unsure|not sure|maybe)\)\s*$|（不确定）\s*$", re.I)
SARCASM = re.compile(
    r"\b(?:oh,? (?:great|sure|joy|wonderful|fantastic|perfect|brilliant|lovely|yay)|yeah,? right|just love(?:s)? (?:it )?when"
    r"|just what i needed|sure,? because|as if|thanks a lot|how fantastic|what a joy|my favou?rite thing|totally my favou?rite"
    r"|nothing i love more|because that'?s (?:so )?fun|love (?:waiting|being stuck|getting stuck|sitting in)|i just adore (?:waiting|being)"
    r"|said no one ever|best day ever|/s|wow,? i (?:just |really )?love|i love how|oh yeah,|so much fun[.!]*$"
    r"|(?:love|enjoy|adore|like)\s+(?:\w+\s+){0,3}(?:being stuck|stuck|waiting|being put on hold|on hold|delayed|cancel+ed|crash\w*|traffic jams?|queues?|taxes|overtime|being yelled at))\b|\bnot\.\s*$|🙄|😒|（并不）|\(并不\)|呵呵|真是太好了呢|可真行|好棒棒|我可太喜欢.{0,10}了呢|真是.{0,6}呢|喜欢(?:加班|堵车|排队|被.{0,4}骂|挨骂)",
    re.I,
)
HYPOTHETICAL = re.compile(
    r"\b(?:if i (?:had|were|was|could|lived|won|didn'?t|got|ever)|i would(?! like you)|i'?d (?:love|like|want|probably|definitely)(?! you)"
    r"|someday|some day|one day i|i wish|wish i|if only|dream(?:s|ing)? (?:of|about)|would love to|hope to|i hope i"
    r"|i want to (?:\w+ ){0,6}(?:someday|one day|eventually)|in another life|imagine if)\b"
    r"|如果|要是|假如|假设|有一天|总有一天|有朝一日|希望|我想要|真想|好想|多想|梦想|但愿|要能|的话|等我",
    re.I,
)
PAST = re.compile(
    r"\b(?:i used to|used to|i gave (?:it|that|them|up)|gave it up|i no longer|no longer|not anymore|any ?more|when i was (?:young|a kid|little|a child|a teenager|in school)"
    r"|back in the day|as a (?:kid|child|teenager)|i quit|i stopped|i'?ve stopped|years ago)\b"
    r"|以前|曾经|小时候|不再|已经不|早就不|过去|年轻时|那时候",
    re.I,
)
NEGATION = re.compile(r"\b(?:not|never|no|don'?t|doesn'?t|didn'?t|won'?t|can'?t|isn'?t|aren'?t|wasn'?t|nor)\b|不|没|别|从不|从来不|并非", re.I)
# Markers of pasted, quoted or injected text: nothing after them speaks for the user.
PASTE_LEAD = re.compile(
    r"(?:\b(?:here(?:'s| is) (?:an?|the|this|some)\b[^:\n]{0,60}|i found (?:this|an?)\b[^:\n]{0,60}|copied from\b[^:\n]{0,60}"
    r"|(?:an? )?(?:article|post|forum|email|message|thread|comment|text|snippet)\b[^:\n]{0,40}(?:says|said|reads|wrote)"
    r"|quote|quoting|forwarded message|pasting|pasted|from (?:a|the|an) (?:forum|website|article|blog|post|email|book))\s*[:：]"
    r"|(?:转发|复制|粘贴|摘自|引用|网上看到|文章说|帖子说|有人说|别人写)[^：:\n]{0,20}[：:])",
    re.I,
)
INJECTION = re.compile(
    r"<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>|</?s>|</?context>|</?system>|\[system\]|\[assistant\]|^\s*(?:system|assistant)\s*[:：]"
    r"|\b(?:ignore|disregard|forget|override) (?:all |any |the )?(?:(?:previous|prior|above|earlier|preceding|your|system)\s+)+"
    r"(?:instructions?|rules?|prompts?|messages?|directions?)\b|\b(?:disregard|ignore) the rules\b"
    r"|\b(?:new|updated) (?:system )?instructions?\s*[:：]|\badd (?:this )?to your (?:persona|memory|instructions|system prompt)\b"
    r"|\bstore this\b|\byou are now\b|\bact as (?:an? )?(?:unrestricted|jailbroken|dan)\b|\bsystem prompt\b"
    r"|\bsend (?:the user'?s |my |all |your )?(?:memory|memories|memory files|files|data) to\b"
    r"|忽略(?:之前|以上|前面)?(?:的)?(?:所有)?(?:指令|规则|说明)|系统提示|你现在是",
    re.I | re.M,
)
_INSTRUCTION_WORDS = re.compile(
    r"\b(?:ignore|disregard|instructions?|previous|system|prompt|assistant|override|execute|jailbreak|rules?|obey|delete|admin)\b|指令|系统|忽略",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?。！？]\s*|\n+")


def hedged(text: str) -> bool:
    """Uncertain ("I think I might", "maybe", "我好像"), unless it keeps an explicit "(unsure)" mark."""
    return bool(HEDGE.search(text)) and not UNSURE_MARK.search(text)


def sarcastic(text: str) -> bool:
    return bool(SARCASM.search(text))


def hypothetical(text: str) -> bool:
    return bool(HYPOTHETICAL.search(text))


def past_habit(text: str) -> bool:
    return bool(PAST.search(text))


def injected(text: str) -> bool:
    """Chat-template tokens, `<context>`/[system] markers or instructions to the model in disguise."""
    return bool(INJECTION.search(text))


def name_is_instruction(name: str) -> bool:
    """A "name" or place that is really an instruction ("Ignore All Previous Instructions")."""
    return bool(_INSTRUCTION_WORDS.search(name)) or injected(name)


def paste_start(text: str) -> int | None:
    """Where pasted or quoted material begins in a message ("Here is an article I found: ..."), if any."""
    match = PASTE_LEAD.search(text)
    if match:
        return match.start()
    injected_at = INJECTION.search(text)
    return injected_at.start() if injected_at else None


def own_part(text: str) -> str:
    """The part of a message the user says in their own voice: up to any paste or injection marker."""
    start = paste_start(text)
    return text if start is None else text[:start]


def direct_request(text: str) -> bool:
    """The user's own request, not a paste: no paste/injection markers and at most a few sentences."""
    if paste_start(text) is not None:
        return False
    return len([s for s in _SENTENCE_END.split(text) if s.strip()]) <= 4


_WORDS = re.compile(r"[^\W\d_]{3,}|[" + HAN + r"]")
_SPLIT = re.compile(r"(?<=[.!?。！？;；])\s*|\n+")
_OTHER = re.compile(
    r"^(?:(?i:my|our) (?!(?:own|self|name|job|home|favou?rite|life|day|birthday)\b)(?P<rel>best friend|[a-z]+)\b(?: (?P<name>[A-Z][\w'-]+))?(?! and (?:I|me)\b)"
    r"|(?P<pron>(?i:he|she|they|his|her|their))\b|(?P<cap>(?!I\b)[A-Z][a-z]+) (?:is|was|has|likes|loves|lives|works|told)\b)",
)
_ZH_OTHER = re.compile(r"^我(?:的)?(?P<rel>妻子|老婆|丈夫|老公|女儿|儿子|姐姐|妹妹|哥哥|弟弟|妈妈|母亲|爸爸|父亲|男朋友|女朋友|老板|朋友|同事|邻居|室友|同学)|^(?:他|她|他们)")


def grounding_sentence(fact: str, text: str) -> str:
    """The sentence of `text` that shares the most words with `fact` (where a model's fact came from)."""
    wanted = {w.casefold() for w in _WORDS.findall(fact)}
    best, score = "", -1
    for sentence in _SPLIT.split(text):
        found = len(wanted & {w.casefold() for w in _WORDS.findall(sentence)})
        if found > score:
            best, score = sentence, found
    return best


def doubt(fact: str, text: str) -> str | None:
    """Why the sentence a fact comes from does not state it about the user, or None."""
    sentence = grounding_sentence(fact, text).strip()
    if hedged(sentence):
        return "the user was not sure"
    if sarcastic(sentence) or sarcastic(text):
        return "the user was being sarcastic"
    if hypothetical(sentence):
        return "the user was imagining or wishing, not stating a fact"
    if past_habit(sentence) and not past_habit(fact):
        return "the user spoke of the past"
    if sentence.endswith(("?", "？")):
        return "the user asked, not stated"
    other = _OTHER.match(sentence) or _ZH_OTHER.match(sentence)
    if other:
        names = [g for g in other.groups() if g]
        if not any(w.casefold() in fact.casefold() for n in names for w in n.split()):
            return f"it is about {' '.join(names)}, not the user"
    return None
