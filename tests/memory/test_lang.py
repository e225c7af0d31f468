"""The one language module: numbers, months, weekdays, CJK ranges and folding."""

from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from companion.memory import lang


@pytest.mark.parametrize("text, value", [
    ("8", 8), ("八", 8), ("十", 10), ("十二", 12), ("一二", 12), ("二十三", 23), ("四十五", 45), ("两", 2), ("08", 8),
    ("一百", 100), ("一百零五", 105), ("两百五十", 250), ("二〇二六", 2026), ("十十", None), ("x", None), ("", None), ("三x", None),
])
def test_chinese_numbers(text: str, value: int | None) -> None:
    assert lang.zh_number(text) == value


_UNITS = "零一二三四五六七八九"


def _spoken(n: int) -> str:
    """How a number under 100 is said: 十二, 二十, 三十一."""
    if n < 10:
        return _UNITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _UNITS[tens]) + "十" + (_UNITS[ones] if ones else "")


@given(st.integers(0, 99))
def test_spoken_numbers_read_back(n: int) -> None:
    assert lang.zh_number(_spoken(n)) == n
    assert lang.zh_number("".join(_UNITS[int(d)] for d in str(n))) == n  # digit by digit


def test_months_and_weekdays() -> None:
    assert [lang.month_index(m) for m in ("Jan", "december", "Sept")] == [1, 12, 9]
    assert [lang.zh_weekday(c) for c in "一日天"] == [0, 6, 6]


def test_ranges() -> None:
    assert lang.has_han("我喜欢茶") and lang.has_han("㐀") and not lang.has_han("かな")
    assert lang.has_cjk("かな") and lang.has_cjk("한글") and not lang.has_cjk("tea")
    assert lang.cjk_count("喜欢 tea") == 2


@given(st.text(max_size=40))
def test_fold_is_stable(text: str) -> None:
    assert lang.fold(lang.fold(text)) == lang.fold(text)


def test_fold_unifies_forms() -> None:
    assert lang.fold("Mu\u0308ller") == lang.fold("MÜLLER") == "müller"
    assert lang.fold("ＡＢＣ１２") == "abc12"


def test_mostly_chinese_weighs_characters_against_latin_words() -> None:
    assert lang.mostly_chinese("我周末一般做什么运动？")
    assert lang.mostly_chinese("我昨天在 Door Dash 丢了工作")  # 9 characters, 2 words
    assert not lang.mostly_chinese("I went to 北京 last week")  # 2 characters, 4 words
    assert not lang.mostly_chinese("") and not lang.mostly_chinese("2024-05-01")
