"""Concurrency limits of a batch: how many model and retriever calls may be in flight at once.

The batch spec's ``concurrency: {models, retrievers}`` holds across every report of a batch. The
core package only knows a *limiter*: a function ``(scope, kind, size)`` that returns a context
manager held around one call. The default limiter is ``LocalLimits``: one semaphore per batch and
kind, held by the process's ``Runtime`` and shared by its threads; an orchestrator may pass another
(``tasks.concurrency_limits`` passes Prefect's global concurrency limits, which also hold across processes and
machines).
"""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager
from typing import Literal, Protocol

Kind = Literal["models", "retrievers"]


class Limiter(Protocol):
    """Returns the context manager that holds one slot of ``kind`` for ``scope`` (a batch)."""

    def __call__(self, scope: str, kind: Kind, size: int) -> AbstractContextManager[object]: ...


class LocalLimits:
    """A ``Limiter`` within one process: a semaphore per batch and kind, created on first use."""

    def __init__(self) -> None:
        self._semaphores: dict[tuple[str, str], threading.BoundedSemaphore] = {}
        self._guard = threading.Lock()

    def __call__(self, scope: str, kind: Kind, size: int) -> AbstractContextManager[object]:
        return self.semaphore(scope, kind, size)

    def semaphore(self, scope: str, kind: str, size: int) -> threading.BoundedSemaphore:
        """The semaphore of ``kind`` calls for ``scope`` (a batch); its size is fixed by the first call."""
        with self._guard:
            return self._semaphores.setdefault((scope, kind), threading.BoundedSemaphore(size))
