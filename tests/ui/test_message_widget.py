"""A message card: a streamed reply re-renders only its last block, code fences kept whole, links through open_link."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.ui.code_block import Segment, segments
from companion.ui.message_widget import MessageWidget


def test_segments_keep_code_fences_whole_and_cut_prose_at_blank_lines() -> None:
    text = "Intro\n\n```python\na = 1\n\nb = 2\n```\nafter\n\nlast"
    assert segments(text) == [
        Segment("markdown", "Intro"),
        Segment("code", "a = 1\n\nb = 2", "python"),
        Segment("markdown", "after"),
        Segment("markdown", "last"),
    ]
    assert segments("x\n~~~\nopen") == [Segment("markdown", "x"), Segment("code", "open", "", closed=False)]


@given(st.lists(st.text(alphabet="ab \n`*-你", max_size=12), max_size=20))
@settings(max_examples=60, deadline=None)
def test_streamed_pieces_render_the_same_blocks_as_one_update(qapp, pieces: list[str]) -> None:
    streamed = MessageWidget("assistant")
    for piece in pieces:
        streamed.append(piece)
    joined = "".join(pieces)
    assert streamed.text() == joined
    assert streamed.parts() == MessageWidget("assistant", joined).parts() == segments(joined)


def test_a_streamed_reply_renders_only_its_last_block_again(qapp) -> None:
    widget = MessageWidget("assistant")
    for i in range(30):
        widget.append(f"Paragraph {i} with **bold**.\n\n")
    assert len(widget.parts()) == 30
    before = widget.part_widgets()
    widget.append("tail")
    assert widget.part_widgets()[:30] == before and len(widget.parts()) == 31
    widget.set_text("Something else entirely")
    assert widget.parts() == [Segment("markdown", "Something else entirely")]


def test_only_web_links_open_and_only_after_the_address_was_shown(qapp) -> None:
    from PySide6.QtCore import QUrl

    from companion.ui.links import open_link

    widget = MessageWidget("assistant", "see [this](https://example.org/a)")
    asked: list[str] = []
    refused: list[str] = []
    opened: list[str] = []

    def ask(_parent: object, url: QUrl) -> bool:
        asked.append(url.toString())
        return True

    def attempt(link: str) -> bool:
        return open_link(widget, link, ask=ask, refuse=lambda _p, u: refused.append(u.toString()),
                         opener=lambda u: opened.append(u.toString()) or True)

    for link in ("file:///etc/passwd", "smb://host/share", "javascript:alert(1)", "vscode://run?x", "mailto:a@b.c", "http://"):
        assert not attempt(link)
    assert opened == [] and asked == [] and len(refused) == 6
    assert attempt("https://example.org/a") and opened == ["https://example.org/a"] and asked == opened
    assert not open_link(widget, "https://example.org/b", ask=lambda *_: False, opener=lambda u: opened.append("x") or True)
    assert opened == ["https://example.org/a"]  # the user said no
    assert not widget.body.openExternalLinks()


def test_a_tool_change_shows_with_undo_and_a_proposal_with_apply(qapp, home) -> None:
    from companion.agent.session import ChatSession
    from companion.llm.base import ToolCall
    from companion.memory.daylog import DayLog
    from companion.settings import Settings
    from companion.ui import tool_actions

    session = ChatSession(home, Settings())
    store, tools = session.agent.store, session.agent.tools
    daylog = DayLog(home.days)
    tools.begin_turn("I started learning the cello")
    done = tools.run(ToolCall("context_update", {"file": "USER.md", "action": "append", "content": "- Learns the cello"}))
    card = MessageWidget("tool", done.output)
    actions = tool_actions.attach(card, done, session, daylog)
    assert actions is not None and actions.undo_button is not None and "Changed USER.md" in card.text()
    actions.undo_button.click()
    assert "cello" not in store.read("USER.md").body and actions.undo_button.isHidden()

    proposal = tools.run(ToolCall("context_update", {"file": "SOUL.md", "action": "append", "content": "- Speaks in rhyme"}))
    card = MessageWidget("tool", proposal.output)
    actions = tool_actions.attach(card, proposal, session, daylog)
    assert "Proposed change to SOUL.md" in card.text() and "rhyme" not in store.read("SOUL.md").body
    card.resize(420, 120)
    card.grab().save("/tmp/tool_proposal.png")
    actions.apply_button.click()
    assert "rhyme" in store.read("SOUL.md").body and actions.undo_button is not None
    actions.undo_button.click()
    assert "rhyme" not in store.read("SOUL.md").body
    session.close()
    assert [r.text for r in daylog.read_day(daylog.clock().date()).records if r.role == "event"] == [
        "Undid the change to USER.md.", "Applied the proposed change to SOUL.md.", "Undid the change to SOUL.md."]
