"""A backend for an OpenAI-compatible model server (llama-server, Ollama, LM Studio, vLLM) over HTTP."""

from __future__ import annotations

import base64
import ipaddress
import json
import logging
import socket
import threading
import time
from collections import OrderedDict
from typing import Any, Iterator
from urllib.parse import unquote, urlsplit

import httpx2

from companion.errors import RemoteServerError
from companion.llm.control_tokens import ControlTokens
from companion.llm.base import CancelFlag, Chunk, GenerationOptions, Message, ModelInfo, estimate_tokens
from companion.llm.remote_stream import Deadline, Limits, StreamState, error_detail, sse_events
from companion.llm.toolparse import prompt_inputs
from companion.settings import ModelSettings

log = logging.getLogger(__name__)
DEFAULT_N_CTX = 4096
CONNECT_TIMEOUT = 10.0
MAX_JSON_BYTES = 8 * 2**20  # /models, /props, /tokenize answers
_CACHE_SIZE = 4096


def without_login(url: str) -> str:
    """`url` for showing and logging: a user:password part is left out."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return parts._replace(netloc=parts.netloc.rpartition("@")[2]).geturl()


def _props_context(props: dict[str, Any]) -> int | None:
    settings = props.get("default_generation_settings")
    value = settings.get("n_ctx") if isinstance(settings, dict) else props.get("n_ctx")
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


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
        try:
            port = parts.port
        except ValueError:
            port = -1
        if parts.scheme not in ("http", "https") or not parts.hostname or port == -1:
            raise RemoteServerError(
                "That is not a server address. Use e.g. http://127.0.0.1:8080/v1 (llama-server) "
                "or http://localhost:11434/v1 (Ollama)."
            )
        self._host = parts.hostname
        self._port = port or (443 if parts.scheme == "https" else 80)
        path = parts.path.rstrip("/")
        self._prefix = path if path else "/v1"
        # llama-server's own routes (/props, /tokenize) sit beside /v1; elsewhere they are not asked for.
        self._server_root: str | None = self._prefix[: -len("/v1")] if self._prefix.endswith("/v1") else None
        host = f"[{self._host}]" if ":" in self._host else self._host
        origin = f"{parts.scheme}://{host}" + (f":{parts.port}" if parts.port else "")
        self.base_url = f"{origin}{self._prefix}"  # never the user:password part, which is shown and logged
        self._api_key = api_key
        self._basic = ""
        if parts.username is not None:
            pair = f"{unquote(parts.username)}:{unquote(parts.password or '')}"
            self._basic = base64.b64encode(pair.encode("utf-8")).decode("ascii")
        self._timeout = float(timeout_s)
        self._retries = max(0, retries)
        self._cancel = CancelFlag()
        # No idle connections kept: each request gets its own, closed with it (nothing lingers unowned).
        self._client = httpx2.Client(base_url=origin, trust_env=False, follow_redirects=False,
                                     limits=httpx2.Limits(max_keepalive_connections=0))
        self._response_lock = threading.Lock()
        self._response: httpx2.Response | None = None
        self._token_cache: OrderedDict[str, int] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._tokenize_route: str | None = None  # found on first use; "" once known to be absent
        self._schema_style = "json_schema"
        try:
            self._describe_server(model_name, n_ctx)
        except BaseException:
            self._client.close()
            raise
        if (api_key or self._basic) and parts.scheme == "http" and not _loopback(self._host):
            self.info.warnings.append(
                f"The API key goes to {self._host} unencrypted (http). Use an https address for a server on another machine."
            )

    def _describe_server(self, model_name: str, n_ctx: int) -> None:
        models = self._list_models()
        if model_name and models and model_name not in models:
            raise RemoteServerError(
                f"The server at {self.base_url} has no model '{model_name}'. It offers: {', '.join(models[:10])}."
            )
        name = model_name or (models[0] if models else "")
        if not name:
            raise RemoteServerError(f"The server at {self.base_url} lists no models. Load a model in the server first.")
        self.model = name
        props = self._server_props()
        template = props.get("chat_template")
        self.control_tokens = ControlTokens.for_server(template if isinstance(template, str) else None)
        self.info = ModelInfo(
            name=name.replace("\\", "/").rsplit("/", 1)[-1],  # some servers use the GGUF's path as the id
            path=self.base_url,
            n_ctx=n_ctx or _props_context(props) or DEFAULT_N_CTX,
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

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._basic:
            headers["Authorization"] = f"Basic {self._basic}"
        return headers

    def _open(self, method: str, path: str, body: dict[str, Any] | None, timeout: float, retry: bool = True) -> httpx2.Response:
        """Send a request and return the (streaming) response; retry while the server cannot be reached.

        A request that timed out after it was sent is not repeated: the server may still be working on it.
        """
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        limits = httpx2.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT))
        request = self._client.build_request(method, path, content=payload, headers=self._headers(), timeout=limits)
        attempts = self._retries + 1 if retry else 1
        last: Exception | None = None
        for attempt in range(attempts):
            if attempt:
                time.sleep(0.5 * attempt)
            try:
                return self._client.send(request, stream=True)
            except (httpx2.ConnectError, httpx2.ConnectTimeout) as exc:  # nothing was sent: safe to try again
                last = exc
            except httpx2.TimeoutException as exc:
                last = exc
                break
            except httpx2.HTTPError as exc:
                last = exc
                if not retry:
                    break
        raise RemoteServerError(self._describe_unreachable(last)) from last

    def _describe_unreachable(self, exc: Exception | None) -> str:
        where = f"{self.base_url}"
        if isinstance(exc, httpx2.TimeoutException):
            return f"The model server at {where} did not answer in time. Check that it is running and not overloaded."
        if isinstance(exc, httpx2.ConnectError) and "refused" in str(exc).lower():
            return f"Cannot connect to the model server at {where}: nothing is listening there. Start the server or fix the address."
        return f"Cannot reach the model server at {where} ({exc}). Check the address and your network."

    @staticmethod
    def _read_capped(response: httpx2.Response, limit: int) -> bytes:
        data = b""
        for chunk in response.iter_bytes():
            data += chunk
            if len(data) > limit:
                raise RemoteServerError(f"The model server's answer is over {limit // 2**20} MB; stopped reading.")
        return data

    def _check_status(self, response: httpx2.Response) -> None:
        if response.status_code < 400:
            return
        try:
            detail = error_detail(self._read_capped(response, 64 * 1024))
        except (RemoteServerError, httpx2.HTTPError):
            detail = "no details"
        if response.status_code in (401, 403):
            raise RemoteServerError(
                f"The server at {self.base_url} refused the API key ({response.status_code}). Check it in Settings > Model."
            )
        if response.status_code == 404:
            raise RemoteServerError(
                f"The server at {self.base_url} has no OpenAI-compatible API at this address ({detail}). "
                "The base URL usually ends in /v1."
            )
        raise RemoteServerError(f"The model server answered with an error ({response.status_code}): {detail}")

    def _get_json(self, path: str, timeout: float = CONNECT_TIMEOUT, retry: bool = True) -> Any:
        return self._request_json("GET", path, None, timeout, retry)

    def _post_json(self, path: str, body: dict[str, Any], timeout: float) -> Any:
        return self._request_json("POST", path, body, timeout, retry=False)  # a sent request is never repeated

    def _request_json(self, method: str, path: str, body: dict[str, Any] | None, timeout: float, retry: bool) -> Any:
        response = self._open(method, path, body, timeout, retry)
        try:
            self._check_status(response)
            return json.loads(self._read_capped(response, MAX_JSON_BYTES) or b"null")
        except ValueError as exc:
            raise RemoteServerError(f"The server at {self.base_url} sent something that is not JSON for {path}.") from exc
        except httpx2.HTTPError as exc:
            raise RemoteServerError(f"The connection to the model server broke off: {exc}") from exc
        finally:
            response.close()

    def _list_models(self) -> list[str]:
        data = self._get_json(f"{self._prefix}/models")
        items = data.get("data", []) if isinstance(data, dict) else []
        return [str(item["id"]) for item in items if isinstance(item, dict) and "id" in item]

    def _server_props(self) -> dict[str, Any]:
        """llama-server reports its context size and chat template at /props beside /v1; other servers are asked nothing."""
        if self._server_root is None:
            return {}
        try:
            data = self._get_json(f"{self._server_root}/props", timeout=3.0, retry=False)
        except RemoteServerError:
            return {}
        return data if isinstance(data, dict) else {}

    # -- Backend protocol ----------------------------------------------------

    def _request_body(self, messages: list[Message], options: GenerationOptions, with_tools: bool) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model,
            # Text stays text: the server's template writes the control tokens, our messages never do.
            "messages": [self.control_tokens.message(m) for m in messages],
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

    def _start_stream(self, messages: list[Message], options: GenerationOptions) -> httpx2.Response:
        """Open the streaming request, falling back when the server rejects tools or the schema style."""
        with_tools = bool(options.tools) and self.info.supports_tools
        for _ in range(3):
            response = self._open("POST", f"{self._prefix}/chat/completions",
                                  self._request_body(messages, options, with_tools), self._timeout)
            # Servers differ in how they reject an unknown field (400, 422, even 500): retry without it.
            optional = (options.json_schema is not None and self._schema_style == "json_schema") or with_tools
            status = response.status_code
            if status < 400 or status in (401, 403, 404) or not optional:
                return response
            try:
                detail = error_detail(self._read_capped(response, 64 * 1024))
            except (RemoteServerError, httpx2.HTTPError):
                detail = "no details"
            response.close()
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
        limits = Limits.for_reply(options.max_tokens, self._timeout)
        deadline = Deadline(limits, self.base_url)
        response = self._start_stream(messages, options)
        with self._response_lock:
            self._response = response
        if cancelled.is_set():  # cancel() arrived while connecting
            self._shutdown(response)
        known = {t["function"]["name"] for t in options.tools or []}
        state = StreamState(known, prompt_inputs(messages) if known else None, limits, deadline)
        try:
            self._check_status(response)
            for event in sse_events(response.iter_raw(), deadline):
                if cancelled.is_set():
                    break
                for chunk in state.feed(event):
                    yield chunk
                if state.reason == "length" and state.over_limit:
                    break
        except (httpx2.HTTPError, OSError, ValueError) as exc:
            if not cancelled.is_set():
                if isinstance(exc, httpx2.TimeoutException):
                    raise RemoteServerError(
                        f"The model server at {self.base_url} stopped answering for {self._timeout:.0f} s. "
                        "It may be overloaded; try again or raise the timeout in Settings > Model."
                    ) from exc
                raise RemoteServerError(f"The connection to the model server broke off: {exc}") from exc
        finally:
            with self._response_lock:
                self._response = None
            response.close()
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
        """Exact counts from llama-server (/tokenize) or llama-cpp-python's server (/extras/tokenize), beside /v1."""
        if self._server_root is None:
            return None
        routes = [self._tokenize_route] if self._tokenize_route is not None else ["/tokenize", "/extras/tokenize"]
        for route in routes:
            if not route:
                return None
            body = {"content": text} if route == "/tokenize" else {"input": text}
            try:
                data = self._post_json(f"{self._server_root}{route}", body, timeout=5.0)
            except RemoteServerError:
                continue
            tokens = data.get("tokens") if isinstance(data, dict) else None
            if isinstance(tokens, list):
                self._tokenize_route = route
                return len(tokens)
        self._tokenize_route = ""
        return None

    @staticmethod
    def _shutdown(response: httpx2.Response) -> None:
        """End a blocked read at once: shut the socket down (closing it from another thread may not)."""
        stream = response.extensions.get("network_stream")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if isinstance(sock, socket.socket):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cancel(self) -> None:
        """Stop at once: the flag stops the loop, shutting the socket ends a blocked read (the server then stops too)."""
        self._cancel.set()
        with self._response_lock:
            response = self._response
        if response is not None:
            self._shutdown(response)

    def prefill(self, messages: list[Message]) -> None:
        """Nothing to do: servers keep their own prompt cache."""

    def prompt_speed(self) -> float | None:
        return None  # a server's speed is its own; recall uses its whole budget there

    def close(self) -> None:
        self.cancel()
        self._client.close()
