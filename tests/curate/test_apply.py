"""Every proposal is validated before it touches a file; updates keep the old entry, marked superseded."""

from __future__ import annotations

from datetime import date

import pytest

from companion.curate.gate import MemoryWriter
from companion.errors import ConflictError
from companion.memory.history import Actor
from companion.memory.longterm import LongTermStore
from companion.memory.records import Record
from companion.paths import Home
from companion.curate.apply import Context, move_past_upcoming
from companion.curate.policy import rewrite_refusal
from companion.curate.ops import Op
from companion.memory import entries as E

DAY = date(2024, 5, 14)


def _ctx(*texts: str, role: str = "user") -> Context:
    records = {f"2024-05-13#{i}": Record(f"2024-05-13#{i}", "2024-05-13T10:00:00+01:00", role, t) for i, t in enumerate(texts, 1)}
    return Context(records, DAY, actor=Actor.SLEEP)


def _add(text: str, file: str = "MEMORY.md", section: str = "Facts", sources: tuple[str, ...] = ("2024-05-13#1",)) -> Op:
    return Op("add", file, section, text, list(sources), origin="model")


@pytest.fixture
def store(home: Home) -> LongTermStore:
    return LongTermStore(home)


def test_valid_add_cites_its_source_and_snapshots(store: LongTermStore) -> None:
    out = MemoryWriter(store).apply_ops("MEMORY.md", [_add("Owns a red bicycle")], _ctx("I have a red bicycle"))
    assert [o.status for o in out] == ["added"]
    body = store.read("MEMORY.md").body
    assert "- Owns a red bicycle (2024-05-13#1)" in body.split("## Facts")[1].split("##")[0]
    assert store.history.versions("MEMORY.md")[0].actor == "sleep"


@pytest.mark.parametrize(
    "op, reason",
    [
        (_add("abc"), "5-200 characters"),
        (_add("x" * 201), "5-200 characters"),
        (_add("Owns a bike", sources=("2024-05-13#99",)), "cites no record"),
        (_add("Owns a bike", sources=()), "cites no record"),
        (_add("2024-05-13#1 2024-05-13#1"), "not a statement"),
        (_add("Saw a friend recently"), "relative date"),
        (Op("launch", "MEMORY.md", "Facts", "Owns a bike", ["2024-05-13#1"]), "unknown operation"),
    ],
)
def test_invalid_proposals_are_refused(store: LongTermStore, op: Op, reason: str) -> None:
    before = store.read_raw("MEMORY.md")
    out = MemoryWriter(store).apply_ops("MEMORY.md", [op], _ctx("I have a bike"))
    assert out[0].status == "refused" and reason in out[0].reason
    assert store.read_raw("MEMORY.md") == before


@pytest.mark.parametrize(
    "secret",
    ["Password is hunter22", "API key: sk-abcdefghijklmnop1234", "Card 4111 1111 1111 1111", "IBAN DE89 3704 0044 0532 0130 00"],
)
def test_secrets_are_refused_and_counted(store: LongTermStore, secret: str) -> None:
    ctx = _ctx("something")
    out = MemoryWriter(store).apply_ops("USER.md", [_add(secret, "USER.md", "Profile")], ctx)
    assert out[0].status == "refused" and "never stored" in out[0].reason
    assert ctx.refused_sensitive == 1
    assert secret not in store.read_raw("USER.md")


def test_relative_dates_are_made_absolute_from_the_record(store: LongTermStore) -> None:
    out = MemoryWriter(store).apply_ops("MEMORY.md", [_add("Dentist appointment tomorrow")], _ctx("dentist tomorrow"))
    assert out[0].op.text == "Dentist appointment on 2024-05-14"


def test_duplicates_are_refused_also_within_one_batch(store: LongTermStore) -> None:
    ctx = _ctx("I like tea", "I like tea a lot")
    ops = [_add("Likes green tea", "USER.md", "Preferences"), _add("likes green tea", "USER.md", "Preferences", ("2024-05-13#2",))]
    out = MemoryWriter(store).apply_ops("USER.md", ops, ctx)
    assert [o.status for o in out] == ["added", "refused"]
    again = MemoryWriter(store).apply_ops("USER.md", ops[:1], ctx)
    assert again[0].status == "refused" and "already in USER.md" in again[0].reason
    assert store.read("USER.md").body.count("Likes green tea") == 1


