"""`companion sync`: the state of a synced folder, and merging its conflict copies on request."""

from __future__ import annotations

from companion.cli import main
from companion.memory.daylog import DayLog
from tests.syncsim import conflict_name, two_computers


def test_an_unsynced_home_says_so(home, capsys):
    assert main(["--home", str(home.root), "sync"]) == 0
    assert "not synced" in capsys.readouterr().out


def test_a_synced_home_shows_its_computers_and_merges_on_request(tmp_path, capsys):
    laptop, desktop = two_computers(tmp_path, "Nextcloud")
    DayLog(laptop.home.days, laptop.clock).append("user", "hello from the laptop")
    tag = DayLog(laptop.home.days).device
    user = laptop.home.memory / "USER.md"
    (user.parent / conflict_name("USER.md", "Nextcloud")).write_text(user.read_text() + "- Plays the cello\n")
    assert main(["--home", str(laptop.home.root), "sync"]) == 0
    out = capsys.readouterr().out
    assert f"This computer: {tag}; sync tool: Nextcloud" in out and "Conflict copies waiting: yes" in out
    assert main(["--home", str(laptop.home.root), "sync", "--merge"]) == 0
    assert "Merged 1 conflict copy" in capsys.readouterr().out
    assert "Plays the cello" in user.read_text()
    assert not list(user.parent.glob("USER (conflicted copy*"))
