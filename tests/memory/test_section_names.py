"""One mapping of section names: English and Chinese titles name the same section everywhere."""

from __future__ import annotations

import pytest

from companion.memory import sections
from companion.memory.section_names import (
    HINTS,
    TITLES,
    canonical,
    file_language,
    hint,
    localized,
    same_section,
    system_language,
)
from companion.memory.setup import ensure_home, template_text
from companion.paths import Home
from companion.curate.gate import MemoryWriter
from companion.memory.history import Actor

ZH_BODY = "# 记忆\n\n## 事实\n- 养了一只猫 (2026-11-29#1)\n\n## 即将到来\n\n## 时间线\n"


def test_every_section_has_a_chinese_title_and_hints_in_both_languages() -> None:
    assert set(HINTS) == set(TITLES)
    for key in TITLES:
        assert localized(key, "zh") != key and canonical(localized(key, "zh")) == key
        assert hint(key, "en") and hint(key, "zh") and hint(key, "en") != hint(key, "zh")


@pytest.mark.parametrize("a, b, same", [("Facts", "事实", True), ("facts", "FACTS", True), ("即将到来", "Upcoming", True),
                                        ("Facts", "Timeline", False), ("My own", "my own", True), ("事实", "时间线", False)])
def test_same_section_across_languages(a: str, b: str, same: bool) -> None:
    assert same_section(a, b) is same


def test_a_users_own_section_keeps_its_title_and_has_no_hint() -> None:
    assert canonical(" Recipes ") == "Recipes" and localized("Recipes", "zh") == "Recipes"
    assert hint("Recipes", "en") == ""


def test_english_headings_find_chinese_sections() -> None:
    assert sections.find_section(ZH_BODY, "## Upcoming") is not None
    added = sections.append_to_section(ZH_BODY, "## Upcoming", "- 2026-12-01 08:00: 给妈妈打电话 (2026-11-30#2)")
    assert added is not None and added.index("给妈妈打电话") < added.index("## 时间线")
    replaced = sections.replace_section(ZH_BODY, "## Facts", "- 喜欢喝茶 (2026-11-30#3)")
    assert replaced is not None and "养了一只猫" not in replaced and "## 事实\n- 喜欢喝茶" in replaced


def test_a_missing_known_section_is_added_in_the_files_language() -> None:
    zh = sections.add_section(ZH_BODY, "## Decisions", "- 决定学钢琴 (2026-11-30#4)")
    assert "\n## 决定\n- 决定学钢琴" in zh
    en = sections.add_section("# Memory\n\n## Facts\n", "## Decisions", "- Decided to learn piano (2026-11-30#4)")
    assert "\n## Decisions\n" in en
    assert file_language(["事实", "Recipes"]) == "zh" and file_language(["Facts"]) == "en" and file_language([]) == "en"


@pytest.mark.parametrize("env, expected", [({"LANG": "zh_CN.UTF-8"}, "zh"), ({"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, "zh"),
                                           ({"LANG": "en_GB.UTF-8"}, "en"), ({}, "en"), ({"LANGUAGE": "zh_CN:en"}, "zh"),
                                           ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en")])
def test_system_language_from_the_locale_variables(env: dict[str, str], expected: str) -> None:
    assert system_language(env) == expected


def test_a_chinese_home_gets_chinese_memory_files(tmp_path) -> None:
    home = Home(tmp_path / "zh")
    ensure_home(home, "zh_CN")
    memory = (home.memory / "MEMORY.md").read_text(encoding="utf-8")
    assert "## 即将到来" in memory and "Upcoming" not in memory
    soul = (home.memory / "SOUL.md").read_text(encoding="utf-8")
    assert "## 身份" in soul and "今天到期" in soul  # the trigger action speaks Chinese too
    for name in ("SOUL.md", "USER.md", "MEMORY.md"):
        body = (home.memory / name).read_text(encoding="utf-8")
        titles = [h.title for h in sections.headings(body) if h.level == 2]
        assert titles and all(canonical(t) in TITLES and t == localized(t, "zh") for t in titles)
    assert (home.memory / "SKILL.md").read_text(encoding="utf-8") == template_text("SKILL.md")  # one skill format


def test_english_templates_are_unchanged_and_the_default_for_other_languages(tmp_path) -> None:
    home = Home(tmp_path / "fr")
    ensure_home(home, "fr_FR")
    assert (home.memory / "MEMORY.md").read_text(encoding="utf-8") == template_text("MEMORY.md")
    assert "## Upcoming" in template_text("MEMORY.md")


def test_writers_that_name_english_sections_land_under_the_chinese_ones(tmp_path) -> None:
    from companion.memory.longterm import LongTermStore

    home = Home(tmp_path / "zh")
    ensure_home(home, "zh")
    store = LongTermStore(home)
    MemoryWriter(store).append("MEMORY.md", "- 喜欢喝龙井 (2026-11-30#1)", "## Facts", actor=Actor.EDITOR)
    MemoryWriter(store).replace_section("SOUL.md", "## Identity", "- 名字：小白", actor=Actor.EDITOR)
    memory, soul = store.read("MEMORY.md").body, store.read("SOUL.md").body
    assert memory.split("## 事实")[1].split("##")[0].strip() == "- 喜欢喝龙井 (2026-11-30#1)"
    assert "## 身份\n- 名字：小白" in soul
    assert "Facts" not in memory and "Identity" not in soul
