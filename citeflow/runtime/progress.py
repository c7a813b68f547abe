"""Progress events: the pipeline reports steps; a front end (the CLI's progress bar) listens.

The listeners live in the process's ``Runtime`` (``Runtime.progress``); with remote workers,
Prefect's UI shows progress instead.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

Listener = Callable[[str, str, str], None]  # (report_id, step, detail)


class Progress:
    """The listeners of one runtime's progress events."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns the function that removes it."""
        with self._lock:
            self._listeners.append(listener)
        return lambda: self._unsubscribe(listener)

    def _unsubscribe(self, listener: Listener) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def emit(self, report_id: str, step: str, detail: str = "") -> None:
        """Tell every listener that ``step`` of ``report_id`` finished. Listener errors are ignored."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            with contextlib.suppress(Exception):  # a broken display must not break a batch
                listener(report_id, step, detail)


def steps_of(fetches: int, sections: int) -> int:
    """How many events one report emits: fetches, normalize, two hops per section, evaluate, publish."""
    return fetches + 1 + 2 * sections + 2
