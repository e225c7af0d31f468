"""`companion chat` on the real embedded model, scripted through stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from companion.paths import Home
from companion.settings import Settings, save_settings

pytestmark = pytest.mark.model


def test_piped_chat_lands_in_the_day_log(tmp_path):
    env = {**os.environ, "COMPANION_HOME": str(tmp_path / "h")}
    settings = Settings()
    settings.model.max_reply_tokens = 12  # short replies: the test never waits on a free-running answer
    save_settings(Home(tmp_path / "h").settings_file, settings)
    stdin = "Hello! My name is Ana.\nremember that I like green tea\n/quit\n"
    out = subprocess.run(
        [sys.executable, "-m", "companion", "chat", "--ctx", "2048"],
        input=stdin, capture_output=True, text=True, env=env, timeout=180,
    )
    assert out.returncode == 0, out.stderr
    assert "companion>" in out.stdout and "[memory] Saved to long-term memory" in out.stdout
    logs = list((tmp_path / "h" / "companion-memory" / "days").rglob("*.jsonl"))
    records = [json.loads(l) for l in logs[0].read_text(encoding="utf-8").splitlines()]
    roles = [r["role"] for r in records if r["role"] != "event"]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert all(r["text"] for r in records)
    profile = (tmp_path / "h" / "companion-memory" / "USER.md").read_text(encoding="utf-8")
    assert "- Likes green tea (" in profile  # a preference lives in the profile, with its source
    assert "[memory] Saved to long-term memory (USER.md): Likes green tea" in out.stdout


def test_help_lists_subcommands():
    out = subprocess.run([sys.executable, "-m", "companion", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "chat" in out.stdout


def test_missing_model_is_a_clear_error(tmp_path):
    env = {**os.environ, "COMPANION_HOME": str(tmp_path / "h")}
    out = subprocess.run(
        [sys.executable, "-m", "companion", "chat", "--model", str(tmp_path / "nope.gguf")],
        input="", capture_output=True, text=True, env=env, timeout=60,
    )
    assert out.returncode == 2 and "does not exist" in out.stderr
