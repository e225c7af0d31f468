"""API keys for model servers: the OS keyring when it works, else a file only the user can read."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from companion.errors import StorageError
from companion.atomic import atomic_write
from companion.paths import Home

log = logging.getLogger(__name__)
SERVICE = "companion-model-server"
ENV_VAR = "COMPANION_API_KEY"


class KeyStore:
    """Keys by server base URL. `use_keyring=False` keeps everything in state/api_keys.json (mode 0600)."""

    def __init__(self, home: Home, use_keyring: bool = True) -> None:
        self.file: Path = home.state / "api_keys.json"
        self._keyring = _keyring() if use_keyring else None

    @property
    def location(self) -> str:
        return "the system keyring" if self._keyring is not None else str(self.file)

    def get(self, base_url: str) -> str:
        env = os.environ.get(ENV_VAR, "")
        if env:
            return env
        if self._keyring is not None:
            try:
                value = self._keyring.get_password(SERVICE, base_url)
                if value:
                    return str(value)
            except Exception as exc:  # keyring backends raise their own types (dbus, locked vault...)
                log.warning("Cannot read the system keyring (%s); using %s", exc, self.file)
        return str(self._read_file().get(base_url, ""))

    def set(self, base_url: str, key: str) -> None:
        """Store (or with an empty key, delete) the key for this server."""
        if self._keyring is not None:
            try:
                if key:
                    self._keyring.set_password(SERVICE, base_url, key)
                else:
                    self._delete_keyring(base_url)
                self._write_file_without(base_url)
                return
            except Exception as exc:  # no usable keyring backend: fall back to the private file
                log.warning("Cannot use the system keyring (%s); storing the key in %s", exc, self.file)
                self._keyring = None
        data = self._read_file()
        if key:
            data[base_url] = key
        else:
            data.pop(base_url, None)
        self._write(data)

    def _delete_keyring(self, base_url: str) -> None:
        assert self._keyring is not None
        try:
            self._keyring.delete_password(SERVICE, base_url)
        except Exception:  # nothing stored: fine
            pass

    def _write_file_without(self, base_url: str) -> None:
        data = self._read_file()
        if base_url in data:
            data.pop(base_url)
            self._write(data)

    def _read_file(self) -> dict[str, str]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise StorageError(f"{self.file} cannot be read ({exc}). Delete it and enter the API key again.") from exc
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}

    def _write(self, data: dict[str, str]) -> None:
        atomic_write(self.file, json.dumps(data, indent=2))  # mkstemp creates the file with mode 0600
        try:
            os.chmod(self.file, 0o600)
        except OSError:
            pass


def _keyring():  # -> keyring module or None
    try:
        import keyring
        from keyring.backends import fail
    except ImportError:
        return None
    try:
        if isinstance(keyring.get_keyring(), fail.Keyring):
            return None
    except Exception:
        return None
    return keyring
