"""The Chinese-English dictionary: reading CEDICT lines, cutting Chinese into words, both directions, its cache."""

from __future__ import annotations

import json
import sys

import pytest

from companion.memory import lexicon as L
from companion.memory.lexicon import Lexicon

LINES = [
    "# CC-CEDICT comment",
    "工作 工作 [gong1 zuo4] /to work/(of a machine) to operate/job/work/task/CL:個|个[ge4]/",
    "貝類 贝类 [bei4 lei4] /shellfish/mollusks/",
    "過敏 过敏 [guo4 min3] /oversensitive/allergic/allergy/",
    "丟 丢 [diu1] /to lose/to put aside/to throw/",
    "喬 乔 [qiao2] /tall/",
    "恩 恩 [en1] /favor/grace/kindness/",
    "吉 吉 [ji2] /lucky/giga-/surname Ji/",
    "了 了 [le5] /(modal particle intensifying preceding clause)/(completed action marker)/",
    "職業 职业 [zhi2 ye4] /occupation/profession/job/",
    "差事 差事 [chai1 shi5] /errand/assignment/job/",
    "什麼時候 什么时候 [shen2 me5 shi2 hou5] /when?/at what time?/",
    "異體 异体 [yi4 ti3] /variant of 異體|异体[yi4 ti3]/",
]


def test_cedict_lines_give_both_directions():
    words = Lexicon.from_lines(LINES)
    assert words.english["贝类"] == ("shellfish", "mollusks")
    assert words.english["貝類"] == words.english["贝类"]  # traditional characters too
    assert "allergic" in words.english["过敏"] and "allergy" in words.english["过敏"]
    assert "异体" not in words.english  # a sense that only points elsewhere is no meaning
    # where the English word is an equally early sense, the word of many senses (the common one) comes first
    assert words.chinese["job"] == ("工作", "差事", "职业")
    assert words.chinese["lose"] == ("丢",)
    assert words.chinese["shellfish"] == ("贝类",)


def test_chinese_is_cut_into_dictionary_words_and_grammar_and_names_are_left_out():
    words = Lexicon.from_lines(LINES)
    assert words.segment("乔恩什么时候丢了工作") == ["乔", "恩", "什么时候", "丢", "了", "工作"]
    english = [w for group in words.english_words("乔恩什么时候丢了工作？") for w in group]
    assert "lose" in english and "work" in english and "job" in english
    assert "tall" not in english and "favor" not in english  # 乔恩 is a name, not "tall favour"
    assert not any("particle" in w or "marker" in w for w in english)  # 了 is grammar


def test_english_words_find_their_chinese_in_any_inflection():
    words = Lexicon.from_lines(LINES)
    assert words.chinese_words("Which allergies?") == [["过敏"]]
    assert words.chinese_words("the shellfish") == [["贝类"]]
    assert words.chinese_words("what is the") == []


STORE = [
    "儲藏 储藏 [chu3 cang2] /to store/deposits/",
    "商號 商号 [shang1 hao4] /store/shop/",
    "店 店 [dian4] /inn/store/",
    "讀數 读数 [du2 shu4] /reading/",
    "讀 读 [du2] /to read out/to read aloud/to read/",
    "巴黎 巴黎 [Ba1 li2] /Paris, capital of France/",
]


def test_the_rendering_people_write_most_comes_first():
    plain = Lexicon.from_lines(STORE)
    assert plain.chinese["store"] == ("储藏", "商号", "店")  # without frequencies: the leading senses first
    common = Lexicon.from_lines(STORE, {"店": 417, "商号": 583, "储藏": 562})
    assert common.chinese["store"] == ("店", "储藏", "商号")  # the everyday word, though 'store' is its second sense
    rare = Lexicon.from_lines(STORE, {"店": 700, "商号": 500, "储藏": 562})
    assert rare.chinese["store"] == ("商号", "储藏", "店")  # a later sense costs: a rare word stays behind


def test_a_word_is_looked_up_in_each_of_its_forms():
    words = Lexicon.from_lines(STORE, {"读": 395, "读数": 591})
    renderings = words.chinese_words("What is he reading?")
    assert renderings == [["读数", "读"]]  # the noun 'reading' and the verb 'read' both


def test_a_place_is_named_without_its_description():
    words = Lexicon.from_lines(STORE)
    assert words.chinese_words("Paris") == [["巴黎"]]
    assert words.english["巴黎"] == ("paris",)  # not "capital" or "france"


def test_the_installed_dictionary_knows_everyday_words():
    words = L.lexicon()
    assert "shellfish" in words.english["贝类"]
    assert "贝类" in words.chinese["shellfish"]
    assert "过敏" in [w for g in words.chinese_words("allergic") for w in g]
    assert ["group"] in words.english_words("支持小组")
    assert words.chinese_words("Rome") == [["罗马"]]
    # with the installed word frequencies, the everyday word leads
    assert words.chinese_words("book")[0][0] == "书" and words.chinese_words("clothes")[0][0] == "衣服"


@pytest.mark.slow
def test_the_cache_is_read_back_and_a_damaged_one_is_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_CACHE", str(tmp_path))
    built = L._read()
    cached = list(tmp_path.glob("lexicon-*.json"))
    assert len(cached) == 1
    again = L._read()
    assert again.english["贝类"] == built.english["贝类"] and again.chinese == built.chinese
    cached[0].write_text('{"english": [1, 2', encoding="utf-8")
    rebuilt = L._read()
    assert rebuilt.english["贝类"] == built.english["贝类"]
    assert json.loads(cached[0].read_text(encoding="utf-8"))["english"]["贝类"] == list(built.english["贝类"])


def test_an_unwritable_cache_costs_only_time(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv("COMPANION_CACHE", str(blocker / "cache"))
    assert "shellfish" in L._read().english["贝类"]


def test_without_word_frequencies_renderings_keep_the_dictionary_order(monkeypatch):
    monkeypatch.setitem(sys.modules, "wordfreq", None)  # as if not installed: importing it fails
    assert L._chinese_rarity() == {}
    assert Lexicon.from_lines(STORE, L._chinese_rarity()).chinese["store"] == ("储藏", "商号", "店")


def test_no_dictionary_means_each_language_finds_only_itself(monkeypatch):
    monkeypatch.setattr(L, "_SOURCE", ("no_such_dictionary_package", "data.txt.gz"))
    empty = L._read()
    assert empty.english == {} and empty.english_words("贝类") == [] and empty.chinese_words("shellfish") == []


@pytest.mark.parametrize("text", ["", "123", "！？", "a the of"])
def test_text_with_nothing_to_look_up(text):
    words = L.lexicon()
    assert words.english_words(text) == [] and words.chinese_words(text) == []
