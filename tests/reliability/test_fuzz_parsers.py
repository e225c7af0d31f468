"""Property tests: parsers and edit operations never crash with foreign errors and never touch text outside the edited span."""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from companion.agent.tools import ToolExecutor
from companion.errors import AmbiguousMatchError, CompanionError, StorageError
from companion.llm.base import ToolCall
from companion.memory import sections
from companion.memory.daylog import DayLog, read_file
from companion.memory.document import parse_document
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record, valid_text
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.memory.history import Actor

pytestmark = pytest.mark.reliability

# Examples tried per target; bench/reliability_report.py reads this counter.
EXAMPLES: Counter[str] = Counter()
FUZZ = settings(
    max_examples=int(os.environ.get("COMPANION_FUZZ_EXAMPLES", "80")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# Any code point, lone surrogates included (they arrive from pasted text and JSON escapes).
any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=60)
plain_text = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=40)

line = st.one_of(
    st.sampled_from(["# Memory", "## Facts", "## Decisions", "### Detail", "## facts", "```", "~~~", "", "---", "- a fact (2026-11-29#3)"]),
    plain_text.map(lambda t: t.replace("\n", " ")),
    st.sampled_from(["- 喜欢喝茶", "## 事实", "<!-- src: 2026-11-29#17 -->", "#### Deep", "## Facts ##"]),
)
bodies = st.lists(line, max_size=14).map("\n".join) | st.lists(line, max_size=14).map(lambda ls: "\n".join(ls) + "\n")
headings_st = st.sampled_from(["## Facts", "## Decisions", "### Detail", "Facts", "## 事实", "## Missing"])
fronts = st.sampled_from(["", "---\nschema_version: 1\n---\n", "---\nname: x\ntriggers: []\n---\n", "---\r\na: 1\r\n---\r\n"])


def _home() -> Home:
    home = Home(Path(tempfile.mkdtemp(prefix="companion-fuzz-")))
    ensure_home(home)
    return home


# -- frontmatter / document parser ----------------------------------------------------


@FUZZ
@given(raw=st.one_of(any_text, st.builds(lambda y, b: f"---\n{y}\n---\n{b}", any_text, any_text)))
def test_parse_document_raises_only_own_errors(raw: str) -> None:
    EXAMPLES["frontmatter parser"] += 1
    try:
        doc = parse_document("MEMORY.md", raw)
    except CompanionError:
        return
    assert doc.front + doc.body == raw
    assert isinstance(doc.meta, dict)


# -- section operations (pure) --------------------------------------------------------


def _span_text(body: str, heading: str) -> tuple[str, str] | None:
    span = sections.find_section(body, heading)
    if span is None:
        return None
    lines = body.splitlines(keepends=True)
    return "".join(lines[: span[1]]), "".join(lines[span[2] :])


@FUZZ
@given(body=bodies, heading=headings_st, content=plain_text)
def test_replace_section_keeps_outside_bytes(body: str, heading: str, content: str) -> None:
    EXAMPLES["replace_section"] += 1
    around = _span_text(body, heading)
    result = sections.replace_section(body, heading, content)
    if around is None:
        assert result is None
        return
    assert result is not None
    before, after = around
    assert result.startswith(before) or (not before.endswith("\n") and result.startswith(before + "\n"))
    assert result.endswith(after)
    assert sections.replace_section(result, heading, content) == result  # idempotent


@FUZZ
@given(body=bodies, heading=headings_st, text=plain_text)
def test_append_to_section_only_inserts(body: str, heading: str, text: str) -> None:
    EXAMPLES["append_to_section"] += 1
    marker = "⟦added⟧ " + text.replace("\n", " ")
    assume("⟦" not in body)
    result = sections.append_to_section(body, heading, marker)
    if sections.find_section(body, heading) is None:
        assert result is None
        return
    assert result is not None
    at = result.index(marker)
    removed = result[:at] + result[at + len(marker.strip("\n")) + 1 :]
    assert removed == body or _one_newline_added(body, removed)  # only the text (and a line end) was added
    span = sections.find_section(result, heading)
    assert span is not None
    line_no = result[:at].count("\n")
    assert span[1] <= line_no < span[2]


