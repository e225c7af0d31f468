"""Create a home folder on first start: memory folder from templates (in the user's language), state, models."""

from __future__ import annotations

from pathlib import Path

from companion.atomic import atomic_write, remove_stale_temp_files
from companion.memory.section_names import normalize_language, system_language
from companion.memory.swap import recover
from companion.paths import LONG_TERM_FILES, Home, resources_dir

SEED_FILES = (*LONG_TERM_FILES, "SKILL.md")


def template_text(name: str, language: str = "en") -> str:
    """A template; the translated one under templates/<language>/ when there is one."""
    folder = resources_dir() / "templates"
    translated = folder / normalize_language(language) / name
    return (translated if language != "en" and translated.is_file() else folder / name).read_text(encoding="utf-8")


def ensure_home(home: Home, language: str | None = None, *, clean: bool = False) -> list[Path]:
    """Make every folder and seed missing files; never touches existing ones. Returns what it created.

    `language` (a locale name such as 'zh_CN') picks the templates; by default the system's.
    `clean` (only under the home's exclusive lock) also removes what interrupted writes left behind."""
    chosen = normalize_language(language) if language else system_language()
    created: list[Path] = []
    recover(home, clean=clean)  # before anything is created: a cut-off import may put the memory folder back
    for folder in (home.root, home.memory, home.days, home.digests, home.state, home.history, home.models):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)  # private; an existing folder keeps its mode
    for name in SEED_FILES:
        target = home.memory / name
        if not target.exists():
            atomic_write(target, template_text(name, chosen))
            created.append(target)
    if clean:
        remove_stale_temp_files(home.memory)
        remove_stale_temp_files(home.state)
    return created
