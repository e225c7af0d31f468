"""Parsing tool calls out of model text."""

from __future__ import annotations

from companion.llm.toolparse import parse_tool_calls

KNOWN = {"read_memory", "edit_memory"}


def test_hermes_tagged_call():
    text = 'Sure.<tool_call>\n{"name": "read_memory", "arguments": {"file": "USER.md"}}\n</tool_call>'
    rest, calls = parse_tool_calls(text, KNOWN)
    assert rest == "Sure."
    assert calls[0].name == "read_memory" and calls[0].arguments == {"file": "USER.md"}


def test_bare_json_call_with_string_arguments():
    rest, calls = parse_tool_calls('{"name": "edit_memory", "arguments": "{\\"file\\": \\"USER.md\\"}"}', KNOWN)
    assert rest == "" and calls[0].arguments == {"file": "USER.md"}


def test_unknown_names_and_bad_json_stay_text():
    text = '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call> and <tool_call>{oops</tool_call>'
    rest, calls = parse_tool_calls(text, KNOWN)
    assert calls == [] and "rm_rf" in rest and "{oops" in rest


def test_plain_text_is_untouched():
    assert parse_tool_calls("Hello {there}", KNOWN) == ("Hello {there}", [])