def test_only_the_companions_words_are_not_enough(store: LongTermStore) -> None:
    out = MemoryWriter(store).apply_ops("MEMORY.md", [_add("The user is a genius")], _ctx("You are a genius", role="assistant"))
    assert out[0].status == "refused" and "companion's own words" in out[0].reason


def test_soul_changes_only_on_request(store: LongTermStore) -> None:
    asked = MemoryWriter(store).apply_ops("SOUL.md", [_add("Be more concise", "SOUL.md", "Style")], _ctx("Please be more concise"))
    assert asked[0].status == "added"
    unasked = MemoryWriter(store).apply_ops("SOUL.md", [_add("Be very poetic", "SOUL.md", "Style")], _ctx("I had pizza"))
    assert unasked[0].status == "refused" and "asks" in unasked[0].reason


def test_sections_existing_sensible_or_fallback(store: LongTermStore) -> None:
    ctx = _ctx("I like chess and cats and tea")
    ops = [_add("Plays chess", section="topics & interests"), _add("Has two cats", section="Pets"), _add("Drinks tea", section="### !!")]
    out = MemoryWriter(store).apply_ops("MEMORY.md", ops, ctx)
    assert [o.op.section for o in out] == ["Topics & Interests", "Pets", "Facts"]
    assert "## Pets\n- Has two cats" in store.read("MEMORY.md").body


def test_update_keeps_the_old_entry_marked_superseded(store: LongTermStore) -> None:
    ctx = _ctx("I live in Paris", "I moved to Berlin", "I moved back to Paris")
    MemoryWriter(store).apply_ops("USER.md", [_add("Lives in Paris", "USER.md", "Profile")], ctx)
    update = Op("update", "USER.md", "Profile", "Lives in Berlin", ["2024-05-13#2"], old="Lives in")
    out = MemoryWriter(store).apply_ops("USER.md", [update], ctx)
    assert out[0].status == "updated"
    body = store.read("USER.md").body
    assert "- ~~Lives in Paris~~ (2024-05-13#1) — superseded 2024-05-14\n- Lives in Berlin (2024-05-13#2)" in body
    # moving back is not a duplicate of a superseded entry
    back = Op("update", "USER.md", "Profile", "Lives in Paris", ["2024-05-13#3"], old="Lives in")
    assert MemoryWriter(store).apply_ops("USER.md", [back], ctx)[0].status == "updated"
    # ...but the night does not bring back what the same message said and a correction replaced
    again = Op("add", "USER.md", "Profile", "Lives in Berlin", ["2024-05-13#2"])
    assert "since corrected" in MemoryWriter(store).apply_ops("USER.md", [again], ctx)[0].reason


def test_update_without_a_match_is_an_add_and_supersede_needs_one(store: LongTermStore) -> None:
    ctx = _ctx("I live in Rome")
    update = Op("update", "USER.md", "Profile", "Lives in Rome", ["2024-05-13#1"], old="Lives in")
    supersede = Op("supersede", "USER.md", "Profile", "Not a vegetarian anymore", ["2024-05-13#1"], old="Vegetarian")
    out = MemoryWriter(store).apply_ops("USER.md", [update, supersede], ctx)
    assert [o.status for o in out] == ["added", "refused"]


def test_supersede_marks_every_match(store: LongTermStore) -> None:
    ctx = _ctx("I am vegetarian", "I eat meat again")
    MemoryWriter(store).apply_ops("USER.md", [_add("Vegetarian", "USER.md", "Preferences")], ctx)
    op = Op("supersede", "USER.md", "Preferences", "Eats meat again", ["2024-05-13#2"], old="Vegetarian")
    out = MemoryWriter(store).apply_ops("USER.md", [op], ctx)
    assert out[0].status == "superseded" and "~~Vegetarian~~" in store.read("USER.md").body


