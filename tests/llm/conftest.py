"""Fixtures for model tests: hand-built GGUF files, a stand-in Hugging Face Hub, a real OpenAI-compatible server."""

from __future__ import annotations

import hashlib
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest


def _gguf_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<Q", len(data)) + data


def build_gguf(metadata: dict[str, Any], tensors: list[tuple[str, list[int], int]] = (), data: bytes | None = None) -> bytes:
    """A GGUF v3 file: string/int metadata and F32 tensors (name, dims, offset); data padded or given."""
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for key, value in metadata.items():
        out += _gguf_string(key)
        if isinstance(value, str):
            out += struct.pack("<I", 8) + _gguf_string(value)
        else:
            out += struct.pack("<I", 4) + struct.pack("<I", value)
    end = 0
    for name, dims, offset in tensors:
        out += _gguf_string(name) + struct.pack("<I", len(dims)) + struct.pack("<" + "Q" * len(dims), *dims)
        out += struct.pack("<IQ", 0, offset)
        count = 1
        for d in dims:
            count *= d
        end = max(end, offset + 4 * count)
    out += b"\0" * (-len(out) % 32)
    return out + (data if data is not None else b"\0" * end)


@pytest.fixture
def gguf_bytes() -> Callable[..., bytes]:
    return build_gguf


@pytest.fixture
def make_gguf(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str = "model.gguf", metadata: dict[str, Any] | None = None,
             tensors: list[tuple[str, list[int], int]] | None = None, data: bytes | None = None) -> Path:
        meta = {"general.architecture": "llama", "general.name": "Hand Built"} if metadata is None else metadata
        path = tmp_path / name
        path.write_bytes(build_gguf(meta, tensors or [], data))
        return path

    return make


@dataclass
class Hub:
    """A loopback server that answers like the Hub's /resolve/ route, with byte ranges and failures on demand."""

    url: str
    files: dict[str, bytes] = field(default_factory=dict)
    requests: list[tuple[str, str, str]] = field(default_factory=list)  # (method, path, Range header)
    break_after: int | None = None  # send only this many bytes of the next GET, then hang up
    wrong_etag: bool = False
    no_etag: bool = False  # like a server that sends no checksum
    chunk_delay: float = 0.0
    redirect: str | None = None  # answer GETs with a redirect to this base address
    auth: list[str] = field(default_factory=list)  # the Authorization header of every request ("" if none)
    announce: int | None = None  # the size HEAD announces, whatever GET then sends
    no_length: bool = False  # GET sends no Content-Length and closes the connection at the end

    def add(self, repo: str, filename: str, content: bytes) -> str:
        self.files[f"/{repo}/resolve/main/{filename}"] = content
        return hashlib.sha256(content).hexdigest()


def _handler(hub: Hub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _headers_for(self, content: bytes) -> None:
            digest = hashlib.sha256(b"other" if hub.wrong_etag else content).hexdigest()
            if not hub.no_etag:
                self.send_header("ETag", f'"{digest}"')
            self.send_header("X-Repo-Commit", "0" * 40)
            self.send_header("Accept-Ranges", "bytes")

        def do_HEAD(self) -> None:
            hub.requests.append(("HEAD", self.path, ""))
            hub.auth.append(self.headers.get("Authorization", ""))
            content = hub.files.get(self.path)
            if content is None:
                self.send_response(404)
                self.send_header("X-Error-Code", "EntryNotFound")
                self.send_header("X-Error-Message", "Entry not found")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self._headers_for(content)
            self.send_header("Content-Length", str(hub.announce if hub.announce is not None else len(content)))
            self.end_headers()

        def do_GET(self) -> None:
            byte_range = self.headers.get("Range", "")
            hub.requests.append(("GET", self.path, byte_range))
            hub.auth.append(self.headers.get("Authorization", ""))
            if hub.redirect is not None:
                self.send_response(302)
                self.send_header("Location", hub.redirect + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            content = hub.files.get(self.path)
            if content is None:
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            start = int(byte_range.split("=")[1].split("-")[0]) if byte_range else 0
            body = content[start:]
            self.send_response(206 if byte_range else 200)
            self._headers_for(content)
            if hub.no_length:
                self.close_connection = True
            else:
                self.send_header("Content-Length", str(len(body)))
            if byte_range:
                self.send_header("Content-Range", f"bytes {start}-{len(content) - 1}/{len(content)}")
            self.end_headers()
            limit = hub.break_after
            if limit is not None:
                hub.break_after = None
                self.wfile.write(body[:limit])
                self.wfile.flush()
                self.close_connection = True
                return
            for index in range(0, len(body), 65536):
                self.wfile.write(body[index:index + 65536])
                if hub.chunk_delay:
                    time.sleep(hub.chunk_delay)

    return Handler


def _serve_hub() -> Iterator[Hub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = Hub(url=f"http://127.0.0.1:{server.server_address[1]}")
    server.RequestHandlerClass = _handler(state)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hub]:
    for state in _serve_hub():
        monkeypatch.setenv("HF_ENDPOINT", state.url)
        monkeypatch.setenv("HF_HUB_OFFLINE", "0")
        monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
        yield state


@pytest.fixture
def other_host() -> Iterator[Hub]:
    """A second server on another origin (a CDN, or an attacker a redirect points to)."""
    yield from _serve_hub()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def openai_server(tiny_model_path: Path) -> Iterator[str]:
    """llama-cpp-python's OpenAI-compatible server on loopback, serving the embedded model (started once)."""
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(tiny_model_path), "--model_alias", "tiny",
         "--n_ctx", "2048", "--n_threads", "1", "--n_threads_batch", "1", "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base}/models", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("The local OpenAI-compatible test server did not start (llama-cpp-python[server]).")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
