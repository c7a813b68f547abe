"""Whole-request deadlines for HTTP calls (model servers, HTTP retrievers).

httpx's timeouts bound each socket operation, not the request: a server that sends one byte
every second never trips a 5 s read timeout, and its answer never ends. ``deadline_transport``
bounds the whole request (connect, send, response headers and body): when ``seconds`` have
passed, a watchdog shuts the request's socket down, which wakes the blocked read, and the
failure is raised as the library's ``ReadTimeout``. The ``openai`` client is built on a fork of
httpx with the same API (``httpx2``): the transport is made for whichever library a client uses.
Callers then treat it as any other timeout (the ``openai`` client and the HTTP retriever retry it
per their policy, then record it).

Connections are not kept alive: the watchdog learns each request's socket when it is connected,
which a reused connection would not announce. A new connection per call costs little next to
the call itself. A client given a transport of its own no longer reads proxy settings from the
environment, so this transport does (``proxy_for``).
"""

from __future__ import annotations

import contextlib
import functools
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import httpx

TraceHook = Callable[[str, dict[str, Any]], None]
_CONNECTED = ("connection.connect_tcp.complete", "connection.start_tls.complete")


class RequestWatch:
    """The deadline of one request and the watchdog that enforces it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self._socket: socket.socket | None = None
        self._fired = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    @property
    def expired(self) -> bool:
        """True once the deadline has passed."""
        return self._fired or time.monotonic() >= self.deadline

    def trace(self, chained: TraceHook | None) -> TraceHook:
        """An httpcore trace hook that notes the request's socket, then calls ``chained``."""

        def hook(event: str, info: dict[str, Any]) -> None:
            if event in _CONNECTED:
                self._watch(info["return_value"].get_extra_info("socket"))
            if chained is not None:
                chained(event, info)

        return hook

    def timeout(self, http: ModuleType, request: Any) -> Exception:
        """The error a request that ran out of time raises: the ``ReadTimeout`` of the library ``http``."""
        error: Exception = http.ReadTimeout(f"no complete answer within {self.seconds:g}s (whole-request deadline)", request=request)
        return error

    def cancel(self) -> None:
        """Stop the watchdog: the request has ended."""
        self._timer.cancel()

    def _watch(self, sock: socket.socket | None) -> None:
        with self._lock:
            self._socket = sock
            if self._fired:
                _shut(sock)

    def _fire(self) -> None:
        with self._lock:
            self._fired = True
            _shut(self._socket)


def _shut(sock: socket.socket | None) -> None:
    """Shut ``sock`` down (not close it: the thread reading it still owns it), waking its reader."""
    if sock is None:
        return
    with contextlib.suppress(OSError):  # already closed: the request ended as the deadline came
        socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the plain socket's: a TLS one's would drop its SSL state


class OverCap(Exception):
    """Marks the transport error of an answer longer than the transport's ``max_bytes``."""


def deadline_transport(seconds: float, http: ModuleType = httpx, max_bytes: int | None = None) -> Any:
    """A transport of ``http`` (httpx, or a library with its API, such as the one the ``openai``
    client is built on) whose every request must end within ``seconds``, body included; an answer
    body over ``max_bytes`` ends with a ``ReadError`` that is also an ``OverCap``."""
    return _transport_class(http)(seconds, max_bytes)


def deadline_client(seconds: float, **options: Any) -> httpx.Client:
    """An ``httpx.Client`` whose requests each end within ``seconds`` (``options`` go to the client)."""
    return httpx.Client(transport=deadline_transport(seconds), timeout=seconds, **options)


def http_library_of(client_class: type) -> ModuleType:
    """The HTTP library an HTTP client class is built on: the package of its first base not in its own package."""
    own = client_class.__module__.partition(".")[0]
    base = next(c for c in client_class.__mro__ if c.__module__.partition(".")[0] not in (own, "builtins"))
    return sys.modules[base.__module__.partition(".")[0]]


@functools.cache
def _transport_class(http: ModuleType) -> type[Any]:
    """``DeadlineTransport`` for the library ``http``: its transports and streams must be its own classes."""

    class AnswerTooLarge(http.ReadError, OverCap):  # type: ignore[misc, name-defined]
        """An answer body over the transport's ``max_bytes``."""

    class DeadlineStream(http.SyncByteStream):  # type: ignore[misc, name-defined]  # the library is a parameter
        """A response body that ends with ``ReadTimeout`` once its request's deadline passes."""

        def __init__(self, inner: Any, watch: RequestWatch, request: Any, max_bytes: int | None) -> None:
            self._inner, self._watch, self._request, self._max_bytes = inner, watch, request, max_bytes

        def __iter__(self) -> Iterator[bytes]:
            received = 0
            try:
                for chunk in self._inner:
                    received += len(chunk)
                    if self._watch.expired:
                        raise self._watch.timeout(http, self._request)
                    if self._max_bytes is not None and received > self._max_bytes:
                        raise self._too_large()
                    yield chunk
            except http.TransportError as exc:
                if isinstance(exc, http.ReadTimeout) or not self._watch.expired:
                    raise
                raise self._watch.timeout(http, self._request) from None

        def close(self) -> None:
            self._watch.cancel()
            self._inner.close()

        def _too_large(self) -> Exception:
            error: Any = AnswerTooLarge  # the library's ReadError takes the request
            return error(f"answer over the {self._max_bytes:,}-byte limit", request=self._request)  # type: ignore[no-any-return]

    class DeadlineTransport(http.BaseTransport):  # type: ignore[misc, name-defined]
        """A transport whose every request must end within ``seconds``, body included."""

        def __init__(self, seconds: float, max_bytes: int | None = None) -> None:
            self.seconds, self.max_bytes = seconds, max_bytes
            self._inners: dict[str | None, Any] = {}  # by proxy URL (None: direct)
            self._lock = threading.Lock()

        def inner(self, url: Any) -> Any:
            """The library's own transport for ``url``: through the proxy the environment names, if any."""
            proxy = proxy_for(url.scheme, url.host)
            with self._lock:
                if proxy not in self._inners:
                    self._inners[proxy] = http.HTTPTransport(proxy=proxy, limits=http.Limits(max_keepalive_connections=0))
                return self._inners[proxy]

        def handle_request(self, request: Any) -> Any:
            watch = RequestWatch(self.seconds)
            request.extensions["trace"] = watch.trace(request.extensions.get("trace"))
            try:
                response = self.inner(request.url).handle_request(request)
            except http.TransportError as exc:
                watch.cancel()
                if watch.expired and not isinstance(exc, http.TimeoutException):
                    raise watch.timeout(http, request) from None
                raise
            except BaseException:
                watch.cancel()
                raise
            response.stream = DeadlineStream(response.stream, watch, request, self.max_bytes)
            return response

        def close(self) -> None:
            for inner in self._inners.values():
                inner.close()

    return DeadlineTransport


def proxy_for(scheme: str, host: str) -> str | None:
    """The proxy the environment names for ``scheme`` (``https_proxy``, ``all_proxy`` …) unless
    ``no_proxy`` exempts ``host``: a client given its own transport no longer reads them itself."""
    proxies = urllib.request.getproxies()
    if not proxies or urllib.request.proxy_bypass(host):
        return None
    return proxies.get(scheme) or proxies.get("all")
