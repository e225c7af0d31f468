"""Create a home folder on first start: memory folder from templates, state, models."""

from __future__ import annotations

from pathlib import Path

from companion.atomic import atomic_write, remove_stale_temp_files
from companion.paths import LONG_TERM_FILES, Home, resources_dir

SEED_FILES = (*LONG_TERM_FILES, "SKILL.md")


def template_text(name: str) -> str:
    return (resources_dir() / "templates" / name).read_text(encoding="utf-8")


def ensure_home(home: Home) -> list[Path]:
    """Make every folder and seed missing files; never touches existing ones. Returns what it created."""
    created: list[Path] = []
    for folder in (home.root, home.memory, home.days, home.digests, home.state, home.history, home.models):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # private; an existing folder keeps its mode
    for name in SEED_FILES:
        target = home.memory / name
        if not target.exists():
            atomic_write(target, template_text(name))
            created.append(target)
    remove_stale_temp_files(home.memory)
    remove_stale_temp_files(home.state)
    return created
