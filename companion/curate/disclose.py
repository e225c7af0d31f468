"""What a clause says about the speaker, read by its structure rather than by a list of phrasings.

A self-disclosure has a first-person subject (or, in Chinese, a clause without a subject inside the
user's statement about themselves) and a lasting predicate: a copula or "have" with a noun phrase,
a place the user is based in, or a verb in the simple present, habitual ("I teach piano", "我平时喜欢
下围棋"). Cognitive, speech and wanting verbs ("I think", "I need", "我觉得", "我想") and passing states
("I'm tired", "我好累") are not facts. The specific rules of `extract` run first; this hears the rest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from companion.curate import listen, slots
from companion.memory.lang import HAN, HAN_CHAR

_CAP = 90  # an entry is one short sentence: longer captures are cut at a whole word


@dataclass(frozen=True)
class Heard:
    file: str
    section: str
    text: str
    slot: str = ""


# -- English -------------------------------------------------------------------------------------

_LEAD = re.compile(
    r"^(?:(?:so|and|also|well|honestly|btw|by the way|anyway|anyways|oh|ok|okay|haha|lol|yeah|yes|plus|basically|fyi|"
    r"for context|for the record|fun fact|random thought|quick one|but|though|i mean|because|since|as|that|"
    r"(?:every|each) (?:\w+ ){0,2}\w+|on (?:\w+ ){0,1}\w+days?|at (?:the )?weekends?|in the (?:mornings|evenings)|"
    r"these days|nowadays|most days|usually|normally|mostly)\b[,:!]?\s*)*$",
    re.I,
)
_SUBJECT = re.compile(r"(?:^|(?<=[\s,:;(\-–—]))(?P<s>I|i)(?P<c>'m|’m| am|m|'ve|’ve| have)?\s+(?=\S)")
_NOT_ASSERTED = re.compile(r"\b(?:if|when|whenever|unless|whether|until|once|before|after|what|how|why|where|who|which|whatever|"
                           r"said|says|told|think|thought|believe|feel|felt|hope|wish|pretend|imagine|dreamt|dreamed|guess|suppose)\b[^,]*$", re.I)
# verbs that say what the user thinks, says, wants or does now, not who they are
_NOT_LASTING = set(
    "think thought guess suppose mean meant know knew wonder hope wish want wanted need needed feel felt see saw agree understand "
    "remember forget forgot believe doubt say said ask asked tell told try tried can could would will should must might may shall "
    "did had was were am got get gotta gonna wanna just really also still hear heard realise realize noticed notice found find "
    "bet promise swear appreciate apologise apologize hate_it love_it am'm hadn't haven't cannot can't wouldn't couldn't "
    "mean bought booked went came left lost won made took gave ate drank saw met called sent wrote read spent tried started "
    "finished decided moved quit stopped used keep kept let look looked sound sounds seem seemed care mind miss missed owe "
    "am're totally completely definitely probably maybe kinda sorta literally seriously actually only even already".split()
)
# verbs whose simple present may tell a single event ("I go to the shop"); "I eat fish", "I walk to work" are habits
_NEEDS_HABIT = {"go", "do", "make", "take", "get", "come", "visit", "buy", "check", "call", "meet", "see", "put", "bring", "send"}
_LIKE = {"love": "Likes", "like": "Likes", "adore": "Likes", "enjoy": "Likes", "hate": "Dislikes", "dislike": "Dislikes", "prefer": "Prefers"}
_ADVERB = re.compile(r"^(?:also|still|now|mostly|usually|always|often|basically|generally|normally|currently|sometimes|regularly|"
                     r"even|kinda|totally|\w+ly)$", re.I)
_UNCLEAR_OBJECT = re.compile(r"^(?:you|u|it|that|this|these|those|them|him|her|so|to (?:talk|ask|say|know|be)|if|what|how|why|when|about (?:it|that|this))\b", re.I)
_STOP = re.compile(
    r"(?:,|;|\s+-|\s+–)?\s+(?:but|because|since|so|although|though|and then|which|by the way|btw|anyway|haha|lol|in case|if|when|"
    r"even though|whereas|while|so that|which means|and (?:it|that)(?:'s| is)|it's|that's|any (?:tips|ideas|advice)|can you|could you|"
    r"do you|what do|what's|what should|is that|is it|how do|and honestly)\b.*$|,\s*(?:and|which|so|but|it|that|they|he|she|we|you)\b.*$"
    r"|\s*[,;:]\s*$|\s*[(\[].*$",
    re.I,
)
_TAIL = re.compile(r"\s+(?:now|these days|nowadays|at the moment|right now|currently|for now|finally|anymore|too|as well|lol|haha|tbh|btw)$", re.I)
_DEMONYM = re.compile(r"^(?:English|British|French|German|Chinese|Japanese|American|Canadian|Irish|Scottish|Welsh|Spanish|Italian|Dutch|"
                      r"Polish|Indian|Korean|Brazilian|Mexican|Australian|Swiss|Swedish|Norwegian|Danish|Finnish|Russian|Turkish|Greek|"
                      r"Portuguese|Austrian|Belgian|Muslim|Christian|Jewish|Catholic|Buddhist|Hindu|Sikh|Atheist|Vietnamese|Thai)$")
_NOT_NAME = re.compile(r"^(?:OK|Okay|Fine|Good|Back|Here|Done|Sorry|Sure|So|Just|Not|Also|Still|Home|Off|Out|In|On|Up|Down|Alright|Ready|Busy|Free|Tired)$")
_LASTING_ADJ = re.compile(
    r"^(?:(?:left|right)-?handed|(?:lactose|gluten) ?intolerant|\w+-intolerant|diabetic|colou?r-?blind|short-?sighted|near-?sighted|"
    r"long-?sighted|deaf|celiac|coeliac|asthmatic|autistic|dyslexic|introverted|extroverted|an introvert|an extrovert|pregnant|"
    r"vegan|vegetarian|pescatarian|self-employed|unemployed|bilingual|trilingual|a morning person|a night owl|an early bird)\b", re.I)
_TRANSIENT_NOUN = re.compile(
    r"^(?:bit|little|lot|mess|wreck|question|idea|meeting|problem|headache|cold|flu|fever|doubt|feeling|appointment|exam|test|interview|"
    r"call|date|deadline|chance|moment|minute|sec|second|look|go|break|day|night|week|weekend|plan|suggestion|favou?r|request|issue|"
    r"bug|error|quick|few|couple|sec|tiny|huge|big|real|good|bad|great|hard|long|busy|crazy|rough|sucker|fan|thing|follow-up|hunch|"
    r"presentation|deadline|report|trip|flight|train|cough|hangover|migraine|lot)\b",
    re.I,
)
_OCCUPATION = re.compile(r"(?:er|or|ist|ian|ant|ent|ic|man|woman|wife|dad|mum|mom|nurse|chef|cook|barista|medic|clerk|vet|pilot|"
                         r"surgeon|agent|assistant|intern|tutor|coach|guide|maid|nanny|freelancer|student|apprentice|trainee)s?\b")
_REL_NOUN = re.compile(r"^(?:wife|husband|partner|girlfriend|boyfriend|son|daughter|sister|brother|mother|mom|mum|father|dad|friend|boss|"
                       r"cat|dog|kitten|puppy|parrot|rabbit|hamster|horse|bird|fish|turtle|snake|grandmother|grandma|grandfather|grandpa|"
                       r"aunt|uncle|cousin|niece|nephew|fiance|fiancee|fiancé|fiancée|roommate|flatmate|colleague|neighbou?r|kid|child|baby)s?$", re.I)
_COUNT = r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|some|several|many)"
_PLACE = r"(?P<x>[A-Z][\w'.-]*(?:[ -](?:[A-Z][\w'.-]*|upon|on|de|la|am|im|in|of))*)"
_WHERE = re.compile(r"^(?:still |now |currently |living |based |settled |mostly |back )*(?:in|based in|living in|settled in) " + _PLACE
                    + r"(?P<rest>.*)$")
_PASSING = re.compile(r"\b(?:this|next|for the|for a|on holiday|on vacation|on a trip|visiting|for work|today|tonight|tomorrow|"
                      r"at the moment|until|till|for (?:a|the|two|three|\d+) (?:days?|weeks?|nights?))\b", re.I)


def whole(text: str, cap: int = _CAP) -> str:
    """`text` cut at a whole word (CJK: a whole clause) when longer than `cap`, with no trailing punctuation."""
    text = " ".join(text.split()).strip(" .,;:!?-–—")
    if len(text) <= cap:
        return text
    cut = text[:cap]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).strip(" .,;:!?-–—")


def third_person(text: str) -> str:
    """The user's words about themselves, as a note about them: "my grandma" -> "their grandma"."""
    swaps = {"my": "their", "mine": "theirs", "me": "them", "myself": "themselves", "i": "they", "i'm": "they're",
             "our": "their", "ours": "theirs", "us": "them", "we": "they", "we're": "they're", "i've": "they've"}
    return re.sub(r"\b(?:my|mine|me|myself|I|I'm|our|ours|us|we|we're|I've)\b",
                  lambda m: swaps[m.group(0).lower()], text)


