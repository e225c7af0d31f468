"""Conflict copies found by the exact names Syncthing, Dropbox, Nextcloud/ownCloud and iCloud give them."""

from __future__ import annotations

import pytest

from companion.memory.conflicts import copies_in, original_name

NAMED = [
    # Syncthing: <stem>.sync-conflict-<YYYYMMDD>-<HHMMSS>-<first 7 of the device ID><.ext>
    ("USER.sync-conflict-20261201-101530-ABCDEF7.md", "USER.md", "Syncthing"),
    ("2026-12-01.sync-conflict-20261201-101530-Q2ZB7XY.jsonl", "2026-12-01.jsonl", "Syncthing"),
    ("2026-12-01.k3fq.sync-conflict-20261201-101530-Q2ZB7XY.jsonl", "2026-12-01.k3fq.jsonl", "Syncthing"),
    ("sleep-lock.sync-conflict-20261201-030001-ABCDEF7.json", "sleep-lock.json", "Syncthing"),
    # Dropbox: "<stem> (<who>'s conflicted copy <YYYY-MM-DD>)<.ext>", older clients without the owner
    ("USER (Lea's conflicted copy 2026-12-01).md", "USER.md", "Dropbox"),
    ("MEMORY (conflicted copy 2026-12-01).md", "MEMORY.md", "Dropbox"),
    ("USER (Lea's conflicted copy 2026-12-01 (1)).md", "USER.md", "Dropbox"),
    ("2026-12-01 (MacBook-Pro's conflicted copy 2026-12-01).jsonl", "2026-12-01.jsonl", "Dropbox"),
    # Nextcloud desktop: "<stem> (conflicted copy <YYYY-MM-DD> <HHMMSS>)<.ext>", newer with the user's name
    ("USER (conflicted copy 2026-12-01 101530).md", "USER.md", "Nextcloud"),
    ("SOUL (conflicted copy lea 2026-12-01 101530).md", "SOUL.md", "Nextcloud"),
    ("2026-12-01 (conflicted copy 2026-12-01 220501).jsonl", "2026-12-01.jsonl", "Nextcloud"),
    # ownCloud 2.x: "<stem>_conflict-<YYYYMMDD>-<HHMMSS><.ext>"
    ("USER_conflict-20261201-101530.md", "USER.md", "Nextcloud"),
    # iCloud Drive: "<stem> 2<.ext>"
    ("USER 2.md", "USER.md", "iCloud"),
    ("2026-12-01 3.jsonl", "2026-12-01.jsonl", "iCloud"),
    ("2026-12-01.k3fq 2.jsonl", "2026-12-01.k3fq.jsonl", "iCloud"),
]


@pytest.mark.parametrize("copy, original, tool", NAMED)
def test_each_tools_copy_names_its_original(copy, original, tool):
    assert original_name(copy) == (original, tool)


@pytest.mark.parametrize("name", [
    "USER.md", "SKILL.md", "2026-12-01.jsonl", "2026-12-01.k3fq.jsonl", "2026-W48.md", "2026.md",
    "USER (draft).md", "USER 1.md", "notes.sync-conflict.md", "USER.sync-conflict-2026-ABC.md",
])
def test_ordinary_names_are_no_copies(name):
    assert original_name(name) is None


def test_copies_in_a_folder_of_the_wanted_originals(tmp_path):
    for name in ["USER.md", "USER 2.md", "MEMORY (conflicted copy 2026-12-01 101530).md", "Report 2.md", "SOUL.md"]:
        (tmp_path / name).write_text("x")
    found = copies_in(tmp_path, {"USER.md", "MEMORY.md", "SOUL.md"})
    assert sorted((c.path.name, c.original.name, c.tool) for c in found) == [
        ("MEMORY (conflicted copy 2026-12-01 101530).md", "MEMORY.md", "Nextcloud"),
        ("USER 2.md", "USER.md", "iCloud"),
    ]
