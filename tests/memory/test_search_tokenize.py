"""Index terms for English and CJK text."""

from __future__ import annotations

from hypothesis import given, strategies as st

from companion.memory.search.tokenize import index_terms, query_terms, stem


def test_english_words_are_lowercased_stemmed_and_stopwords_dropped():
    assert index_terms("The Cats were RUNNING to cafés") == ["cat", "run", "café"]
    assert query_terms("what is my cat's name") == ["cat", "name"]
    assert query_terms("Melanie's kids") == ["melanie", "kid"] and index_terms("Melanie's") == ["melanie"]


def test_stemmer_keeps_short_words_and_common_endings_apart():
    assert stem("bus") == "bus" and stem("glass") == "glass"
    assert stem("studies") == "study" and stem("planned") == "plan" and stem("boxes") == "box"


def test_chinese_is_cut_into_bigrams_so_words_match_inside_sentences():
    terms = index_terms("我今天喝了一杯咖啡")
    assert "咖啡" in terms and "一杯" in terms
    assert query_terms("咖啡") == ["咖啡"]
    assert query_terms("猫") == ["猫"]  # a lone character is still searchable
    assert "猫" in index_terms("我家的猫很可爱")


def test_mixed_scripts():
    assert query_terms("Lisbon 里斯本") == ["lisbon", "里斯", "斯本"]


@given(st.text(max_size=200))
def test_terms_never_fail_and_query_terms_are_distinct(text):
    terms = index_terms(text)
    assert all(t and " " not in t for t in terms)
    q = query_terms(text)
    assert len(q) == len(set(q))


def test_irregular_forms_meet_their_base():
    assert index_terms("We went to Rome and bought shoes") == query_terms("go Rome buy shoes")
    assert query_terms("children lost") == ["child", "lose"]
    assert index_terms("I lost my job") == ["lose", "job"]


def test_digits_beside_chinese_are_their_own_term():
    terms = index_terms("那是我18岁生日，第3次去2023年的展会")
    assert {"18", "生日", "3", "2023", "展会"} <= set(terms)
    assert query_terms("COVID-19疫苗") == ["covid", "19", "疫苗"]
    assert query_terms("3D打印") == ["3d", "打印"]
