"""Which sentences of a long remembered turn are shown: the match, what follows it, names, numbers, lists."""

from __future__ import annotations

import pytest

from companion.agent.excerpt import best_excerpt, matches, sentences
from companion.llm.base import estimate_tokens
from companion.memory.search.tokenize import query_terms

BAR_REPLY = """To stock a home bar for the widest range of rum cocktails, I would buy these five bottles first:

1. Dark rum: A rich, molasses-heavy rum is the base of a Dark 'n' Stormy and most tiki drinks. It also works in a hot toddy on cold nights.
2. Orange curaçao: This sweet orange liqueur gives a Mai Tai its body. A good one costs a little more but lasts for years.
3. Falernum: A spiced syrup of lime, almond and clove that most tiki recipes ask for. You can make it at home in an afternoon.
4. Angostura bitters: A few dashes balance sweet drinks and save a flat daiquiri. One bottle lasts a very long time.
5. Chartreuse: A herbal liqueur made by monks in the French Alps; it is the secret of a Last Word. It is strong, so use it sparingly.

With these five bottles and fresh limes you can make dozens of classics. Start with a daiquiri and build from there, and keep notes on what you like."""


def terms(question: str) -> list[str]:
    return query_terms(question)


def test_a_list_after_the_match_shows_every_item_by_its_name():
    """Asked for the fifth of five things: each item keeps its name, the details go."""
    excerpt = best_excerpt(BAR_REPLY, terms("which five bottles did you say to buy for rum cocktails? the fifth one?"),
                           estimate_tokens, 100)
    for name in ("Dark rum", "Orange curaçao", "Falernum", "Angostura bitters", "Chartreuse"):
        assert name in excerpt
    assert estimate_tokens(excerpt) <= 100
    assert "… …" not in excerpt and "sparingly" not in excerpt  # one mark per gap; an item's second sentence waits


def test_the_opening_statement_comes_along_when_the_match_is_at_the_end():
    turn = ("I finally finished \"The Salt Road\" by Ines Carvalho last week. It follows two sisters who run a ferry "
            "across a lake in northern Portugal, and the ending made me cry on the train. The middle drags a little, "
            "but the last hundred pages are worth it. I would recommend it to anyone who liked your lighthouse novel!")
    excerpt = best_excerpt(turn, terms("which book would she recommend?"), estimate_tokens, 50)
    assert "The Salt Road" in excerpt and "recommend it" in excerpt
    assert estimate_tokens(excerpt) <= 50


def test_a_greeting_is_not_taken_for_the_opening():
    turn = ("Thanks, Priya! This scarf means a lot to me - my aunt knitted it in Tallinn, where I lived as a child. "
            "She taught me to knit the winter before I left. Every stitch brings back the evenings at her kitchen table "
            "and the stories she told while we worked. I wear it whenever I miss home.")
    excerpt = best_excerpt(turn, terms("who told you stories at the kitchen table?"), estimate_tokens, 55)
    assert "kitchen table" in excerpt and "Tallinn" in excerpt and "Thanks, Priya" not in excerpt


def test_a_date_next_to_the_match_wins_over_a_plain_sentence():
    turn = ("Hi Sam! Last Sunday [4 May 2024] was wonderful. We threw my son's birthday party at the lake with a "
            "picnic and a kite that would not fly. Everyone laughed all afternoon long. I am so grateful for days like that.")
    excerpt = best_excerpt(turn, terms("when was your son's birthday?"), estimate_tokens, 40)
    assert "[4 May 2024]" in excerpt and "birthday party" in excerpt and "laughed" not in excerpt


def test_found_by_meaning_alone_shows_the_opening():
    turn = "I moved here from Tallinn four years ago. " + "The winters are milder, and the sea is close. " * 8
    assert best_excerpt(turn, terms("where did you grow up?"), estimate_tokens, 30).startswith("I moved here from Tallinn")


def test_a_chinese_long_turn_is_cut_by_whole_sentences():
    turn = ("谢谢你，小林！我最近读完了陈安写的《盐之路》。这本书讲的是两姐妹在湖上开渡船的故事，结尾让我在火车上哭了。"
            "中间有点拖沓，不过最后一百页很值得。强烈推荐给喜欢你那本灯塔小说的人！")
    excerpt = best_excerpt(turn, terms("她推荐了哪本书？"), estimate_tokens, 70)
    assert "《盐之路》" in excerpt and "强烈推荐" in excerpt
    assert estimate_tokens(excerpt) <= 70
    whole = {s.text for s in sentences(turn)}
    for piece in excerpt.split(" "):
        assert piece == "…" or piece in whole  # every piece a whole sentence, ending in 。！？