def _one_newline_added(body: str, candidate: str) -> bool:
    if len(candidate) != len(body) + 1:
        return False
    return any(candidate[:i] + candidate[i + 1 :] == body for i, ch in enumerate(candidate) if ch == "\n")


# -- edit operations through the store -------------------------------------------------


@FUZZ
@given(front=fronts, body=bodies, data=st.data())
def test_store_edits_round_trip(front: str, body: str, data: st.DataObject) -> None:
    EXAMPLES["store edit operations"] += 1
    home = _home()
    store = LongTermStore(home)
    try:
        store._write("MEMORY.md", front + body, expected_sha=None, actor=Actor.EDITOR)
    except CompanionError:
        return
    doc = store.read("MEMORY.md")
    op = data.draw(st.sampled_from(["edit", "append", "replace_section", "replace_all"]))
    new = data.draw(any_text)
    try:
        if op == "edit":
            old = data.draw(st.sampled_from(doc.body.splitlines(keepends=True) or [""]))
            after = store._edit("MEMORY.md", old, new, expected_sha=doc.sha, actor=Actor.EDITOR)
            if _encodable(new):
                assert after.raw == doc.front + doc.body.replace(old, new, 1)
        elif op == "append":
            after = store._append("MEMORY.md", new, data.draw(st.none() | headings_st), expected_sha=doc.sha, actor=Actor.EDITOR)
        elif op == "replace_section":
            after = store._replace_section("MEMORY.md", data.draw(headings_st), new, expected_sha=doc.sha, actor=Actor.EDITOR)
        else:
            after = store._replace_all("MEMORY.md", new, expected_sha=doc.sha, actor=Actor.EDITOR)
    except CompanionError:
        assert store.read_raw("MEMORY.md") == doc.raw  # a refused edit changes nothing
        return
    assert after.raw.startswith(doc.front)  # frontmatter byte-identical
    on_disk = store.read("MEMORY.md")
    assert on_disk.raw == after.raw and on_disk.sha == after.sha  # what the writer holds is what is saved
    assert "\ufffd" in after.raw or _encodable(after.raw)
    if after.raw != doc.raw:
        _assert_history_has(store, doc.raw)


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def _assert_history_has(store: LongTermStore, previous: str) -> None:
    if not previous:
        return
    versions = store.history.versions("MEMORY.md")
    assert versions and versions[0].read() == previous


@FUZZ
@given(front=fronts, body=bodies, new=plain_text, data=st.data())
def test_edit_changes_exactly_the_matched_span(front: str, body: str, new: str, data: st.DataObject) -> None:
    EXAMPLES["edit exact span"] += 1
    home = _home()
    store = LongTermStore(home)
    try:
        doc = store._write("MEMORY.md", front + body, expected_sha=None, actor=Actor.EDITOR)
    except CompanionError:
        return
    if not doc.body:
        return
    start = data.draw(st.integers(0, len(doc.body) - 1))
    end = data.draw(st.integers(start + 1, len(doc.body)))
    old = doc.body[start:end]
    if doc.body.find(old, doc.body.find(old) + 1) != -1:  # found twice, overlaps included
        with pytest.raises(AmbiguousMatchError):
            store._edit("MEMORY.md", old, new, expected_sha=doc.sha, actor=Actor.EDITOR)
        return
    after = store._edit("MEMORY.md", old, new, expected_sha=doc.sha, actor=Actor.EDITOR)
    assert after.raw == doc.front + doc.body[:start] + new + doc.body[end:]
    assert store.read_raw("MEMORY.md") == after.raw


# -- day-log reader ---------------------------------------------------------------------


def _valid_record(seq: int, text: str) -> Record:
    return Record(id=f"2026-11-29#{seq}", ts="2026-11-29T14:03:22.123+01:00", role="user", text=text)


