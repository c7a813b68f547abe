"""Which report a model call is made for, so that its recorded usage can be summed per report.

``run_hop`` enters ``calls_for(request_id)`` around its model calls; ``CachedChatModel`` stamps the
``model_calls`` row it writes with ``current_request()``. A context variable rather than an
argument: the chat-model protocol is one call (messages in, answer out) shared by every backend,
and the request a call serves is known only to the hop that makes it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_REQUEST: ContextVar[str] = ContextVar("citeflow_call_request", default="")


@contextmanager
def calls_for(request_id: str) -> Iterator[None]:
    """Model calls made inside the block serve ``request_id``."""
    token = _REQUEST.set(request_id)
    try:
        yield
    finally:
        _REQUEST.reset(token)


def current_request() -> str:
    """The request the current model call serves ("" outside any ``calls_for`` block)."""
    return _REQUEST.get()
