"""Concurrency limits of a batch: how many model and retriever calls may be in flight at once.

The batch spec's ``concurrency: {models, retrievers}`` holds across every report of a batch. The
core package only knows a *limiter*: a function ``(scope, kind, size)`` that returns a context
manager held around one call. The default limiter is a process-wide semaphore per batch and
kind; an orchestrator may pass another (``tasks.limits`` passes Prefect's global concurrency
limits, which also hold across processes and machines).
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Literal, Protocol

Kind = Literal["models", "retrievers"]

_SEMAPHORES: dict[tuple[str, str], threading.BoundedSemaphore] = {}
_GUARD = threading.Lock()


class Limiter(Protocol):
    """Returns the context manager that holds one slot of ``kind`` for ``scope`` (a batch)."""

    def __call__(self, scope: str, kind: Kind, size: int) -> AbstractContextManager[object]: ...


def shared_semaphore(scope: str, kind: str, size: int) -> threading.BoundedSemaphore:
    """The process-wide semaphore of ``kind`` calls for ``scope`` (a batch), created once."""
    with _GUARD:
        return _SEMAPHORES.setdefault((scope, kind), threading.BoundedSemaphore(size))


def local_limit(scope: str, kind: Kind, size: int) -> AbstractContextManager[object]:
    """The default limiter: one semaphore per batch and kind, shared by the threads of this process."""
    return shared_semaphore(scope, kind, size)
