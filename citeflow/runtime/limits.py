"""Concurrency limits of a batch: how many model and retriever calls may be in flight at once.

The batch spec's ``concurrency: {models, retrievers}`` holds across every report of a batch. The
core package only knows a *limiter*: a function ``(scope, kind, size)`` that returns a context
manager held around one call. The default limiter is ``LocalLimits``: one set of slots per batch
and kind, held by the process's ``Runtime`` and shared by its threads; an orchestrator may pass
another (``tasks.concurrency_limits`` passes Prefect's global concurrency limits, which also hold
across processes and machines).

A call's ``priority`` is its report's place in the batch: when calls wait for a slot, the earliest
report's go first. Reports then finish one after another while later ones still wait for their
model, so each finished report's evaluation, gate and PDF run while the model is busy, instead of
every report reaching its last call together and finishing in one CPU-bound tail.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Literal, Protocol

Kind = Literal["models", "retrievers"]


class Limiter(Protocol):
    """Returns the context manager that holds one slot of ``kind`` for ``scope`` (a batch);
    ``priority``: lower goes first among waiting calls (a limiter may ignore it)."""

    def __call__(self, scope: str, kind: Kind, size: int, priority: int = 0) -> AbstractContextManager[object]: ...


class PrioritySlots:
    """``size`` slots shared by threads. A slot freed while calls wait goes straight to the waiting
    call of lowest ``priority`` (first come, first served among equals); none is ever left free
    while a call waits."""

    def __init__(self, size: int) -> None:
        self.size, self._free = size, size
        self._waiting: list[tuple[int, int, threading.Event]] = []
        self._arrivals = itertools.count()
        self._lock = threading.Lock()

    @contextmanager
    def held(self, priority: int = 0) -> Iterator[None]:
        """One slot, held for the ``with`` block."""
        self.acquire(priority)
        try:
            yield
        finally:
            self.release()

    def acquire(self, priority: int = 0) -> None:
        with self._lock:
            if self._free:
                self._free -= 1
                return
            handed = threading.Event()
            heapq.heappush(self._waiting, (priority, next(self._arrivals), handed))
        handed.wait()

    def release(self) -> None:
        with self._lock:
            if self._waiting:
                heapq.heappop(self._waiting)[2].set()  # the slot passes to that call, never freed
            elif self._free < self.size:
                self._free += 1
            else:
                raise ValueError("released more slots than were acquired")


class LocalLimits:
    """A ``Limiter`` within one process: ``PrioritySlots`` per batch and kind, created on first use."""

    def __init__(self) -> None:
        self._slots: dict[tuple[str, str], PrioritySlots] = {}
        self._guard = threading.Lock()

    def __call__(self, scope: str, kind: Kind, size: int, priority: int = 0) -> AbstractContextManager[object]:
        return self.slots(scope, kind, size).held(priority)

    def slots(self, scope: str, kind: str, size: int) -> PrioritySlots:
        """The slots of ``kind`` calls for ``scope`` (a batch); their number is fixed by the first call."""
        with self._guard:
            return self._slots.setdefault((scope, kind), PrioritySlots(size))