def third_verb(verb: str) -> str:
    """'drink' -> 'drinks', 'teach' -> 'teaches', 'fly' -> 'flies' (the user, in the third person)."""
    verb = verb.lower()
    if verb in ("have", "has"):
        return "has"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


def _value(rest: str) -> str:
    rest = _STOP.sub("", rest.strip())
    for _ in range(2):
        rest = _TAIL.sub("", rest.strip(" .,;:!?"))
    return whole(third_person(rest))


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _copula(rest: str, lead: str) -> list[Heard]:
    """After "I'm": a name, an age, a place, a role or a lasting trait."""
    where = _WHERE.match(rest)
    if where and not _PASSING.search(where.group("rest")):
        return [Heard("USER.md", "Profile", f"Lives in {_value(where.group('x'))}", slots.HOME)]
    age = re.match(r"^(?P<n>\d{1,2}|1[01]\d)(?: years? old| yrs? old| y/?o)?(?=\s*(?:$|[,.!;]|by the way|btw|now|and|so|this year|in case))", rest)
    if age:
        return [Heard("USER.md", "Profile", f"Is {age.group('n')} years old", slots.AGE)]
    name = re.match(r"^(?P<x>[A-Z][a-z'’-]{1,20}(?: [A-Z][a-z'’-]{1,20})?)(?=\s*(?:$|[,.!;—–-]|and\b|by the way|btw|here|from\b|nice\b))", rest)
    if name:
        value = name.group("x")
        if _DEMONYM.match(value):
            return [Heard("USER.md", "Profile", f"Is {value}")]
        if not _NOT_NAME.match(value.split()[0]):
            return [Heard("USER.md", "Profile", f"Name: {value}", slots.NAME)]
        return []
    doing = re.match(r"^(?:now |mostly |currently )?(?:doing|running|working in) (?P<x>(?!(?:it|that|this|fine|ok|okay|well|good|great|better|badly)\b).+)$", rest, re.I)
    if doing and (re.search(r"\bnow\b|these days", rest) or lead):
        return [Heard("USER.md", "Profile", f"Does {_value(doing.group('x'))}", slots.JOB)]
    trait = _LASTING_ADJ.match(rest)
    if trait:
        return [Heard("USER.md", "Profile", f"Is {_value(rest)}")]
    role = re.match(r"^(?:(?:now|still|currently|also|actually|basically) )*(?P<a>an?) (?P<np>.+)$", rest, re.I)
    if role and not _TRANSIENT_NOUN.match(role.group("np")):
        value = _value(role.group("np"))
        head = re.split(r"\s+(?:at|in|for|with|from|of|on)\s+", value, maxsplit=1)[0]
        if not value or len(value.split()) > 8:
            return []
        job = _OCCUPATION.search(head.split()[-1]) is not None
        article = "an" if value[:1].lower() in "aeiou" else "a"
        return [Heard("USER.md", "Profile", f"Is {article} {value}", slots.JOB if job else "")]
    return []


