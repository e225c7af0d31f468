"""Download a GGUF from Hugging Face into models/: progress, cancel, resume, free-disk check, checksum."""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import re
import shutil
import socket
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urljoin, urlsplit

from companion.errors import DownloadCancelled, DownloadError, ModelError, StorageError
from companion.llm.gguf import read_gguf
from companion.atomic import atomic_write, describe_os_error

Progress = Callable[[int, int], None]  # (bytes done, bytes total)
CHUNK = 1024 * 1024
DISK_MARGIN = 200 * 2**20  # keep this much free after the download
DISK_CHECK_BYTES = 64 * 2**20  # free space is looked at again after this many bytes
RETRIES = 2  # automatic resumes after a dropped connection
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
MAX_REDIRECTS = 5
_REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]{0,95}/[A-Za-z0-9][\w.-]{0,95}$")
_FILE_PART = re.compile(r"^[\w.+ -]{1,200}$")
_REVISION = re.compile(r"^[\w.-]{1,100}$")


def check_remote_names(repo_id: str, filename: str, revision: str = "main") -> None:
    """Refuse names that would change the Hub request's path (dot segments, slashes, ? # %, controls)."""
    if not _REPO_ID.match(repo_id) or ".." in repo_id:
        raise DownloadError(f"{repo_id!r} is not a Hugging Face repository name like 'Qwen/Qwen2.5-0.5B-Instruct-GGUF'.")
    parts = filename.split("/")
    if any(part in (".", "..") or not _FILE_PART.match(part) for part in parts):
        raise DownloadError(f"{filename!r} is not a file name in a repository (letters, digits, . _ - + and / only).")
    if not _REVISION.match(revision) or ".." in revision:
        raise DownloadError(f"{revision!r} is not a branch, tag or commit name.")


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default


def follow_redirect(current: str, location: str) -> str:
    """Where a redirect leads; never from https to plain http, never off the web."""
    target = urljoin(current, location)
    scheme = urlsplit(target).scheme.lower()
    if scheme not in ("http", "https"):
        raise DownloadError(f"The download server redirected to an unsupported address ({target[:100]}).")
    if _origin(current)[0] == "https" and scheme == "http":
        raise DownloadError("The download server redirected from https to plain http; refused to keep the download private.")
    return target


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects come back as errors, so each hop gets its own headers (the token only for the Hub)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass
class RemoteFile:
    url: str  # where the bytes are (after the Hub's redirect)
    size: int | None
    sha256: str | None  # the Hub's ETag of LFS files is their SHA-256


def hub_endpoint(explicit: str | None = None) -> str:
    """The Hub address; $HF_ENDPOINT (read now, not at import) points at a mirror or a test server."""
    from huggingface_hub import constants

    return (explicit or os.environ.get("HF_ENDPOINT") or constants.ENDPOINT).rstrip("/")


