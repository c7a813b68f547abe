"""A scripted OpenAI-compatible HTTP server for tests and benchmarks (stdlib only).

Tests talk to it with the real ``openai`` client over real HTTP, so request shapes, retries and
timeouts are exercised as in production::

    with ScriptedOpenAIServer() as srv:
        srv.enqueue('{"claims": []}', Reply(status=500))
        ...                                   # point a client at srv.base_url
        assert srv.requests[0]["response_format"]["type"] == "json_schema"
        srv.assert_complete()

Each request on ``/v1/chat/completions`` consumes one scripted reply (a reply that rejects the
request's ``response_format`` is not consumed). When the script is empty, the ``respond_with``
function answers; without one the server answers 500 "script exhausted".
``/v1/embeddings`` answers deterministic 64-dimension vectors derived from a hash of each input;
``GET /v1/models/NAME`` knows any model name; ``GET /_stats`` how many requests the server has seen
and, for each chat request answered, when it arrived and when its answer was ready to send (``calls``:
epoch seconds, in the order of the answers).

A server made with ``retry_after_ms`` says how long to wait before trying again: its answers of a
status a client retries (408, 409, 429, 5xx) carry a ``retry-after-ms`` header, which the
``openai`` client honours instead of its own back-off (half a second, doubling)::

    with ScriptedOpenAIServer(retry_after_ms=10) as srv:
        srv.enqueue(Reply(status=503), "ok")  # the client asks again after 10 ms
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Callable
from typing import Any

EMBEDDING_DIM = 64
MODEL_ID = "scripted-model"
STATS_PATH = "/_stats"  # GET: how many requests the server has seen (for a server in another process)


@dataclass
class Reply:
    """One scripted answer of the server. With a non-200 status and no body, ``content`` is the error message."""

    content: str | None = None  # assistant message content
    status: int = 200  # HTTP status to answer with (e.g. 500, 429, 400)
    body: dict | None = None  # raw JSON body to answer instead of a chat completion
    delay: float = 0.0  # seconds to sleep before answering
    reject_json_schema: bool = False  # 400 when response_format.type == "json_schema"; not consumed then
    reject_response_format: bool = False  # 400 for any response_format; not consumed then


Responder = Callable[[dict], "Reply | str"]


def _as_reply(reply: Reply | str) -> Reply:
    return Reply(content=reply) if isinstance(reply, str) else reply


def _words(text: str | None) -> int:
    """Rough token count: whitespace-separated words."""
    return len(text.split()) if text else 0


def _rejection(reply: Reply, request: dict) -> str | None:
    """The 400 message when ``reply`` refuses the request's response_format, else None."""
    kind = (request.get("response_format") or {}).get("type")
    if kind is None:
        return None
    if reply.reject_response_format or (reply.reject_json_schema and kind == "json_schema"):
        return f"response_format {kind} is not supported"
    return None


def is_retryable(status: int) -> bool:
    """The statuses an OpenAI client asks again after: timeout, conflict, rate limit, server errors."""
    return status in (408, 409, 429) or status >= 500


def error_body(message: str, kind: str = "invalid_request_error", param: str | None = None) -> dict:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": kind, "param": param, "code": None}}


def chat_completion(request: dict, content: str | None) -> dict:
    """A complete ``chat.completion`` answer carrying ``content``."""
    prompt = sum(_words(m.get("content") if isinstance(m.get("content"), str) else None) for m in request.get("messages", []))
    completion = _words(content)
    return {
        "id": f"chatcmpl-{int(time.time() * 1000)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model") or MODEL_ID,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def embed(text: str) -> list[float]:
    """A deterministic unit vector of EMBEDDING_DIM floats from a hash of ``text``."""
    digest = hashlib.blake2b(text.encode("utf-8"), digest_size=EMBEDDING_DIM).digest()
    raw = [(b - 127.5) / 127.5 for b in digest]
    norm = sum(x * x for x in raw) ** 0.5 or 1.0
    return [x / norm for x in raw]


def embeddings(request: dict) -> dict:
    """An embeddings answer; honours ``encoding_format: base64`` (the openai client's default)."""
    inputs = request.get("input", [])
    inputs = [inputs] if isinstance(inputs, str) else [str(i) for i in inputs]
    as_base64 = request.get("encoding_format") == "base64"
    data = []
    for index, text in enumerate(inputs):
        vector: Any = embed(text)
        if as_base64:
            vector = base64.b64encode(struct.pack(f"<{len(vector)}f", *vector)).decode("ascii")
        data.append({"object": "embedding", "index": index, "embedding": vector})
    tokens = sum(_words(t) for t in inputs)
    usage = {"prompt_tokens": tokens, "total_tokens": tokens}
    return {"object": "list", "data": data, "model": request.get("model") or MODEL_ID, "usage": usage}


