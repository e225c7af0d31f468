"""A backend for an OpenAI-compatible model server (llama-server, Ollama, LM Studio, vLLM) over HTTP."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading
import time
from collections import OrderedDict
from typing import Any, Iterator
from urllib.parse import urlsplit

from companion.errors import RemoteServerError
from companion.llm.base import CancelFlag, Chunk, GenerationOptions, Message, ModelInfo, ToolCall
from companion.llm.toolparse import ToolTextFilter, prompt_inputs
from companion.settings import ModelSettings

log = logging.getLogger(__name__)
DEFAULT_N_CTX = 4096
CONNECT_TIMEOUT = 10.0
_CACHE_SIZE = 4096


def estimate_tokens(text: str) -> int:
    """A tokenizer-free estimate that errs high: ~4 ASCII characters per token, one per other character."""
    if not text:
        return 0
    ascii_chars = sum(1 for c in text if c < "\x80")
    return max(1, -(-ascii_chars // 4) + (len(text) - ascii_chars))


class RemoteBackend:
    """Talks to `<base_url>/chat/completions` with streaming; only the prompt leaves the machine."""

    def __init__(
        self,
        base_url: str,
        model_name: str = "",
        api_key: str = "",
        *,
        timeout_s: float = 120.0,
        n_ctx: int = 0,
        retries: int = 2,
    ) -> None:
        parts = urlsplit(base_url.strip().rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise RemoteServerError(
                f"'{base_url}' is not a server address. Use e.g. http://127.0.0.1:8080/v1 (llama-server) "
                "or http://localhost:11434/v1 (Ollama)."
            )
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._https else 80)
        path = parts.path.rstrip("/")
        self._prefix = path if path else "/v1"
        self.base_url = f"{parts.scheme}://{parts.netloc}{self._prefix}"
        self._api_key = api_key
        self._timeout = float(timeout_s)
        self._retries = max(0, retries)
        self._cancel = CancelFlag()
        self._conn_lock = threading.Lock()
        self._conn: http.client.HTTPConnection | None = None
        self._token_cache: OrderedDict[str, int] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._tokenize_route: str | None = None  # found on first use; "" once known to be absent
        self._schema_style = "json_schema"
        models = self._list_models()
        if model_name and models and model_name not in models:
            raise RemoteServerError(
                f"The server at {self.base_url} has no model '{model_name}'. It offers: {', '.join(models[:10])}."
            )
        name = model_name or (models[0] if models else "")
        if not name:
            raise RemoteServerError(f"The server at {self.base_url} lists no models. Load a model in the server first.")
        self.model = name
        self.info = ModelInfo(
            name=name.replace("\\", "/").rsplit("/", 1)[-1],  # some servers use the GGUF's path as the id
            path=self.base_url,
            n_ctx=n_ctx or self._server_context() or DEFAULT_N_CTX,
            gpu_offload_supported=False,
            device=f"server {self._host}:{self._port}",
            chat_format="server",
            has_chat_template=True,
            supports_tools=True,
        )

    @classmethod
    def from_settings(cls, settings: ModelSettings, api_key: str | None = None) -> "RemoteBackend":
        if not settings.base_url:
            raise RemoteServerError("No server address is set. Enter the base URL in Settings > Model (or --base-url).")
        return cls(
            settings.base_url,
            settings.model_name,
            api_key or "",
            timeout_s=settings.remote_timeout_s,
            n_ctx=settings.remote_n_ctx,
        )

    # -- HTTP ----------------------------------------------------------------

    def _connect(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _open(self, method: str, path: str, body: dict[str, Any] | None, timeout: float, retry: bool = True):
        """Send a request; retry while the server cannot be reached. Returns (connection, response).

        A request that timed out after it was sent is not repeated: the server may still be working on it.
        """
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        attempts = self._retries + 1 if retry else 1
        last: Exception | None = None
        for attempt in range(attempts):
            if attempt:
                time.sleep(0.5 * attempt)
            conn = self._connect(min(timeout, CONNECT_TIMEOUT))
            try:
                conn.connect()
                if conn.sock is not None:
                    conn.sock.settimeout(timeout)
                conn.request(method, path, body=payload, headers=self._headers())
                return conn, conn.getresponse()
            except socket.timeout as exc:
                sent = conn.sock is not None
                conn.close()
                last = exc
                if sent:
                    break
            except (OSError, http.client.HTTPException) as exc:
                conn.close()
                last = exc
        raise RemoteServerError(self._describe_unreachable(last)) from last

    def _describe_unreachable(self, exc: Exception | None) -> str:
        where = f"{self.base_url}"
        if isinstance(exc, socket.timeout):
            return f"The model server at {where} did not answer in time. Check that it is running and not overloaded."
        if isinstance(exc, ConnectionRefusedError):
            return f"Cannot connect to the model server at {where}: nothing is listening there. Start the server or fix the address."
        return f"Cannot reach the model server at {where} ({exc}). Check the address and your network."

    def _check_status(self, response: http.client.HTTPResponse) -> None:
        if response.status < 400:
            return
        detail = _error_detail(response.read(4096))
        if response.status in (401, 403):
            raise RemoteServerError(f"The server at {self.base_url} refused the API key ({response.status}). Check it in Settings > Model.")
        if response.status == 404:
            raise RemoteServerError(
                f"The server at {self.base_url} has no OpenAI-compatible API at this address ({detail}). "
                "The base URL usually ends in /v1."
            )
        raise RemoteServerError(f"The model server answered with an error ({response.status}): {detail}")

    def _get_json(self, path: str, timeout: float = CONNECT_TIMEOUT, retry: bool = True) -> Any:
        return self._request_json("GET", path, None, timeout, retry)

    def _post_json(self, path: str, body: dict[str, Any], timeout: float) -> Any:
        return self._request_json("POST", path, body, timeout, retry=False)  # a sent request is never repeated

    def _request_json(self, method: str, path: str, body: dict[str, Any] | None, timeout: float, retry: bool) -> Any:
        conn, response = self._open(method, path, body, timeout, retry)
        try:
            self._check_status(response)
            return json.loads(response.read() or b"null")
        except ValueError as exc:
            raise RemoteServerError(f"The server at {self.base_url} sent something that is not JSON for {path}.") from exc
        finally:
            conn.close()

    def _list_models(self) -> list[str]:
        data = self._get_json(f"{self._prefix}/models")
        items = data.get("data", []) if isinstance(data, dict) else []
        return [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]

    def _server_context(self) -> int | None:
        """llama-server reports its context size at /props; other servers are asked nothing."""
        try:
            data = self._get_json("/props", timeout=3.0, retry=False)
        except RemoteServerError:
            return None
        if not isinstance(data, dict):
            return None
        settings = data.get("default_generation_settings")
        value = settings.get("n_ctx") if isinstance(settings, dict) else data.get("n_ctx")
        return int(value) if isinstance(value, int) and value > 0 else None

    # -- Backend protocol ----------------------------------------------------

    def _request_body(self, messages: list[Message], options: GenerationOptions, with_tools: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "max_tokens": options.max_tokens,
            "temperature": options.temperature,
            "top_p": options.top_p,
            "stream": True,
        }
        if options.stop:
            body["stop"] = options.stop
        if options.seed is not None:
            body["seed"] = options.seed
        if options.json_schema is not None:
            if self._schema_style == "json_schema":
                body["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "output", "schema": options.json_schema},
                }
            else:
                body["response_format"] = {"type": "json_object", "schema": options.json_schema}
        if with_tools and options.tools:
            body["tools"] = options.tools
        return body

    def _start_stream(self, messages: list[Message], options: GenerationOptions):
        """Open the streaming request, falling back when the server rejects tools or the schema style."""
        with_tools = bool(options.tools) and self.info.supports_tools
        for _ in range(3):
            conn, response = self._open("POST", f"{self._prefix}/chat/completions",
                                        self._request_body(messages, options, with_tools), self._timeout)
            # Servers differ in how they reject an unknown field (400, 422, even 500): retry without it.
            optional = (options.json_schema is not None and self._schema_style == "json_schema") or with_tools
            if response.status < 400 or response.status in (401, 403, 404) or not optional:
                return conn, response
            detail = _error_detail(response.read(4096))
            conn.close()
            if options.json_schema is not None and self._schema_style == "json_schema":
                self._schema_style = "json_object"
                continue
            if with_tools:
                log.info("The server rejected tool definitions (%s); sending without them", detail)
                self.info.supports_tools = with_tools = False
                continue
            raise RemoteServerError(f"The model server rejected the request: {detail}")
        raise RemoteServerError("The model server rejected the request.")

    def stream_chat(self, messages: list[Message], options: GenerationOptions) -> Iterator[Chunk]:
        cancelled = self._cancel.reset()
        conn, response = self._start_stream(messages, options)
        with self._conn_lock:
            self._conn = conn
        if cancelled.is_set():  # cancel() arrived while connecting
            conn.close()
        known = {t["function"]["name"] for t in options.tools or []}
        state = _StreamState(known, prompt_inputs(messages) if known else None)
        try:
            self._check_status(response)
            for event in _sse_events(response):
                if cancelled.is_set():
                    break
                for chunk in state.feed(event):
                    yield chunk
        except (OSError, http.client.HTTPException, ValueError) as exc:
            if not cancelled.is_set():
                if isinstance(exc, socket.timeout):
                    raise RemoteServerError(
                        f"The model server at {self.base_url} stopped answering for {self._timeout:.0f} s. "
                        "It may be overloaded; try again or raise the timeout in Settings > Model."
                    ) from exc
                raise RemoteServerError(f"The connection to the model server broke off: {exc}") from exc
        finally:
            with self._conn_lock:
                self._conn = None
            conn.close()
        if cancelled.is_set():
            yield Chunk(finish_reason="cancelled")
            return
        yield from state.finish()

    def count_tokens(self, text: str) -> int:
        if not text:
            return 0
        with self._cache_lock:
            cached = self._token_cache.get(text)
            if cached is not None:
                self._token_cache.move_to_end(text)
                return cached
        count = self._server_count(text)
        if count is None:
            return estimate_tokens(text)
        with self._cache_lock:
            self._token_cache[text] = count
            if len(self._token_cache) > _CACHE_SIZE:
                self._token_cache.popitem(last=False)
        return count

    def _server_count(self, text: str) -> int | None:
        """Exact counts from llama-server (/tokenize) or llama-cpp-python's server (/extras/tokenize)."""
        routes = [self._tokenize_route] if self._tokenize_route is not None else ["/tokenize", "/extras/tokenize"]
        for route in routes:
            if not route:
                return None
            body = {"content": text} if route == "/tokenize" else {"input": text}
            try:
                data = self._post_json(route, body, timeout=5.0)
            except RemoteServerError:
                continue
            tokens = data.get("tokens") if isinstance(data, dict) else None
            if isinstance(tokens, list):
                self._tokenize_route = route
                return len(tokens)
        self._tokenize_route = ""
        return None

    def cancel(self) -> None:
        """Stop at once: the flag stops the loop, shutting the socket ends a blocked read (the server then stops too)."""
        self._cancel.set()
        with self._conn_lock:
            conn = self._conn
        if conn is not None and conn.sock is not None:
            try:
                conn.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def prefill(self, messages: list[Message]) -> None:
        """Nothing to do: servers keep their own prompt cache."""

    def close(self) -> None:
        self.cancel()


