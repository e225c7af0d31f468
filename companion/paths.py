"""Where Companion keeps things: the home folder and its parts (platformdirs, or $COMPANION_HOME)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import platformdirs

APP_NAME = "companion"
MEMORY_DIRNAME = "companion-memory"
LONG_TERM_FILES = ("SOUL.md", "USER.md", "MEMORY.md")


@dataclass(frozen=True)
class Home:
    """All locations under one home folder; pass it around instead of globals."""

    root: Path

    @property
    def memory(self) -> Path:
        return self.root / MEMORY_DIRNAME

    @property
    def days(self) -> Path:
        return self.memory / "days"

    @property
    def digests(self) -> Path:
        return self.memory / "digests"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def history(self) -> Path:
        return self.state / "history"

    @property
    def scratch(self) -> Path:
        """Work folders of imports; what a killed process left here is removed at the next start."""
        return self.state / "scratch"

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def settings_file(self) -> Path:
        return self.root / "settings.toml"

    @property
    def reminder_state(self) -> Path:
        """The reminders already shown (their text: forget-everywhere erases it there too)."""
        return self.state / "reminders.json"

    @property
    def lock_file(self) -> Path:
        return self.state / "companion.lock"

    def long_term(self, name: str) -> Path:
        return self.memory / name


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Home:
    """The home folder: an explicit path, else $COMPANION_HOME, else platformdirs."""
    if explicit:
        return Home(Path(explicit).expanduser().resolve())
    env = os.environ.get("COMPANION_HOME")
    if env:
        return Home(Path(env).expanduser().resolve())
    return Home(Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)))


def resources_dir() -> Path:
    """The `resources/` folder, from a source tree or a frozen bundle."""
    frozen_root = getattr(sys, "_MEIPASS", None)
    candidates = [Path(frozen_root) / "resources"] if frozen_root else []
    candidates.append(Path(__file__).resolve().parent.parent / "resources")
    candidates.append(Path(sys.prefix) / "share" / APP_NAME / "resources")
    for candidate in candidates:
        if (candidate / "templates").is_dir():
            return candidate
    raise FileNotFoundError("Companion's resources folder is missing; reinstall Companion.")