def _have(rest: str) -> list[Heard]:
    named = re.match(r"^(?:" + _COUNT + r" )?(?:[\w-]+ )?(?P<r>[a-z]+) (?:named|called) (?P<n>[A-Z][\w'-]{1,30})", rest)
    if named and _REL_NOUN.match(named.group("r")):
        return [Heard("USER.md", "Profile", f"{_cap(named.group('r').lower())}: {named.group('n')}")]
    thing = re.match(r"^(?P<np>" + _COUNT + r" (?P<head>[\w-]+).*)$", rest, re.I)
    if not thing or thing.group("np").lower().startswith(("a lot", "some time", "a few minutes")):
        return []
    words = thing.group("np").split()
    if any(_TRANSIENT_NOUN.match(w) for w in words[1:3]) or re.search(r"\b(?:to|on|tomorrow|today|tonight|later)\b", thing.group("np")):
        return []
    return [Heard("USER.md", "Profile", f"Has {_value(thing.group('np'))}")]


def _present(words: list[str], lead: str, negated: str = "") -> list[Heard]:
    """A verb in the simple present: "teach piano" -> "Teaches piano", "mostly cycle to work"."""
    adverbs: list[str] = []
    while len(words) > 1 and _ADVERB.match(words[0]) and words[0].lower() not in ("fly", "apply", "rely", "reply", "supply"):
        adverbs.append(words.pop(0))
    if not words:
        return []
    verb = re.sub(r"[^\w'-]", "", words[0]).lower()
    rest = " ".join(words[1:])
    ends = verb.endswith("ed") and verb not in ("need", "feed", "bleed", "breed", "shred", "wed", "speed", "shed") or (
        verb.endswith("ing") and verb not in ("sing", "bring", "ring", "swing", "sting", "cling", "string", "spring", "wring", "fling"))
    if not verb.isalpha() or verb in _NOT_LASTING or ends:
        return []
    if not rest or _UNCLEAR_OBJECT.match(rest) or re.match(r"^(?:for|with it|on it)\b", rest) and verb in ("live", "work", "go"):
        return []
    habit = listen.HABIT.search(lead + " " + rest) or any(listen.HABIT.search(a) for a in adverbs)
    if verb in _NEEDS_HABIT and not habit and not negated:
        return []
    value = _value(rest)
    if not value:
        return []
    when = _value(lead) if lead and listen.HABIT.search(lead) else ""
    when = when[:1].lower() + when[1:]
    tail = f" {when}" if when else ""
    if verb in _LIKE and not negated:
        return [Heard("USER.md", "Preferences", f"{_LIKE[verb]} {value}{tail}")]
    kept = [a.lower() for a in adverbs if a.lower() in ("mostly", "usually", "always", "often", "sometimes", "regularly", "never")]
    if negated == "never":
        return [Heard("USER.md", "Preferences", f"Never {third_verb(verb)} {value}{tail}")]
    if negated:
        return [Heard("USER.md", "Preferences", f"Does not {verb} {value}{tail}")]
    text = " ".join([*kept, third_verb(verb), value]) + tail
    return [Heard("USER.md", "Profile", _cap(text))]


