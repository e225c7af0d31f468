"""Parsing chat exports from other tools: times, content shapes, and never crashing on odd JSON."""

from __future__ import annotations

import pytest

from datetime import datetime, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from companion.portability.chat_history import (
    looks_like_chatgpt,
    looks_like_messages,
    messages_from_chatgpt,
    messages_from_list,
    parse_time,
)

FALLBACK = datetime(2026, 1, 1, tzinfo=timezone.utc)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(
        ["role", "content", "timestamp", "mapping", "message", "parent", "children", "current_node", "author", "parts", "text", "create_time", "title"]
    ) | st.text(max_size=5), inner, max_size=5),
    max_leaves=30,
)


def test_parse_time_variants() -> None:
    iso = parse_time("2025-05-01T09:00:05+02:00")
    assert iso == datetime(2025, 5, 1, 7, 0, 5, tzinfo=timezone.utc)
    assert parse_time("2025-05-01T07:00:05Z") == iso
    assert parse_time(1746082805) == iso and parse_time(1746082805000) == iso
    assert parse_time("2025-05-01T09:00:05") is not None  # naive: taken as local time
    for bad in (None, "", "yesterday", True, [], float("inf")):
        assert parse_time(bad) is None


def test_message_list_shapes() -> None:
    data = {"messages": [
        {"role": "Human", "content": "hi", "time": 1746082805},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}, {"type": "image"}]},
        {"role": "system", "content": "ignored"},
        {"role": "user", "content": "   "},
    ]}
    assert looks_like_messages(data)
    found = messages_from_list(data, "x.json", FALLBACK)
    assert [(m.role, m.text) for m in found] == [("user", "hi"), ("assistant", "hello")]
    assert found[1].when == found[0].when  # no time of its own: the previous one
    assert found[1].to_record().id.endswith("#0")


@pytest.mark.slow
@given(json_values)
def test_odd_json_never_crashes(data: Any) -> None:
    if looks_like_chatgpt(data):
        for _title, messages in messages_from_chatgpt(data, FALLBACK):
            assert all(m.text for m in messages)
    if looks_like_messages(data):
        assert all(m.text.strip() for m in messages_from_list(data, "f", FALLBACK))


@given(
    st.dictionaries(st.text(max_size=3), json_values, max_size=5),
    json_values,
)
@pytest.mark.slow
def test_odd_chatgpt_mappings_never_crash(mapping: dict[str, Any], current: Any) -> None:
    for _title, messages in messages_from_chatgpt([{"mapping": mapping, "current_node": current}], FALLBACK):
        assert all(m.text for m in messages)


def test_malformed_chatgpt_nodes_are_skipped() -> None:
    cases = [
        {"mapping": {"a": {"message": {"author": "x"}, "parent": ["z"]}}, "current_node": ["a"]},
        {"mapping": {"a": None, "b": {"children": [["x"]], "parent": None}}, "current_node": None},
        {"mapping": {"a": {"children": ["a"], "parent": None}}},  # a cycle
    ]
    assert messages_from_chatgpt(cases, FALLBACK) == []
    ok = {"mapping": {"a": {"message": {"author": {"role": "user"}, "content": {"parts": ["hi"]}, "metadata": [1]}}},
          "current_node": "a"}
    assert [m.text for _, ms in messages_from_chatgpt([ok], FALLBACK) for m in ms] == ["hi"]