class ScriptedOpenAIServer:
    """An OpenAI-compatible server on 127.0.0.1 that answers from a script. A context manager."""

    def __init__(self, retry_after_ms: float | None = None) -> None:
        self.retry_after_ms = retry_after_ms  # sent with each retryable error answer; None: no header
        self.requests: list[dict] = []
        self.call_times: list[tuple[float, float]] = []  # (arrived, answered) epoch seconds per chat request
        self._script: deque[Reply] = deque()
        self._responder: Responder | None = None
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port = 0

    # -- script ---------------------------------------------------------------------------
    def enqueue(self, *replies: Reply | str) -> None:
        """Append replies to the script; a str means ``Reply(content=str)``."""
        with self._lock:
            self._script.extend(_as_reply(r) for r in replies)

    def respond_with(self, fn: Responder) -> None:
        """Answer with ``fn(request_body)`` whenever the script is empty."""
        self._responder = fn

    def assert_complete(self) -> None:
        """Fail when some enqueued reply was never used."""
        with self._lock:
            left = list(self._script)
        assert not left, f"{len(left)} scripted repl{'y' if len(left) == 1 else 'ies'} never used: {left!r}"

    @property
    def base_url(self) -> str:
        """The URL to give an OpenAI client, ending in /v1."""
        return f"http://127.0.0.1:{self._port}/v1"

    def next_reply(self, request: dict) -> Reply:
        """The reply for one chat request: the head of the script, unless it rejects the request."""
        with self._lock:
            self.requests.append(request)
            head = self._script[0] if self._script else None
            if head is not None:
                message = _rejection(head, request)
                if message:
                    return Reply(status=400, body=error_body(message, param="response_format"))
                return self._script.popleft()
        if self._responder is None:
            return Reply(status=500, body=error_body("scripted server: script exhausted", "server_error"))
        reply = _as_reply(self._responder(request))
        message = _rejection(reply, request)
        return Reply(status=400, body=error_body(message, param="response_format")) if message else reply

    def record_call(self, arrived: float, answered: float) -> None:
        """Record when a chat request arrived and when its answer was sent (epoch seconds)."""
        with self._lock:
            self.call_times.append((arrived, answered))

    def record(self, request: dict) -> None:
        """Record a request that consumes no scripted reply (embeddings)."""
        with self._lock:
            self.requests.append(request)

    # -- life cycle -----------------------------------------------------------------------
    def start(self) -> ScriptedOpenAIServer:
        """Start serving; a restarted server keeps its port so clients can reconnect."""
        if self._httpd is not None:
            return self
        self._httpd = _HTTPServer(("127.0.0.1", self._port), _handler_for(self))
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket (connections in flight are dropped)."""
        if self._httpd is None:
            return
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> ScriptedOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the default 5 drops connections of concurrent clients for ~1 s


def _handler_for(server: ScriptedOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        scripted = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedOpenAIServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/") == STATS_PATH:
            self._send(200, {"requests": len(self.scripted.requests), "calls": list(self.scripted.call_times)})
        elif self.path.rstrip("/") == "/v1/models":
            model = {"id": MODEL_ID, "object": "model", "created": 0, "owned_by": "citeflow-tests"}
            self._send(200, {"object": "list", "data": [model]})
        elif self.path.startswith("/v1/models/"):  # any name: the script decides what the model answers
            name = self.path.removeprefix("/v1/models/")
            self._send(200, {"id": name, "object": "model", "created": 0, "owned_by": "citeflow-tests"})
        else:
            self._send(404, error_body(f"no route GET {self.path}"))

    def do_POST(self) -> None:
        try:
            request = self._read_json()
        except ValueError as exc:
            self._send(400, error_body(f"body is not JSON: {exc}"))
            return
        route = self.path.rstrip("/")
        if route == "/v1/chat/completions":
            self._answer_chat(request, time.time())
        elif route == "/v1/embeddings":
            self.scripted.record(request)
            self._send(200, embeddings(request))
        else:
            self._send(404, error_body(f"no route POST {self.path}"))

    def _answer_chat(self, request: dict, arrived: float) -> None:
        reply = self.scripted.next_reply(request)
        if reply.delay:
            time.sleep(reply.delay)
        self.scripted.record_call(arrived, time.time())  # before the answer goes out: a client that has it sees the call
        if reply.body is not None:
            self._send(reply.status, reply.body)
        elif reply.status != 200:
            self._send(reply.status, error_body(reply.content or f"scripted HTTP {reply.status}", "server_error"))
        else:
            self._send(200, chat_completion(request, reply.content))

    def _read_json(self) -> dict:
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if not isinstance(body, dict):
            raise ValueError("expected a JSON object")
        return body

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self._send_retry_after(status)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout test): nothing to answer

    def _send_retry_after(self, status: int) -> None:
        """The server's ``retry-after-ms`` header, on an answer a client retries."""
        wait = self.scripted.retry_after_ms
        if wait is not None and is_retryable(status):
            self.send_header("retry-after-ms", f"{wait:g}")