def test_rewrite_dropping_over_a_quarter_is_refused(store: LongTermStore) -> None:
    texts = [f"Fact number {n} about the user" for n in range(8)]
    ctx = _ctx(*texts, "These are all wrong")
    MemoryWriter(store).apply_ops("MEMORY.md", [_add(t, sources=(f"2024-05-13#{i}",)) for i, t in enumerate(texts, 1)], ctx)
    before = store.read_raw("MEMORY.md")
    sweeping = Op("supersede", "MEMORY.md", "Corrections", "Earlier facts were wrong", ["2024-05-13#9"], old="Fact number")
    out = MemoryWriter(store).apply_ops("MEMORY.md", [sweeping], ctx)
    assert out[0].status == "refused" and "more than a quarter" in out[0].reason
    assert store.read_raw("MEMORY.md") == before


def test_rewrite_guard_counts() -> None:
    old = "## A\n- one\n- two\n- three\n- four\n- five\n- six\n- seven\n- eight\n"
    assert rewrite_refusal(old, old.replace("- one\n", "")) is None  # one replaced entry is fine
    assert rewrite_refusal(old, old.replace("- one\n", "").replace("- two\n", "")) is None  # 2 of 8 = 25%
    assert rewrite_refusal(old, "## A\n- one\n- two\n- three\n") is not None


def test_upcoming_moves_to_timeline_once_past() -> None:
    body = "## Timeline\n\n## Upcoming\n- 2024-05-13: Dentist (2024-05-01#1)\n- 2024-05-20: Trip (2024-05-01#2)\n"
    new, moved = move_past_upcoming(body, DAY)
    assert moved == ["- 2024-05-13: Dentist (2024-05-01#1)"]
    assert new.index("Dentist") < new.index("## Upcoming") < new.index("Trip")


