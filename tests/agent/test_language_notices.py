"""The memory speaks the user's language: in a Chinese home its notices, the persona it writes by
default and the morning report are Chinese; an English home keeps English."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from companion.curate.requests import MemoryRequests
from companion.memory.daylog import DayLog
from companion.memory.longterm import LongTermStore
from companion.memory.setup import ensure_home
from companion.paths import Home
from companion.sleep.job import SleepJob


def _store(home: Home, language: str) -> LongTermStore:
    ensure_home(home, language)
    return LongTermStore(home)


def test_notices_and_persona_defaults_in_a_chinese_home(tmp_path: Path) -> None:
    requests = MemoryRequests(_store(Home(tmp_path / "zh"), "zh"))
    saved = requests.remember("我对花生过敏", "2026-11-29#1", said="记住我对花生过敏")
    assert saved.note.startswith("已存入长期记忆（USER.md）：对花生过敏")
    again = requests.remember("我对花生过敏", "2026-11-29#2", said="记住我对花生过敏")
    assert again.note.startswith("记忆里已经有了")
    notes = requests.bootstrap("我叫小林", "2026-11-29#3", 3)
    assert notes[0] == "已存入用户档案：Name: 小林"
    assert notes[-1].startswith("你的人设已设置")
    soul = requests.store.read("SOUL.md").body
    assert "温暖、好奇、诚实" in soul and "友好、清楚、简洁" in soul and "Warm, curious" not in soul
    assert requests.propose_forget("花生").note.startswith("记忆里找到这些")


def test_an_english_home_keeps_english(home: Home) -> None:
    requests = MemoryRequests(_store(home, "en"))
    assert requests.remember("I'm allergic to peanuts", "2026-11-29#1").note.startswith("Saved to long-term memory (USER.md)")
    notes = requests.bootstrap("Call me Sam", "2026-11-29#2", 3)
    assert notes[-1].startswith("Your persona is set") and "Warm, curious" in requests.store.read("SOUL.md").body


def test_the_morning_report_in_a_chinese_home(tmp_path: Path) -> None:
    home = Home(tmp_path / "zh")
    store = _store(home, "zh")
    now = [datetime(2026, 11, 29, 9, tzinfo=timezone.utc)]
    log = DayLog(home.days, lambda: now[0])
    log.append("user", "我住在杭州，我每周三晚上去打羽毛球。")
    now[0] += timedelta(days=1)
    report = SleepJob(home, None, clock=lambda: now[0], store=store).run()
    assert report.language == "zh" and report.summary().startswith("睡眠：从 1 天的对话中对记忆做了 2 处修改")
    assert report.render().startswith("# 我学到了什么")
    body = store.read("USER.md").body
    assert "住在杭州" in body and "每周三晚上去打羽毛球" in body  # the habit keeps its recurrence, no date