def resolve(repo_id: str, filename: str, revision: str = "main", token: str | None = None,
            endpoint: str | None = None) -> RemoteFile:
    """Ask the Hub for the file's size, checksum and location (translating its errors)."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub import errors as hf_errors

    check_remote_names(repo_id, filename, revision)
    base = hub_endpoint(endpoint)
    url = hf_hub_url(repo_id, filename, revision=revision, endpoint=base)
    try:
        meta = get_hf_file_metadata(url, token=token or None, endpoint=base)  # None: HF_TOKEN or a saved login
    except hf_errors.GatedRepoError as exc:
        raise DownloadError(f"{repo_id} is gated: accept its license on huggingface.co and sign in with a token.") from exc
    except hf_errors.RepositoryNotFoundError as exc:
        raise DownloadError(f"There is no repository '{repo_id}' on {base} (or it is private).") from exc
    except (hf_errors.EntryNotFoundError, hf_errors.RemoteEntryNotFoundError) as exc:
        raise DownloadError(f"{repo_id} has no file '{filename}'. Check the file name (it is case-sensitive).") from exc
    except hf_errors.RevisionNotFoundError as exc:
        raise DownloadError(f"{repo_id} has no revision '{revision}'.") from exc
    except hf_errors.HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", None)
        if status == 404:
            raise DownloadError(
                f"{base} has no file '{filename}' in '{repo_id}'. Check both names (they are case-sensitive)."
            ) from exc
        if status in (401, 403):
            raise DownloadError(
                f"{repo_id} needs a Hugging Face login: run `hf auth login` or set HF_TOKEN, then try again."
            ) from exc
        first_line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise DownloadError(f"The Hub refused the request for {repo_id}/{filename}: {first_line}") from exc
    except (OSError, ValueError) as exc:
        raise DownloadError(f"Cannot reach {base}: {exc}. Check your internet connection.") from exc
    except Exception as exc:  # the Hub client's HTTP library raises its own connection errors
        if "connect" in type(exc).__name__.lower() or "timeout" in type(exc).__name__.lower():
            raise DownloadError(f"Cannot reach {base}. Check your internet connection.") from exc
        raise
    etag = (meta.etag or "").lower()
    location = follow_redirect(url, meta.location) if meta.location else url
    return RemoteFile(url=location, size=meta.size, sha256=etag if _SHA256.match(etag) else None)


class Downloader:
    """One download; `cancel()` may be called from any thread and stops within one chunk."""

    def __init__(self, models_dir: Path, token: str | None = None, endpoint: str | None = None, timeout: float = 30.0) -> None:
        self.models_dir = models_dir
        self.token = token
        self.endpoint = endpoint
        self.timeout = timeout
        self._cancel = threading.Event()
        self.verified = False  # whether the last download's SHA-256 was checked against the Hub's

    def cancel(self) -> None:
        self._cancel.set()

    def partial_path(self, filename: str) -> Path:
        return self.models_dir / f".{Path(filename).name}.part"

    def download(self, repo_id: str, filename: str, revision: str = "main", progress: Progress | None = None) -> Path:
        """The downloaded file in models/ (checked: size, SHA-256, GGUF header). Resumes a partial file."""
        name = Path(filename).name
        if not name.lower().endswith(".gguf"):
            raise DownloadError(f"'{filename}' is not a .gguf file. Companion runs GGUF models.")
        check_remote_names(repo_id, filename, revision)
        self._cancel.clear()
        self.verified = False
        remote = resolve(repo_id, filename, revision, self.token, self.endpoint)
        target = self.models_dir / name
        if self._reusable(target, remote):
            return target
        self.models_dir.mkdir(parents=True, exist_ok=True)
        partial = self.partial_path(name)
        self._forget_stale_partial(partial, remote)
        self._check_disk(partial, remote)
        for attempt in range(RETRIES + 1):
            try:
                self._transfer(remote, partial, progress)
                break
            except _Interrupted as exc:
                if attempt == RETRIES:
                    raise DownloadError(
                        f"The download of {name} keeps breaking off ({exc}). The part already downloaded is kept: "
                        "start it again to resume."
                    ) from exc
        self._verify(partial, remote, name)
        try:
            os.replace(partial, target)
        except OSError as exc:
            raise StorageError(describe_os_error(exc, target)) from exc
        self._sidecar(partial).unlink(missing_ok=True)
        return target

    # -- steps ---------------------------------------------------------------

    def _reusable(self, target: Path, remote: RemoteFile) -> bool:
        """An existing file of the same size counts only once its checksum (or, without one, its header) checks out."""
        if not target.exists() or remote.size is None or target.stat().st_size != remote.size:
            return False
        if remote.sha256 is not None:
            self.verified = sha256_file(target, self._cancel) == remote.sha256
            return self.verified
        try:
            read_gguf(target)
        except ModelError:
            return False
        return True

    def _headers(self, url: str, have: int) -> dict[str, str]:
        """The Hub's headers; the token only when `url` is on the Hub's own origin."""
        from huggingface_hub.utils import build_hf_headers

        headers = dict(build_hf_headers(token=self.token or None))
        if _origin(url) != _origin(hub_endpoint(self.endpoint)):
            headers = {k: v for k, v in headers.items() if k.lower() != "authorization"}
        headers["Accept-Encoding"] = "identity"
        if have:
            headers["Range"] = f"bytes={have}-"
        return headers

    def _open(self, url: str, have: int) -> Any:
        """The response for `url`, following redirects hop by hop (None: the range is already complete)."""
        for _hop in range(MAX_REDIRECTS + 1):
            request = urllib.request.Request(url, headers=self._headers(url, have))
            try:
                return _OPENER.open(request, timeout=self.timeout)
            except urllib.error.HTTPError as exc:
                location = exc.headers.get("Location") if exc.code in (301, 302, 303, 307, 308) else None
                exc.close()
                if location:
                    url = follow_redirect(url, location)
                    continue
                if exc.code == 416 and have:  # the server says the range is past the end: the file is complete
                    return None
                raise DownloadError(f"The server refused the download ({exc.code} {exc.reason}).") from exc
            except (urllib.error.URLError, OSError) as exc:
                raise _Interrupted(str(getattr(exc, "reason", exc))) from exc
        raise DownloadError(f"The download server redirected more than {MAX_REDIRECTS} times; stopped.")

    @staticmethod
    def _sidecar(partial: Path) -> Path:
        return partial.with_name(partial.name + ".json")

    def _forget_stale_partial(self, partial: Path, remote: RemoteFile) -> None:
        """A partial file from another version of the file would corrupt the result: start over."""
        sidecar = self._sidecar(partial)
        try:
            previous: dict[str, Any] = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            previous = {}
        same = previous.get("sha256") == remote.sha256 and previous.get("size") == remote.size
        if partial.exists() and not same:
            partial.unlink()
        atomic_write(sidecar, json.dumps({"sha256": remote.sha256, "size": remote.size, "url": remote.url}))

    def _check_disk(self, partial: Path, remote: RemoteFile) -> None:
        if remote.size is None:
            return
        have = partial.stat().st_size if partial.exists() else 0
        self._need_space(remote.size - have)

    def _need_space(self, need: int) -> None:
        free = shutil.disk_usage(self.models_dir).free
        if need + DISK_MARGIN > free:
            raise DownloadError(
                f"Not enough disk space: the model needs {need / 2**30:.2f} GB more and only {free / 2**30:.2f} GB "
                f"is free in {self.models_dir}. Free some space and try again."
            )

    def _transfer(self, remote: RemoteFile, partial: Path, progress: Progress | None) -> None:
        """Append to `partial` until it has the advertised size, never past it; free space is checked
        before the first byte and again every DISK_CHECK_BYTES (a file of unknown size included)."""
        have = partial.stat().st_size if partial.exists() else 0
        total = remote.size or 0
        if total and have >= total:
            return
        response = self._open(remote.url, have)
        if response is None:
            return
        with response:
            mode = "ab" if have and response.status == 206 else "wb"
            done = have if mode == "ab" else 0
            sent = _content_length(response)
            if total and sent is not None and done + sent > total:
                raise DownloadError(
                    f"The server is sending {done + sent} bytes for a file it announced as {total}; stopped before "
                    "writing anything. Try again later or choose another file."
                )
            if not total and sent is not None:
                self._need_space(sent)
            checked = done
            try:
                with open(partial, mode) as out:
                    while True:
                        if self._cancel.is_set():
                            raise DownloadCancelled("Download stopped. Start it again to resume where it stopped.")
                        chunk = response.read(min(CHUNK, total - done + 1) if total else CHUNK)
                        if not chunk:
                            break
                        if total and done + len(chunk) > total:
                            raise _TooLong(total)
                        out.write(chunk)
                        done += len(chunk)
                        if done - checked >= DISK_CHECK_BYTES:
                            self._need_space(max(total - done, 0))
                            checked = done
                        if progress is not None:
                            progress(done, total)
                    out.flush()
                    os.fsync(out.fileno())
            except _TooLong as exc:
                partial.unlink(missing_ok=True)
                raise DownloadError(
                    f"The server sent more than the {exc.args[0]} bytes it announced for this file; the download was "
                    "stopped and deleted. Try again later or choose another file."
                ) from exc
            except (http.client.IncompleteRead, socket.timeout, ConnectionError) as exc:
                raise _Interrupted(str(exc) or type(exc).__name__) from exc
            except OSError as exc:
                raise StorageError(describe_os_error(exc, partial)) from exc
        if total and done < total:
            raise _Interrupted(f"got {done} of {total} bytes")

    def _verify(self, partial: Path, remote: RemoteFile, name: str) -> None:
        size = partial.stat().st_size
        if remote.size is not None and size != remote.size:
            partial.unlink(missing_ok=True)
            raise DownloadError(f"{name} arrived with {size} bytes instead of {remote.size}. Download it again.")
        if remote.sha256 is not None:
            digest = sha256_file(partial, self._cancel)
            if digest != remote.sha256:
                partial.unlink(missing_ok=True)
                raise DownloadError(
                    f"{name} is damaged: its checksum does not match the Hub's. It was deleted; download it again."
                )
            self.verified = True
        try:
            read_gguf(partial)
        except ModelError as exc:
            partial.unlink(missing_ok=True)
            raise DownloadError(f"The downloaded {name} is not a usable GGUF model: {exc}") from exc


class _Interrupted(Exception):
    """The connection broke off; the partial file is kept for a resume."""


class _TooLong(Exception):
    """The server sent more than the size it announced."""


def _content_length(response: Any) -> int | None:
    value = response.headers.get("Content-Length") if getattr(response, "headers", None) is not None else None
    try:
        length = int(value) if value is not None else None
    except ValueError:
        return None
    return length if length is not None and length >= 0 else None


def sha256_file(path: Path, cancel: threading.Event | None = None) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled("Download stopped while checking the file.")
            digest.update(chunk)
    return digest.hexdigest()