garbage_line = st.one_of(
    st.binary(max_size=80).map(lambda b: b.replace(b"\n", b" ")),
    st.sampled_from([b"[" * 5000, b'{"id": "2026-11-29#\xc2\xb2", "ts": "2026-11-29T10:00:00", "role": "user", "text": "x"}',
                     b'{"id": 5}', b"null", b"\x00\x00", b'{"id":"2026-13-45#1","ts":"x","role":"user","text":""}', b"\xff\xfe"]),
    st.dictionaries(st.sampled_from(["id", "ts", "role", "text", "tool"]), st.one_of(st.none(), st.integers(), any_text), max_size=5)
    .map(lambda d: json.dumps(d).encode()),
)


@FUZZ
@given(texts=st.lists(any_text, max_size=6), garbage=st.lists(garbage_line, max_size=6), torn=st.booleans(), data=st.data())
def test_day_log_reader_recovers_every_good_record(texts: list[str], garbage: list[bytes], torn: bool, data: st.DataObject) -> None:
    EXAMPLES["day-log reader"] += 1
    good = [_valid_record(i + 1, t) for i, t in enumerate(texts)]
    lines = [r.to_line() for r in good] + [g + b"\n" for g in garbage]
    order = data.draw(st.permutations(range(len(lines))))
    raw = b"".join(lines[i] for i in order)
    if torn:
        raw += b'{"id":"2026-11-29#99","ts":"2026'
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "2026-11-29.jsonl"
        path.write_bytes(raw)
        try:
            result = read_file(path)
        except StorageError:
            return
    by_id = {r.id: r for r in result.records}
    for record in good:
        assert by_id[record.id].text == valid_text(record.text)
    for record in result.records:  # whatever was accepted is usable everywhere
        assert record.seq >= 0 and record.day.year >= 1 and record.timestamp is not None
        assert Record.from_dict(json.loads(record.to_line())) == record
    if torn:
        assert any("incomplete last line" in p.reason for p in result.problems)


@FUZZ
@given(texts=st.lists(any_text, min_size=1, max_size=5))
def test_day_log_append_round_trips_any_text(texts: list[str]) -> None:
    EXAMPLES["day-log append"] += 1
    with tempfile.TemporaryDirectory() as folder:
        log = DayLog(Path(folder))
        written = [log.append("user", t) for t in texts]
        read = log.read_day(written[0].day)
    assert not read.problems
    assert [r.text for r in read.records] == [valid_text(t) for t in texts]
    for record in read.records:
        record.text.encode("utf-8")  # every consumer (tokenizer, index, UI) can encode what it reads
    assert len({r.id for r in read.records}) == len(texts)


# -- memory tools with arbitrary arguments -----------------------------------------------

json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(any_text, inner, max_size=3),
    max_leaves=8,
)
file_names = st.sampled_from(["SOUL.md", "memory", "../SOUL.md", "/etc/passwd", "..\\..\\x.md", "C:\\x.md", "SKILL.md",
                              "days/2026-11/2026-11-29.jsonl", "USER.md\x00", "~/x.md", "MEMORY.md/..", "ＭEMORY.md"]) | any_text


@FUZZ
@given(
    name=st.sampled_from(["read_memory", "edit_memory", "context_update", "delete_file", ""]),
    file=file_names,
    extra=st.dictionaries(st.sampled_from(["old_string", "new_string", "action", "content", "section"]), json_value, max_size=5),
)
def test_memory_tools_never_raise_or_escape(name: str, file: str, extra: dict[str, object]) -> None:
    EXAMPLES["memory tools"] += 1
    home = _home()
    outside = home.root / "outside.md"
    outside.write_text("keep")
    before = {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file() and home.memory not in p.parents and home.state not in p.parents}
    result = ToolExecutor(LongTermStore(home), Actor.TOOL).run(ToolCall(name=name, arguments={"file": file, **extra}))
    assert isinstance(result.output, str)
    after = {p: p.read_bytes() for p in home.root.rglob("*") if p.is_file() and home.memory not in p.parents and home.state not in p.parents}
    assert after == before
    if result.changed:
        assert result.changed in ("SOUL.md", "USER.md", "MEMORY.md")
    names = {p.name for p in home.memory.iterdir()}
    assert names <= {"SOUL.md", "USER.md", "MEMORY.md", "SKILL.md", "days", "digests"}