_ITEM_VERB = re.compile(r"^(?:live|work|have|love|like|hate|speak|play|teach|run|own|study|cook|sing|prefer|drive|ride|walk|swim|do)\b", re.I)


def self_item(item: str) -> str:
    """An item of a list about the user as a clause with its subject: "live in Leeds" -> "I live in Leeds",
    "two kids" -> "I have two kids", "nurse" -> "I'm a nurse"; anything else as it is."""
    item = item.strip(" ,;.")
    if re.match(r"^(?:I|I'm|I've|my)\b", item):
        return item
    if _ITEM_VERB.match(item):
        return f"I {item}"
    if re.match(r"^" + _COUNT + r"\s+\w", item, re.I):
        return f"I have {item}"
    if re.fullmatch(r"[a-z][\w-]*(?: [a-z][\w-]*)?", item) and _OCCUPATION.search(item.split()[-1]):
        return f"I'm a {item}"
    return item


def english(clause: str) -> list[Heard]:
    """What an English clause says about the user, by its structure."""
    listed = re.match(r"^(?:[\w'-]+ ){1,3}(?:I|i) (?P<v>[a-z]+)\s*[:：]\s*(?P<x>.{2,})$", clause)
    if listed:  # "Languages I speak: English, Urdu", "Things I love: hiking"
        return _present([listed.group("v"), *listed.group("x").split()], "")
    for subject in _SUBJECT.finditer(clause):
        lead = clause[: subject.start()].strip()
        if not _LEAD.match(lead) or _NOT_ASSERTED.search(lead):
            if re.search(r"\bthat$", lead, re.I) and not _NOT_ASSERTED.search(lead[:-4]):
                lead = ""
            else:
                continue
        rest = clause[subject.end():].strip()
        contraction = (subject.group("c") or "").strip().lower().replace("’", "'")
        if contraction in ("'m", "am", "m"):
            return _copula(rest, lead)
        if contraction in ("'ve", "have") or rest.lower().startswith(("have ", "have got ", "got ")):
            body = re.sub(r"^(?:have got|have|got) ", "", rest, flags=re.I) if contraction not in ("'ve", "have") else re.sub(r"^got ", "", rest)
            return _have(body)
        neg = re.match(r"^(?:don'?t|do not|never)\s+(?P<r>.+)$", rest, re.I)
        if neg:
            return _present(neg.group("r").split(), lead, "never" if rest.lower().startswith("never") else "not")
        started = re.match(r"^(?:just |recently |finally )?(?:started|began|start) (?:working |work |out )?(?P<p>as|at) (?P<x>.+)$", rest, re.I)
        if started:
            return [Heard("USER.md", "Profile", f"Works {started.group('p').lower()} {_value(started.group('x'))}", slots.JOB)]
        return _present(rest.split(), lead)
    where = re.match(r"^(?:(?:so|and|well|btw|oh|yeah)[, ]+)?(?:we(?:'re| are)) (?P<r>.+)$", clause, re.I)
    if where:
        found = _WHERE.match(where.group("r"))
        if found and not _PASSING.search(found.group("rest")):
            return [Heard("USER.md", "Profile", f"Lives in {_value(found.group('x'))}", slots.HOME)]
    home = re.match(r"^(?i:(?:(?:and|so|but)\s+)?home (?:is|'s) (?:now )?)" + _PLACE, clause)
    if home:
        return [Heard("USER.md", "Profile", f"Lives in {_value(home.group('x'))}", slots.HOME)]
    here = re.match(r"^(?P<x>[A-Z][a-z]{1,20}) here\b(?!\s+(?:is|are|was))", clause)
    if here and not re.match(r"^(?:Same|Nothing|Everything|Anyone|Someone|Right|Over|Back|Out|Up|Down|Hi|Hello|Hey|Help|Me|You|It|This|That|Not)$", here.group("x")):
        return [Heard("USER.md", "Profile", f"Name: {here.group('x')}", slots.NAME)]
    return []


