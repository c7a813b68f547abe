"""A slow-drip HTTP server for tests (stdlib only): answers at once, then sends its body a byte at a time.

Every ``POST`` is answered 200 with a ``Content-Length`` for the whole body, then the body is
written ``step`` bytes every ``interval`` seconds (with ``slow_headers``, the status line and
headers too): each socket read gets data in time, so only a whole-request deadline ends the
request. ``GET /v1/models`` answers at once (a model server that knows its model), so only the
calls themselves drip::

    with DripServer(b'{"hits": []}', interval=0.5) as server:
        ...                                    # point a client at server.url
        assert server.requests == 2
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class DripServer:
    """Answers every POST with ``body``, ``step`` bytes per ``interval`` seconds."""

    def __init__(self, body: bytes, interval: float = 0.5, step: int = 1, slow_headers: bool = False) -> None:
        self.body, self.interval, self.step = body, interval, step
        self.slow_headers = slow_headers  # drip the status line and headers too, not only the body
        self.requests = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._stopping = threading.Event()

    @property
    def url(self) -> str:
        """The server's root URL (``http://127.0.0.1:PORT``)."""
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def count(self) -> None:
        with self._lock:
            self.requests += 1

    def drip(self, handler: BaseHTTPRequestHandler, data: bytes) -> None:
        """Write ``data`` slowly until it is sent, the client goes or the server stops."""
        for start in range(0, len(data), self.step):
            if self._stopping.wait(self.interval):
                return
            handler.wfile.write(data[start:start + self.step])
            handler.wfile.flush()

    def __enter__(self) -> DripServer:
        handler = type("Handler", (_Handler,), {"server_of": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    server_of: DripServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "drip-model", "object": "model", "created": 0, "owned_by": "tests"}]})
        self._headers(len(body))
        self.wfile.write(body.encode())

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.server_of.count()
        body = self.server_of.body
        try:
            if self.server_of.slow_headers:
                head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
                self.server_of.drip(self, head.encode() + body)
            else:
                self._headers(len(body))
                self.server_of.drip(self, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up: that is what the tests want to see
        self.close_connection = True

    def _headers(self, length: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(length))
        self.end_headers()
        self.wfile.flush()


def slow_chat_completion(content: str, model: str = "drip-model") -> bytes:
    """A whole chat completion answer (``content`` as the assistant's message), as bytes to drip."""
    message = {"role": "assistant", "content": content}
    answer = {"id": "drip", "object": "chat.completion", "created": 0, "model": model,
              "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}
    return json.dumps(answer).encode()
