"""A message card: Markdown blocks frozen while a reply streams, code fences kept whole."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.ui.message_widget import MessageWidget, block_end


def test_block_end_ignores_blank_lines_inside_code_fences() -> None:
    text = "Intro\n\n```\na\n\nb\n```\n\nafter"
    first = block_end(text, 0)
    assert text[:first] == "Intro\n\n"
    second = block_end(text, first)
    assert text[first:second].startswith("```") and text[first:second].rstrip().endswith("```")
    assert block_end(text, second) is None


@given(st.lists(st.text(alphabet="ab \n`*-你", max_size=12), max_size=20))
@settings(max_examples=60, deadline=None)
def test_streamed_pieces_render_the_same_text_as_one_update(qapp, pieces: list[str]) -> None:
    streamed = MessageWidget("assistant")
    for piece in pieces:
        streamed.append(piece)
    assert streamed.text() == "".join(pieces)
    shown = [label.text() for label in streamed._frozen] + ([streamed.body.text()] if streamed.body.isVisibleTo(streamed) else [])
    joined = "".join(pieces)
    for part in shown:
        if part != "…":
            assert part.strip("\n") in joined


def test_a_long_streamed_reply_is_split_into_frozen_blocks(qapp) -> None:
    widget = MessageWidget("assistant")
    for i in range(30):
        widget.append(f"Paragraph {i} with **bold**.\n\n")
    assert len(widget._frozen) == 30
    frozen = list(widget._frozen)
    widget.append("tail")
    assert widget._frozen == frozen and widget.body.text() == "tail"
    widget.set_text("Something else entirely")
    assert not widget._frozen and widget.body.text() == "Something else entirely"