# -- Chinese ---------------------------------------------------------------------------------------

_ZH_ADV = (r"(?:平时|平常|一般|通常|经常|常常|总是|每天|天天|每周[一二三四五六日天]?|每个?(?:周末|月|星期[一二三四五六日天]?|礼拜[一二三四五六日天]?)"
           r"|每晚|每天早上|每天晚上|周末|早上|晚上|下午|中午|也|都|还|又|就|现在|目前|最近|特别|很|非常|超|超级|真的|比较|挺|一直|自己|今年"
           r"|主要|基本上|一般都|偶尔|有时候?|每年)*")
_ZH_LASTING = ("喜欢", "爱吃", "爱喝", "爱看", "爱听", "爱玩", "爱去", "爱", "热爱", "迷上了", "迷上", "讨厌", "会说", "会讲", "会", "戴", "养了",
               "养", "属", "教", "开了", "开", "经营", "近视", "信", "练", "学", "弹", "拉", "收集", "坚持", "擅长", "住", "在学", "吃", "喝")
_ZH_ACTIVITY = ("去", "骑", "跑", "跑步", "打", "踢", "玩", "看", "听", "写", "画", "唱", "跳", "游", "做", "喝", "吃", "用", "穿", "坐", "走", "逛", "陪", "给")
_ZH_NOT = re.compile(r"^(?:觉得|想|想要|要|打算|准备|需要|知道|认为|希望|问|说|刚|刚刚|今天|昨天|明天|正在|在想|不想|好|太|真|有点|快|已经|马上|可能|得|应该|能|可以|没|不|是不是|是说|是在|是觉得|是因为|是真的)")
_ZH_SHOP = re.compile(r"^开(?:了)?(?:一|两)?(?:家|个)?[" + HAN + r"]{0,4}(?:店|公司|馆|厂|工作室|诊所|铺)$")
_ZH_JOB = re.compile(r"(?:" + "|".join(slots._ZH_JOB_ENDS) + r")$")