def test_concurrent_edit_is_replanned_not_overwritten(store: LongTermStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = _ctx("I own a kayak")
    real_write = store._write
    calls = {"n": 0}

    def racing_write(name: str, raw: str, expected: str | None, *, actor: Actor):  # the user saves in between
        calls["n"] += 1
        if calls["n"] == 1:
            MemoryWriter(store).append("MEMORY.md", "- Typed by the user", "## Facts", actor=Actor.EDITOR)
        return real_write(name, raw, expected, actor=actor)

    monkeypatch.setattr(store, "_write", racing_write)
    out = MemoryWriter(store).apply_ops("MEMORY.md", [_add("Owns a kayak")], ctx)
    body = store.read("MEMORY.md").body
    assert out[0].status == "added" and "Typed by the user" in body and "Owns a kayak" in body


def test_keeps_failing_conflicts_surface(store: LongTermStore, monkeypatch: pytest.MonkeyPatch) -> None:
    def always_conflict(*args: object, **kwargs: object) -> None:
        raise ConflictError("changed")

    monkeypatch.setattr(store, "_write", always_conflict)
    with pytest.raises(ConflictError, match="next time"):
        MemoryWriter(store).apply_ops("MEMORY.md", [_add("Owns a canoe")], _ctx("canoe"))


def test_model_text_in_the_users_words_is_put_in_entry_form(store: LongTermStore) -> None:
    op = _add("I'm allergic to peanuts.", "USER.md", "Profile")
    out = MemoryWriter(store).apply_ops("USER.md", [op], _ctx("I'm allergic to peanuts"))
    assert out[0].op.text == "Allergic to peanuts"


def test_a_chinese_home_is_written_under_its_own_headings(tmp_path) -> None:
    from companion.memory.setup import ensure_home

    home = Home(tmp_path / "zh")
    ensure_home(home, "zh")
    store = LongTermStore(home)
    ctx = _ctx("我养了一只叫小米的猫", "我决定学钢琴")
    ops = [_add("养了一只叫小米的猫"), _add("决定学钢琴", section="Decisions", sources=("2024-05-13#2",))]
    out = MemoryWriter(store).apply_ops("MEMORY.md", ops, ctx)
    assert [o.status for o in out] == ["added", "added"]
    body = store.read("MEMORY.md").body
    assert body.split("## 事实")[1].split("##")[0].strip() == "- 养了一只叫小米的猫 (2024-05-13#1)"
    assert "- 决定学钢琴 (2024-05-13#2)" in body.split("## 决定")[1].split("##")[0]
    assert "Facts" not in body and "Decisions" not in body


def test_passed_upcoming_entries_move_to_the_chinese_timeline() -> None:
    body = "## 时间线\n\n## 即将到来\n- 2024-05-10: 看牙医 (2024-05-01#1)\n"
    moved_body, moved = move_past_upcoming(body, DAY)
    assert moved == ["- 2024-05-10: 看牙医 (2024-05-01#1)"]
    assert moved_body.split("## 即将到来")[0].strip().endswith("看牙医 (2024-05-01#1)")
    assert "Timeline" not in moved_body


@pytest.mark.parametrize(("said", "fact", "why"), [
    ("I think I might like opera, not sure yet", "Likes opera", "not sure"),
    ("Oh sure, I love waiting in traffic for two hours", "Likes waiting in traffic", "sarcastic"),
    ("If I had a garden I would keep chickens", "Keeps chickens", "imagining"),
    ("I used to play the violin, I gave it up at twenty", "Plays the violin", "past"),
    ("My neighbour Karin is a vegetarian", "Is a vegetarian", "about neighbour Karin"),
    ("我妹妹喜欢猫", "喜欢猫", "about 妹妹"),
])
def test_a_models_paraphrase_is_checked_against_the_statement(store: LongTermStore, said: str, fact: str, why: str) -> None:
    outcome = MemoryWriter(store).apply_ops("USER.md", [_add(fact, "USER.md", "Preferences")], _ctx(said))[0]
    assert outcome.status == "refused" and why in outcome.reason


def test_a_model_may_keep_another_persons_fact_as_theirs(store: LongTermStore) -> None:
    outcome = MemoryWriter(store).apply_ops("MEMORY.md", [_add("Neighbour Karin is a vegetarian")], _ctx("My neighbour Karin is a vegetarian"))[0]
    assert outcome.status == "added"


def test_a_job_update_leaves_the_diet_alone(store: LongTermStore) -> None:
    MemoryWriter(store).append("USER.md", "- Is a vegetarian (2024-05-01#1)\n- Is a teacher (2024-05-01#2)", "## Profile", actor=Actor.EDITOR)
    ops = [Op("update", "USER.md", "Profile", "Is a nurse", ["2024-05-13#1"], old="Is a", origin="rule")]
    assert MemoryWriter(store).apply_ops("USER.md", ops, _ctx("I'm a nurse"))[0].status == "updated"
    active = [E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)]
    assert active == ["Is a vegetarian", "Is a nurse"]


def test_a_correction_finds_the_entry_that_names_the_old_value(store: LongTermStore) -> None:
    MemoryWriter(store).append("USER.md", "- Lives in Dundee (2024-05-01#1)", "## Profile", actor=Actor.EDITOR)
    ctx = _ctx("I meant Dublin, not Dundee")
    revalue = [Op("revalue", f, s, "Dublin", ["2024-05-13#1"], old="Dundee", origin="rule") for f, s in (("USER.md", ""), ("MEMORY.md", "Corrections"))]
    assert MemoryWriter(store).apply_ops("USER.md", revalue[:1], ctx)[0].status == "updated"
    assert [E.entry_text(l) for l in E.active_entries(store.read("USER.md").body)] == ["Lives in Dublin"]
    assert MemoryWriter(store).apply_ops("MEMORY.md", revalue[1:], ctx)[0].status == "skipped"  # the profile already says it
    note = [Op("revalue", "MEMORY.md", "Corrections", "Earl Grey", ["2024-05-13#1"], old="Assam", origin="rule")]
    assert MemoryWriter(store).apply_ops("MEMORY.md", note, ctx)[0].line.startswith("- Earl Grey (not Assam)")  # no file names Assam