def test_sentences_keep_list_markers_numbers_and_abbreviations_together():
    text = ("Prices went up by approx. 15 percent, e.g. the N'EX costs ¥3,070 now. My GPA was 3.83! Ask Mrs. Ito.\n"
            "- Take the 7:45 train.\n"
            "2) Keep the receipt. It helps later.\n"
            "我们去了海边。天气很好！你呢？我走了3.5公里!累了?")
    assert [s.text for s in sentences(text)] == [
        "Prices went up by approx. 15 percent, e.g. the N'EX costs ¥3,070 now.", "My GPA was 3.83!", "Ask Mrs. Ito.",
        "- Take the 7:45 train.", "2) Keep the receipt.", "It helps later.", "我们去了海边。", "天气很好！", "你呢？",
        "我走了3.5公里!", "累了?",
    ]
    items = [s for s in sentences(text) if s.item]
    assert [s.head for s in items] == [True, True, False]


def test_prefix_terms_match_a_word_family():
    assert matches("She plays the violin beautifully.", ["violi*"]) == 1
    assert matches("She plays the violin beautifully.", ["piano"]) == 0


@pytest.mark.parametrize("limit", [12, 20, 33, 60, 90, 140])
def test_the_limit_is_kept_in_both_languages(limit):
    chinese = "我们昨天去了博物馆。" * 6 + "那里有一幅很大的日落画！" + "回家的路上下雨了。" * 6
    for text, question in ((BAR_REPLY, "the fifth bottle"), (chinese, "日落画"), ("word " * 400, "word")):
        excerpt = best_excerpt(text, terms(question), estimate_tokens, limit)
        assert estimate_tokens(excerpt) <= limit + 2  # the gap marks may cost a token or two more
        assert excerpt.strip("… ")


def test_a_short_text_is_shown_whole():
    assert best_excerpt("I adopted a cat called Miso.\nShe is grey.", ["cat"], estimate_tokens, 60) == \
        "I adopted a cat called Miso. She is grey."


def test_a_list_in_little_room_shows_its_items_by_name():
    excerpt = best_excerpt(BAR_REPLY, terms("which five bottles did you say to buy for rum cocktails?"), estimate_tokens, 60)
    assert "1. Dark rum: … 2. Orange curaçao: … 3. Falernum: … 4. Angostura bitters: … 5. Chartreuse: …" in excerpt


def test_a_list_under_headings_is_shown_by_its_headings_and_items():
    reply = """Here are some resources that might help you understand sleep better:

**Books:**
1. **"Why We Sleep" by Matthew Walker**: A neuroscientist explains what sleep does for memory and mood, with many studies.
2. **"The Sleep Solution" by W. Chris Winter**: A practical guide to fixing habits that keep you awake at night.

**Podcasts:**
1. **Sleep With Me**: A host tells rambling, boring stories that help listeners drift off within minutes.

I hope one of these helps you rest better. Let me know if you want more ideas for your evening routine."""
    excerpt = best_excerpt(reply, terms("what resources to understand sleep did you suggest?"), estimate_tokens, 70)
    for name in ("**Books:**", "Why We Sleep", "The Sleep Solution", "**Podcasts:**", "Sleep With Me"):
        assert name in excerpt


def test_a_matching_list_item_is_read_on_not_taken_for_an_introduction():
    reply = ("Some ideas for the garden this spring:\n"
             "1. Tomatoes: Start the seeds indoors in March, six weeks before the last frost. Keep them by a sunny window.\n"
             "2. Basil: Sow it next to the tomatoes, it keeps pests away and tastes great with them.\n"
             "3. Marigolds: Bright flowers along the edges attract bees. They are easy to grow from seed.\n"
             "4. Lettuce: Plant it in the shade of taller plants so it does not bolt in the heat of summer.")
    excerpt = best_excerpt(reply, terms("when should I start the tomato seeds?"), estimate_tokens, 40)
    assert "Start the seeds indoors in March" in excerpt and "Keep them by a sunny window" in excerpt