def chinese(clause: str) -> list[Heard]:
    """What a Chinese clause starting with 我 says about the user, by its structure."""
    match = re.match(r"^(?P<pre>" + _ZH_ADV + r")我(?P<adv>" + _ZH_ADV + r")(?:改|开始|重新|又)?(?P<p>.+)$", clause)
    if not match:
        return []
    adv, pred = match.group("pre") + match.group("adv"), match.group("p").strip(" 。！!～~")
    pred = re.sub(r"(?:了|啦|呢|吧|哦|的|嘛|呀)+$", "", pred) if not pred.endswith("了解") else pred
    if len(pred) < 2 or _ZH_NOT.match(pred):
        return []
    habit = re.sub(r"超级|特别|非常|真的|比较|基本上|主要|一直|现在|目前|最近|自己|今年|很|超|挺|也|都|还|又|就", "", adv) if listen.HABIT.search(adv) else ""
    age = re.match(r"^(?P<n>[0-9]{1,3}|[一二三四五六七八九十]{1,3})岁", pred)
    if age:
        return [Heard("USER.md", "Profile", f"{age.group('n')}岁", slots.AGE)]
    hometown = re.match(r"^(?:的)?老家(?:是|在)(?P<x>[^，。]{1,12})$", pred)
    if hometown:
        return [Heard("USER.md", "Profile", f"老家是{hometown.group('x')}")]
    copula = re.match(r"^是(?:个|一个|一名|一位|名|位)?(?P<x>[^，。]{1,16})$", pred)
    if copula:
        value = copula.group("x")
        if re.search(r"[的了在说想去来要]", value):
            return []
        job = _ZH_JOB.search(value) is not None
        return [Heard("USER.md", "Profile", f"是{value}", slots.JOB if job else "")]
    have = re.match(r"^有(?P<x>(?:一|两|二|三|四|五|六|七|八|九|十|几|[0-9]+)(?:个|只|条|位|辆|匹|套|家|台|头)[^，。]{1,10})$", pred)
    if have:
        if re.search(r"问题|想法|事|疑问|建议|会|课|点|次|小时|分钟", have.group("x")):
            return []
        return [Heard("USER.md", "Profile", f"有{have.group('x')}")]
    work = re.match(r"^在(?P<w>[^，。]{1,14}?)(?P<v>做|当|教)(?P<x>[^，。]{1,12})$", pred)
    if work:
        text = f"在{work.group('w')}{work.group('v')}{work.group('x')}"
        return [Heard("USER.md", "Profile", text, slots.JOB)]
    there = re.match(r"^(?:还|仍然|依然)?在(?P<x>[" + HAN + r"]{2,6})$", pred)
    if there and re.search(r"还|仍|依", adv + pred[:1]):
        return [Heard("USER.md", "Profile", f"住在{there.group('x')}", slots.HOME)]
    if re.match(r"^(?:做|当)[" + HAN + r"]{1,6}$", pred) and _ZH_JOB.search(pred) or _ZH_SHOP.match(pred):
        return [Heard("USER.md", "Profile", pred, slots.JOB)]
    verb = next((v for v in _ZH_LASTING if pred.startswith(v)), None)
    if verb is None:
        verb = next((v for v in _ZH_ACTIVITY if pred.startswith(v)), None)
        if verb is None or not habit:
            return []
    elif verb in ("吃", "喝", "练", "弹", "拉", "开", "开了") and not habit or pred.startswith(("学到", "学会了")):
        return []
    if len(pred) - len(verb) < 1 or re.search(r"[吗呢？?]$", pred):
        return []
    if verb in ("喜欢", "爱", "热爱") and re.match(r"^(?:喜欢|爱|热爱)(?:你|它|这|那|的)", pred):
        return []
    if verb == "属" and len(pred) == 2:  # the Chinese zodiac sign, as a person would note it
        return [Heard("USER.md", "Profile", f"生肖{pred}")]
    section = "Preferences" if verb in ("喜欢", "爱吃", "爱喝", "爱看", "爱听", "爱玩", "爱去", "爱", "热爱", "讨厌", "迷上了", "迷上") else "Profile"
    return [Heard("USER.md", section, whole(habit + pred, 40))]