class _StreamState:
    """Turns OpenAI streaming deltas into Chunks; holds back text that may be a tool call written as text."""

    def __init__(self, known: set[str], quoted: set[str] | None = None) -> None:
        self.filter = ToolTextFilter(known, quoted)
        self.calls: dict[int, dict[str, str]] = {}
        self.reason: str | None = None

    def feed(self, event: dict[str, Any]) -> Iterator[Chunk]:
        if "error" in event:
            raise RemoteServerError(f"The model server failed while answering: {_error_detail(event)}")
        choices = event.get("choices") or []
        if not choices:
            return
        choice = choices[0]
        delta = choice.get("delta") or {}
        for call in delta.get("tool_calls") or []:
            slot = self.calls.setdefault(int(call.get("index", len(self.calls))), {"id": "", "name": "", "arguments": ""})
            function = call.get("function") or {}
            slot["id"] = call.get("id") or slot["id"]
            slot["name"] += function.get("name") or ""
            slot["arguments"] += function.get("arguments") or ""
        piece = self.filter.feed(delta.get("content") or "")
        if piece:
            yield Chunk(text=piece)
        self.reason = choice.get("finish_reason") or self.reason

    def finish(self) -> Iterator[Chunk]:
        parsed = [self._structured(i, slot) for i, slot in sorted(self.calls.items())]
        calls = [c for c in parsed if c is not None and self.filter.accepts(c)]
        rest, text_calls = self.filter.finish()
        calls = calls or text_calls
        if rest:
            yield Chunk(text=rest)
        if calls:
            yield Chunk(tool_calls=calls, finish_reason="tool_calls")
            return
        reason = self.reason if self.reason != "tool_calls" else "stop"
        yield Chunk(finish_reason=reason or "stop")

    def _structured(self, index: int, slot: dict[str, str]) -> ToolCall | None:
        if not slot["name"]:
            return None
        try:
            arguments = json.loads(slot["arguments"] or "{}")
        except ValueError:
            arguments = None
        if not isinstance(arguments, dict):
            log.warning("Dropping a tool call with unreadable arguments: %r", slot["arguments"][:200])
            return None
        return ToolCall(name=slot["name"], arguments=arguments, id=slot["id"] or f"call_{index}")


def _sse_events(response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """`data:` payloads of a server-sent event stream, until `[DONE]`."""
    data: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
            continue
        if line or not data:
            continue
        payload, data = "\n".join(data), []
        if payload == "[DONE]":
            return
        yield json.loads(payload)
    if data and data[0] != "[DONE]":
        yield json.loads("\n".join(data))


def _error_detail(body: bytes | dict[str, Any]) -> str:
    data: Any = body
    if isinstance(body, bytes):
        try:
            data = json.loads(body)
        except ValueError:
            return body.decode("utf-8", "replace").strip()[:300] or "no details"
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data))
        if isinstance(error, dict):
            return str(error.get("message") or error)[:300]
        return str(error)[:300]
    return str(data)[:300]
