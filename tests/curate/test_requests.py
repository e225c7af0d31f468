"""Requests recognised by rule."""

from __future__ import annotations

import pytest

from companion.curate.requests import bootstrap_answers, memory_request, third_person


@pytest.mark.parametrize("text,kind,payload", [
    ("Remember that I'm allergic to nuts.", "remember", "The user is allergic to nuts"),
    ("please remember: my bike is blue", "remember", "The user's bike is blue"),
    ("记住：我的生日是五月三日", "remember", "用户的生日是五月三日"),
    ("请记住我住在上海。", "remember", "用户住在上海"),
    ("Forget about the dentist", "forget", "the dentist"),
    ("忘掉咖啡", "forget", "咖啡"),
])
def test_memory_requests(text, kind, payload):
    request = memory_request(text)
    assert request is not None and request.kind == kind and request.text == payload


@pytest.mark.parametrize("text", ["I remember that day", "Do you remember me?", "hello", "remember"])
def test_not_requests(text):
    assert memory_request(text) is None


def test_bootstrap_answers_english_and_chinese():
    answers = bootstrap_answers("Hi! My name is Ana. Call yourself Mo and keep it short, please.")
    assert answers.user_name == "Ana" and answers.companion_name == "Mo"
    assert answers.styles == ("Keep replies short and to the point.",)
    zh = bootstrap_answers("我叫小明，你就叫小助手吧，说话简洁一点")
    assert (zh.user_name, zh.companion_name) == ("小明", "小助手")
    assert zh.styles


def test_third_person():
    assert third_person("I am from Graz and my dog is Rex") == "The user is from Graz and the user's dog is Rex"


@pytest.mark.parametrize("fact,expected", [
    ("I like green tea", "The user likes green tea"),
    ("I have two cats", "The user has two cats"),
    ("I go running on Sundays", "The user goes running on Sundays"),
    ("I work as a nurse", "The user works as a nurse"),
])
def test_third_person_verb_agreement(fact, expected):
    assert third_person(fact) == expected
