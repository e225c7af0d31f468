"""Three-way merge of long-term files: one side's changes taken, both sides' additions kept, true conflicts returned."""

from __future__ import annotations

from companion.memory.merge3 import choose_base, common_base, merge3, replace_block


def lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


BASE = "# User\n\n## Profile\n- Lives in Paris (2026-11-01#3)\n- Has a cat (2026-11-02#1)\n\n## Preferences\n- Likes tea (2026-11-03#2)\n"


def test_changes_on_different_lines_are_both_taken():
    ours = BASE.replace("- Has a cat (2026-11-02#1)\n", "- Has two cats (2026-12-01#4.k3fq)\n")
    theirs = BASE + "- Prefers metric units (2026-12-01#2.q2zb)\n"
    merged = merge3(lines(BASE), lines(ours), lines(theirs))
    assert merged.conflicts == []
    assert "- Has two cats (2026-12-01#4.k3fq)\n" in merged.lines
    assert merged.text.endswith("- Likes tea (2026-11-03#2)\n- Prefers metric units (2026-12-01#2.q2zb)\n")


def test_both_sides_adding_at_the_same_place_keeps_all_of_it_once():
    ours = BASE + "- Plays chess (2026-12-01#1.k3fq)\n- Drinks oolong (2026-12-01#5.k3fq)\n"
    theirs = BASE + "- Drinks oolong (2026-12-01#5.k3fq)\n- 喜欢爬山 (2026-12-01#3.q2zb)\n"
    merged = merge3(lines(BASE), lines(ours), lines(theirs))
    assert merged.conflicts == []
    assert merged.text == ours + "- 喜欢爬山 (2026-12-01#3.q2zb)\n"


def test_the_same_line_changed_differently_is_a_true_conflict_and_ours_stays():
    ours = BASE.replace("Lives in Paris (2026-11-01#3)", "Lives in Berlin (2026-12-01#2.k3fq)")
    theirs = BASE.replace("Lives in Paris (2026-11-01#3)", "Lives in Rome (2026-12-01#7.q2zb)")
    merged = merge3(lines(BASE), lines(ours), lines(theirs))
    assert merged.text == ours
    [conflict] = merged.conflicts
    assert conflict.base == ("- Lives in Paris (2026-11-01#3)\n",)
    assert conflict.ours == ("- Lives in Berlin (2026-12-01#2.k3fq)\n",)
    assert conflict.theirs == ("- Lives in Rome (2026-12-01#7.q2zb)\n",)
    chosen = replace_block(merged.text, conflict.ours, conflict.theirs)
    assert "Lives in Rome" in chosen and "Lives in Berlin" not in chosen


def test_without_a_known_base_nothing_either_side_wrote_is_lost():
    ours = BASE + "- Plays chess\n"
    theirs = BASE.replace("## Preferences\n", "## Preferences\n- Likes jazz\n")
    merged = merge3(common_base(lines(ours), lines(theirs)), lines(ours), lines(theirs))
    assert merged.conflicts == []
    assert "- Plays chess\n" in merged.lines and "- Likes jazz\n" in merged.lines
    assert merged.text.index("- Likes jazz") > merged.text.index("## Preferences")


def test_the_common_version_is_the_newest_snapshot_the_other_side_descends_from():
    v1 = lines(BASE)  # what both computers had
    v2 = lines(BASE.replace("Lives in Paris (2026-11-01#3)", "Lives in Berlin"))  # this computer, later
    ours = lines(BASE.replace("Lives in Paris (2026-11-01#3)", "Lives in Berlin") + "- Likes jazz\n")
    theirs = lines(BASE.replace("Lives in Paris (2026-11-01#3)", "Lives in Rome") + "- Reads sci-fi\n")
    # newest first, as History lists them: v2 holds a line the other side never saw
    assert choose_base([v2, v1, lines("# User\n")], ours, theirs) == 1
    merged = merge3(lines(BASE), ours, theirs)
    assert [c.theirs for c in merged.conflicts] == [("- Lives in Rome\n",)]
    assert choose_base([v2], ours, theirs) is None and choose_base([], ours, theirs) is None
