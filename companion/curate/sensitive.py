"""The one sensitive-data detector: secrets (never stored) and contact data (stored only on request).

The write guard (`find_sensitive`, `find_contact`) and the export redactor
(`portability/redact.py`) both call `scan`, so they cannot disagree.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Callable

import phonenumbers

from companion.curate.recovery import recovery_phrases
from companion.memory.lang import HAN

SECRET_KINDS = ("secret", "card", "iban", "ssn", "recovery")
CONTACT_KINDS = ("email", "phone", "address", "id")
LABELS = {
    "secret": "a password, key or token",
    "recovery": "a wallet recovery phrase",
    "card": "a card number",
    "iban": "an IBAN",
    "ssn": "a social security number",
    "email": "an email address",
    "phone": "a phone number",
    "address": "a street address",
    "id": "an ID or passport number",
}


@dataclass(frozen=True)
class Finding:
    """One sensitive value: `text[start:end]` is what a redactor masks (a label before it stays)."""

    kind: str
    start: int
    end: int

    @property
    def label(self) -> str:
        return LABELS[self.kind]

    @property
    def is_secret(self) -> bool:
        return self.kind in SECRET_KINDS


_PRIVATE_KEY = re.compile(
    r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)",
    re.DOTALL,
)
_TOKEN = re.compile(
    r"(?<![\w-])(?:sk-(?:proj-|ant-(?:api\d\d-)?|svcacct-)?[A-Za-z0-9_-]{16,}|(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}"
    r"|eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})",
    re.ASCII,
)
_URL_CREDENTIALS = re.compile(r"\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@]+:(?P<v>[^\s@/]+)@", re.I)
_BEARER = re.compile(r"\b(?:bearer|authorization:?)\s+(?P<v>[A-Za-z0-9._~+/=-]{12,})", re.I)
_NOT_VALUE_WORDS = (
    r"pad|reset|manager|managers|protected|required|strength|policy|field|hint|changed?|count|expired?|and|or|the|a|an|my"
    r"|too|very|not|strong|weak|secure|safe|long|short|wrong|correct|incorrect|still|now|easy|hard|same|different|new|old"
    r"|somewhere|written|saved|stored|there|here|for|with|in|on|at|to|of|is|was|also|just|really|quite|so|again|free"
)
# A label, an optional "for home" / "of the router", a link word, then the value.
_SECRET_WORD = (
    r"pass(?:word|wd|phrase|code)?|pwd|pw|pin(?:\s?code)?|cvv|cvc|csc|security code|api[_ -]?key|secret(?:[_ -]?(?:access[_ -]?)?key)?"
    r"|access[_ -]?key|access[_ -]?token|auth[_ -]?token|refresh[_ -]?token|client[_ -]?secret|private[_ -]?key|token"
    r"|passwort|kennwort|mot de passe|mdp|contrase(?:ñ|n)a|clave|senha|wachtwoord|parola d'ordine|lösenord|salasana"
    r"|has(?:ł|l)o|пароль|パスワード|비밀번호"
    r"|(?:door|gate|alarm|access|entry|safe|locker|garage|lock|building|wifi|wi-fi|keypad|vault|lockbox)(?:'s)? ?(?:code|pin|passcode)"
    r"|(?:locker|lock|safe|padlock|bike lock|door) combination"
    r"|card number|account number|bank account"
)
_LABELLED = re.compile(
    r"(?i)(?<![\w])(?:" + _SECRET_WORD + r")(?![\w])(?:\s+(?:for|of|to|on|at|de|du|für|von|del|da)\s+(?:(?:my|the|our|mon|ma|mein|meine|mi|la|le)\s+)?(?!(?:is|was|ist|est|es)\b)[\w'-]{1,20}){0,2}"
    r"\s*(?P<link>\bis\b|\bwas\b|=|:|：|\bist\b|\best\b|\bes\b|\bé\b|\blautet\b|→)?\s*(?:[\"'`«“])?(?P<v>(?![\[=:：])(?!(?:" + _NOT_VALUE_WORDS + r")(?![\w-]))[^\s\"'`»”,;，。；、]{3,})"
)
_ZH_LABELLED = re.compile(r"(?:密码|密碼|口令|密钥|验证码|暗码|支付密码|安全码|门禁码|开门码|开锁码|门锁码|门码|保险箱码|保险柜码|报警码|警报码|卡号|银行卡号?|信用卡号?|账号)\s*(?P<link>是|为|:|：|=)?\s*(?P<v>(?![\[=:：])[^\s\u3000,;，。；、]{3,})")
# "my password is correct horse battery staple": words after the label, up to the first function word.
_PASSPHRASE = re.compile(
    r"(?i)(?:(?<![\w])(?:pass(?:word|wd|phrase)?|pwd|pw)(?![\w])|口令|密码|密碼)"
    r"(?:\s+(?:for|of|to|on|at)\s+(?:(?:my|the|our)\s+)?[\w'-]{1,20})?\s*(?:\bis\b|\bwas\b|=|:|：|是|为)\s*[\"'`«“]?"
    r"(?P<v>[^\W\d_]{2,}(?:[ \t]+[^\W\d_]{2,}){2,9})"
)
_STOP_WORDS = frozenset(
    "and or but the a an my your his her our their for with without in on at to of from by is was are be been because "
    "so if it its this that than then when which who not no now very too also just still".split()
)
_NOT_VALUE = frozenset(_NOT_VALUE_WORDS.split("|"))
_PASSPHRASE_WORDS = 3  # at least this many words that are not a remark about the password
# "the code for the front door is 4821"
_ACCESS_CODE = re.compile(
    r"(?i)\b(?:code|pin|passcode|combination)\s+(?:for|of|to|on|at)\s+(?:(?:the|my|our|a)\s+)?(?:[\w'-]+\s+){0,2}?"
    r"(?:doors?|gate|alarm|safe|locker|garage|lock|padlock|building|house|flat|apartment|entrance|keypad|vault|lockbox)"
    r"\s*(?:\bis\b|\bwas\b|=|:|：)?\s*[\"'`«“]?(?P<v>\d[\d#* -]{1,14}[\d#*])(?![\w])"
)
_AWS_SECRET = re.compile(r"(?i)aws_?secret_?access_?key\s*[=:]\s*(?P<v>[A-Za-z0-9/+=]{20,})")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
_EMAIL = re.compile(r"(?<![\w.+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b", re.ASCII)
_IBAN = re.compile(r"(?i)(?<![\w])[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,3})?(?![\w])", re.ASCII)
_CARD = re.compile(r"(?<![\w#+-])\d(?:[ .-]?\d){12,18}(?![\w#-])", re.ASCII)
_DATE_LIKE = re.compile(r"\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}")
_STREET = (
    r"street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|way|court|ct|place|pl|square|sq|terrace|close|crescent"
    r"|straße|strasse|str|gasse|weg|platz|allee|calle|via|viale|corso"
)
_ADDRESS = re.compile(
    r"(?<![\w#])\d{1,5}[a-zA-Z]?,?\s+(?:[A-Z][\w'.-]*\s+){1,4}(?i:" + _STREET + r")\b\.?"
    r"|(?i:\b(?:rue|avenue|boulevard|chemin|place|calle|avenida|via|piazza)\s+(?:de\s+la\s+|de\s+|du\s+|des\s+|del\s+)?[\w'-]+(?:\s+[\w'-]+)?,?\s+\d{1,5}\b)"
    r"|(?<!\w)[A-Z][\w-]*(?:" + r"straße|strasse|str\.|gasse|weg|platz|allee" + r")\s+\d{1,5}[a-z]?\b"
    r"|\d{1,5}(?:,\s*|\s+)(?:rue|avenue|boulevard|chemin|place)\s+(?:de\s+la\s+|de\s+|du\s+|des\s+)?[\w'-]+"
    r"|[" + HAN + r"]{1,12}(?:路|街|道|巷|弄)\d{1,5}(?:号|號)(?:[\d\-]+(?:室|楼|栋))?"
)
_ADDRESS_LABEL = re.compile(r"(?i)\b(?:home address|my address|address)\s*(?:is|:|：)\s*(?P<v>[^\n.;]{6,80})|(?:地址|住址)\s*(?:是|为|:|：)\s*(?P<zh>[^\n。；，,]{4,40})")
_ID_LABEL = re.compile(
    r"(?i)\b(?:passport|id card|identity card|national id|id|personalausweis|driver'?s licen[cs]e|license)\s*(?:number|no\.?|#)?\s*(?:is|:|：)?\s*"
    r"(?P<v>(?=[A-Z0-9-]*\d)[A-Z0-9][A-Z0-9-]{5,19})\b"
    r"|(?:护照|身份证|证件)(?:号码?|号)?\s*(?:是|为|:|：)?\s*(?P<zh>[A-Z0-9]{6,20})"
)
_CN_ID = re.compile(r"(?<!\d)[1-9]\d{5}(?:19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx](?!\d)")
_LONG_TOKEN = re.compile(r"(?<![\w/+=.-])[A-Za-z0-9_+/=-]{24,}(?![\w/+=-])", re.ASCII)
_PHONE_HINT = re.compile(r"\d[\d ().+-]{5,}\d")
PHONE_REGIONS = ("US", "GB", "FR", "DE", "CN", "ES", "IT", "NL", "IN", "JP", "AU", "BR", "CH")
ENTROPY_BITS = 3.8


def luhn_ok(digits: str) -> bool:
    """The card-number checksum (one implementation for the whole app)."""
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_ok(candidate: str) -> bool:
    compact = candidate.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    try:
        number = int("".join(str(int(ch, 36)) for ch in rearranged))
    except ValueError:
        return False
    return number % 97 == 1


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def _random_token(candidate: str) -> bool:
    """A long run mixing upper, lower and digits with high entropy: a key nobody would type."""
    core = candidate.strip("=-_")
    classes = sum(bool(re.search(p, core)) for p in (r"[a-z]", r"[A-Z]", r"\d"))
    return len(core) >= 24 and classes == 3 and entropy(core) >= ENTROPY_BITS


def _card_ok(candidate: str) -> bool:
    digits = re.sub(r"\D", "", candidate)
    return 13 <= len(digits) <= 19 and not _DATE_LIKE.search(candidate) and luhn_ok(digits)


def _phones(text: str) -> list[tuple[int, int]]:
    if not _PHONE_HINT.search(text):
        return []
    spans: set[tuple[int, int]] = set()
    for region in PHONE_REGIONS:
        for match in phonenumbers.PhoneNumberMatcher(text, region, leniency=phonenumbers.Leniency.VALID):
            spans.add((match.start, match.end))
    return sorted(spans)


def scan(text: str) -> list[Finding]:
    """Every sensitive value in `text`, in order, without overlaps (the first kind found wins)."""
    found: list[Finding] = []

    def add(kind: str, start: int, end: int) -> None:
        if start < end and not any(f.start < end and start < f.end for f in found):
            found.append(Finding(kind, start, end))

    def each(pattern: re.Pattern[str], kind: str, ok: Callable[[re.Match[str], str], bool] | None = None) -> None:
        groups: list[str | int] = [g for g in ("v", "zh") if g in pattern.groupindex] or [0]
        for match in pattern.finditer(text):
            for group in groups:
                value = match.group(group)
                if value is None or (ok is not None and not ok(match, value)):
                    continue
                # a label that is part of a value already found ("... obscure pass" ending a recovery
                # phrase) labels nothing: the words after it are not a password
                if group != 0 and any(f.start < match.start(group) and match.start() < f.end for f in found):
                    continue
                add(kind, match.start(group), match.end(group))

    each(_PRIVATE_KEY, "secret")
    each(_TOKEN, "secret")
    each(_AWS_SECRET, "secret")
    each(_URL_CREDENTIALS, "secret")
    each(_BEARER, "secret", lambda _m, v: any(c.isdigit() for c in v) or "." in v)
    for start, end in recovery_phrases(text):
        add("recovery", start, end)
    for start, end in _passphrases(text):
        add("secret", start, end)
    each(_ACCESS_CODE, "secret")
    each(_ZH_LABELLED, "secret", _zh_value)
    each(_LABELLED, "secret", _labelled_value)
    each(_SSN, "ssn")
    each(_EMAIL, "email")
    each(_IBAN, "iban", lambda _m, v: iban_ok(v))
    each(_CN_ID, "id")
    each(_ID_LABEL, "id")
    each(_CARD, "card", lambda _m, v: _card_ok(v))
    each(_LONG_TOKEN, "secret", lambda _m, v: _random_token(v))
    for start, end in _phones(text):
        add("phone", start, end)
    each(_ADDRESS_LABEL, "address")
    each(_ADDRESS, "address")
    return sorted(found, key=lambda f: f.start)


def _zh_value(match: re.Match[str], value: str) -> bool:
    """After 密码是/：any value; after a bare 密码 only one with a digit or a Latin letter (密码太短了 is a remark)."""
    return bool(match.group("link")) or any(c.isascii() and c.isalnum() for c in value)


def _passphrases(text: str) -> list[tuple[int, int]]:
    """Spans of passphrases of several words after a password label (what follows a function word is prose)."""
    spans = []
    for match in _PASSPHRASE.finditer(text):
        words = list(re.finditer(r"\S+", match.group("v")))
        kept = []
        for word in words:
            if word.group(0).lower() in _STOP_WORDS:
                break
            kept.append(word)
        if sum(1 for w in kept if w.group(0).lower() not in _NOT_VALUE) >= _PASSPHRASE_WORDS:
            base = match.start("v")
            spans.append((base + kept[0].start(), base + kept[-1].end()))
    return spans


def _labelled_value(match: re.Match[str], value: str) -> bool:
    """After "password is": any value but an ordinary word ("the password is too short"); after a bare
    label ("token count", "password manager") only something that looks generated."""
    if match.group("link"):
        return True
    return any(c.isdigit() or not c.isalpha() for c in value) or (len(value) >= 6 and not value.islower())


MASKS = {"email": "[email]", "phone": "[phone]", "card": "[card]", "iban": "[iban]", "secret": "[secret]", "recovery": "[secret]",
         "ssn": "[id]", "id": "[id]", "address": "[address]"}


def mask(text: str, found: Callable[[str], None] | None = None, *, keep_contacts: bool = False) -> str:
    """`text` with every finding replaced by its mask ("[email]"); a label before it stays
    ("password: [secret]"). `found` is told the kind of each one. `keep_contacts`: mask only secrets."""
    parts: list[str] = []
    end = 0
    for finding in scan(text):
        if keep_contacts and not finding.is_secret:
            continue
        parts.append(text[end : finding.start])
        parts.append(MASKS[finding.kind])
        if found is not None:
            found(finding.kind)
        end = finding.end
    parts.append(text[end:])
    return "".join(parts)


def flagged(text: str) -> bool:
    """Anything sensitive at all: such a line is never copied into a digest."""
    return bool(scan(text))


def find_sensitive(text: str) -> str | None:
    """What kind of secret `text` holds ("a card number"), or None: never stored, even on request."""
    for finding in scan(text):
        if finding.is_secret:
            return finding.label
    return None


def find_contact(text: str) -> str | None:
    """What kind of contact data or identifier `text` holds, or None: stored only on an explicit request."""
    for finding in scan(text):
        if not finding.is_secret:
            return finding.label
    return None
