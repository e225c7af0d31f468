"""User settings in settings.toml: read with tomllib, written atomically, versioned."""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from companion.errors import SchemaVersionError, SettingsError
from companion.atomic import atomic_write

SETTINGS_VERSION = 1


@dataclass
class ModelSettings:
    path: str = ""  # empty: the embedded default model
    n_ctx: int = 4096
    n_threads: int = 0  # 0: physical cores
    n_gpu_layers: int = -2  # -2: auto (as many as fit), 0: CPU, -1: all layers, N: that many
    chat_format: str = ""  # empty: the model's own template
    max_reply_tokens: int = 512
    temperature: float = 0.7
    library: list[str] = field(default_factory=list)  # GGUF files added from outside models/
    backend: str = "llama"  # "llama": in-process; "openai": an OpenAI-compatible server
    base_url: str = ""  # e.g. http://127.0.0.1:8080/v1 (llama-server), http://localhost:11434/v1 (Ollama)
    model_name: str = ""  # the server's model id; empty: the first one it lists
    remote_timeout_s: int = 120  # longest wait for the server's first token
    remote_n_ctx: int = 0  # 0: ask the server, else 4096
    offer_declined: str = ""  # key of the recommended model the user said no to: the offer is not shown again


@dataclass
class MemorySettings:
    prompt_budget_tokens: int = 1500  # long-term files + recalled snippets
    history_keep: int = 200  # snapshots kept per long-term file
    auto_learn: bool = True  # learn facts from the last exchange between nights
    # recalled memories may add about this long to the wait for the first word: the model's measured
    # reading speed sizes the recall block (a GPU reads the whole budget in that time, a small CPU a few lines)
    recall_seconds: float = 0.5


@dataclass
class SleepSettings:
    time: str = "03:00"
    enabled: bool = True


@dataclass
class WindowSettings:
    keep_in_tray: bool = False  # closing the window leaves Companion in the tray (nightly sleep, reminders)
    tray_asked: bool = False  # the user was asked once, on the first close
    theme: str = "system"  # "system", "light" or "dark"
    font_size: int = 0  # points; 0: the system's size


@dataclass
class SharingSettings:
    """What the user's other assistants may read over MCP (`companion mcp`): nothing until allowed.

    One line per agent, "name: scope scope ...", scopes from agent/sharing.py SCOPES."""

    agents: list[str] = field(default_factory=list)
    http_port: int = 8765  # `companion mcp --http` listens on 127.0.0.1 only


@dataclass
class Settings:
    model: ModelSettings = field(default_factory=ModelSettings)
    memory: MemorySettings = field(default_factory=MemorySettings)
    sleep: SleepSettings = field(default_factory=SleepSettings)
    window: WindowSettings = field(default_factory=WindowSettings)
    sharing: SharingSettings = field(default_factory=SharingSettings)
    extra: dict[str, Any] = field(default_factory=dict)  # tables this version does not know

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"schema_version": SETTINGS_VERSION}
        for name in _TABLES:
            section = getattr(self, name)
            data[name] = {f.name: getattr(section, f.name) for f in fields(section)}
        data.update(self.extra)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Settings":
        version = data.get("schema_version", SETTINGS_VERSION)
        if isinstance(version, int) and version > SETTINGS_VERSION:
            raise SchemaVersionError("settings.toml was written by a newer Companion; update Companion.")
        settings = cls()
        for name, kind in _TABLES.items():
            table = data.get(name, {})
            if not isinstance(table, dict):
                continue
            known = {f.name: f for f in fields(kind)}
            values = {}
            defaults = kind()
            for key, value in table.items():
                if key in known and _fits(value, getattr(defaults, key)):
                    values[key] = float(value) if isinstance(getattr(defaults, key), float) else value
            setattr(settings, name, kind(**values))
        settings.extra = {k: v for k, v in data.items() if k != "schema_version" and k not in _TABLES}
        return settings


def _fits(value: Any, default: Any) -> bool:
    """Whether a value read from settings.toml can stand for `default` (true is not a number, nan is not a temperature)."""
    if isinstance(default, bool) or isinstance(value, bool):
        return type(value) is type(default)
    if isinstance(default, float):
        return isinstance(value, (int, float)) and math.isfinite(value)
    if isinstance(default, list):
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    return isinstance(value, type(default))


_TABLES: dict[str, type] = {"model": ModelSettings, "memory": MemorySettings, "sleep": SleepSettings,
                            "window": WindowSettings, "sharing": SharingSettings}


def load_settings(path: Path) -> Settings:
    """Defaults when the file is missing; SettingsError naming the problem when it is broken."""
    if not path.exists():
        return Settings()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path} is not valid TOML ({exc}). Fix or delete it to use the defaults.") from exc
    return Settings.from_dict(data)


def save_settings(path: Path, settings: Settings) -> None:
    atomic_write(path, dumps_toml(settings.to_dict()))


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')
_SURROGATE = re.compile("[\ud800-\udfff]")
_BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def _toml_string(value: str) -> str:
    """A TOML basic string: every control character escaped (a raw one makes the file unreadable)."""
    value = _SURROGATE.sub("\ufffd", value)  # not storable in TOML (a file name that was not UTF-8)
    escaped = _NEEDS_ESCAPE.sub(lambda m: _ESCAPES.get(m.group(), f"\\u{ord(m.group()):04x}"), value)
    return f'"{escaped}"'


def _toml_key(key: str) -> str:
    return key if _BARE_KEY.match(key) else _toml_string(key)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise SettingsError(f"Cannot store {type(value).__name__} in settings.toml")


def dumps_toml(data: dict[str, Any]) -> str:
    """TOML for flat scalars and one level of tables (all settings.toml needs)."""
    lines = [f"{_toml_key(k)} = {_toml_value(v)}" for k, v in data.items() if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines.append(f"\n[{_toml_key(key)}]")
            lines.extend(f"{_toml_key(k)} = {_toml_value(v)}" for k, v in table.items() if not isinstance(v, dict))
    return "\n".join(lines) + "\n"
