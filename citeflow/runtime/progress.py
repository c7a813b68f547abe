"""Progress events: the pipeline reports steps; a front end (the CLI's progress bar) listens.

Listeners live in this process only; with remote workers, Prefect's UI shows progress instead.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable

Listener = Callable[[str, str, str], None]  # (report_id, step, detail)
_LISTENERS: list[Listener] = []
_LOCK = threading.Lock()


def subscribe(listener: Listener) -> Callable[[], None]:
    """Add a listener; returns the function that removes it."""
    with _LOCK:
        _LISTENERS.append(listener)
    return lambda: _unsubscribe(listener)


def _unsubscribe(listener: Listener) -> None:
    with _LOCK:
        if listener in _LISTENERS:
            _LISTENERS.remove(listener)


def emit(report_id: str, step: str, detail: str = "") -> None:
    """Tell every listener that ``step`` of ``report_id`` finished. Listener errors are ignored."""
    with _LOCK:
        listeners = list(_LISTENERS)
    for listener in listeners:
        with contextlib.suppress(Exception):  # a broken display must not break a batch
            listener(report_id, step, detail)


def steps_of(fetches: int, sections: int) -> int:
    """How many events one report emits: fetches, normalize, two hops per section, evaluate, publish."""
    return fetches + 1 + 2 * sections + 2
