"""Keep text from becoming a chat-template control token: break every control token a model declares.

The chat template writes the real control tokens; every message's text (the user's, recalled turns,
memory files, tool results, imports) is only text. A tokenizer that parses special tokens in the
rendered prompt would read `<|im_end|>` or `<turn|>` inside that text as the real thing, so each
occurrence of a token the model's own vocabulary declares gets a zero-width space inside it.
For a server whose vocabulary we cannot read, the tokens come from its chat template where the server
reports one, and from the templates of the model families we ship or recommend.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

ZWSP = "\u200b"
_MAX_PASSES = 8
# A token written in a chat template: <|...|>, <｜...｜>, <|word>, <word|>, <word>, [WORD], [/WORD].
_TEMPLATE_TOKEN = re.compile(
    r"<\|[^<>|\s]{1,40}\|>|<｜[^<>｜]{1,40}｜>|<\|[\w\"'.:-]{1,40}>|<[\w.:-]{1,40}\|>|</?[a-z][\w.-]{0,39}>|\[/?[A-Z][A-Z_]{1,30}\]"
)
# The control tokens of the chat templates we ship or recommend, for servers that do not tell us theirs.
FAMILY_TOKENS: dict[str, tuple[str, ...]] = {
    "chatml": ("<|im_start|>", "<|im_end|>", "<|endoftext|>"),
    "qwen": ("<|im_start|>", "<|im_end|>", "<|endoftext|>", "<tool_call>", "</tool_call>", "<tool_response>",
             "</tool_response>", "<think>", "</think>", "<|fim_prefix|>", "<|vision_start|>"),
    "gemma4": ("<|turn>", "<turn|>", "<|tool_call>", "<tool_call|>", "<|tool_response>", "<tool_response|>",
               "<|tool>", "<tool|>", "<|channel>", "<channel|>", "<|\"|>", "<bos>", "<eos>"),
    "gemma": ("<start_of_turn>", "<end_of_turn>", "<bos>", "<eos>"),
    "deepseek": ("<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>",
                 "<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>",
                 "<｜tool▁calls▁end｜>", "<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>"),
    "mistral": ("<s>", "</s>", "[INST]", "[/INST]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CALLS]",
                "[ARGS]", "[CALL_ID]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
                "[/TOOL_RESULTS]", "[THINK]", "[/THINK]"),
    "llama3": ("<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>", "<|eom_id|>",
               "<|python_tag|>"),
}


def breakable(token: str) -> bool:
    """Whether a token can be broken by a zero-width space: two characters or more, not only spacing."""
    return len(token) >= 2 and ZWSP not in token and bool(token.replace("▁", "").strip())


class ControlTokens:
    """A set of control-token strings and the one way to make text free of them."""

    def __init__(self, tokens: Iterable[str]) -> None:
        self.tokens = frozenset(t for t in tokens if breakable(t))
        ordered = sorted(self.tokens, key=len, reverse=True)
        self._pattern = re.compile("|".join(re.escape(t) for t in ordered)) if ordered else None

    @classmethod
    def for_server(cls, template: str | None = None) -> "ControlTokens":
        """The tokens of every family we know, plus those written in the server's own template."""
        tokens = {t for family in FAMILY_TOKENS.values() for t in family}
        if template:
            tokens.update(template_tokens(template))
        return cls(tokens)

    def __contains__(self, token: str) -> bool:
        return token in self.tokens

    def found(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def neutralize(self, text: str) -> str:
        """`text` with a zero-width space inside every control token (looked for again until none is left)."""
        if self._pattern is None:
            return text
        for _ in range(_MAX_PASSES):
            broken = self._pattern.sub(lambda m: m.group(0)[0] + ZWSP + m.group(0)[1:], text)
            if broken == text:
                return text
            text = broken
        # Tokens built so that each break makes another: separate every character of what is left.
        return self._pattern.sub(lambda m: ZWSP.join(m.group(0)), text)

    def message(self, message: dict[str, Any]) -> dict[str, Any]:
        """A chat message whose text (and the text inside its tool calls' arguments) holds no control token."""
        item = dict(message)
        if isinstance(item.get("content"), str):
            item["content"] = self.neutralize(item["content"])
        if isinstance(item.get("tool_calls"), list):
            item["tool_calls"] = [self._value(call) for call in item["tool_calls"]]
        return item

    def _value(self, value: Any, depth: int = 0) -> Any:
        if depth > 32:
            return value
        if isinstance(value, str):
            return self.neutralize(value)
        if isinstance(value, dict):
            return {k: self._value(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [self._value(v, depth + 1) for v in value]
        return value


def template_tokens(template: str) -> set[str]:
    """The token-shaped strings a Jinja chat template writes out."""
    return set(_TEMPLATE_TOKEN.findall(template))
