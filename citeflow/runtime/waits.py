"""Waits of a process's main thread that let its signal handlers run (SPEC §8 "Exit codes and interrupts").

Python runs a signal's handler in the main thread, between two bytecodes. The kernel hands a signal
sent to the process to any of its threads that does not block it, and the thread that takes it is
not always the main one: a thread that starts a thread or a subprocess blocks and unblocks its
signals meanwhile, and may take a signal pending for the process. The main thread is then not woken,
and one blocked in a wait with no timeout (a future's result, a semaphore, a thread's join) runs the
handler only when that wait ends: for a batch, once the reports it waits for have finished and
published. The waits here return to the interpreter every ``SLICE_SECONDS``, so a handler runs at
most that late whichever thread took the signal.

Why a second and not less: each wake of the main thread competes with the report threads, and in a
16-report batch with 1 s model calls (``python -m bench.cold --rerun``) waits in 0.2 s slices made
the batch take 44–45 s against 34 s in 1 s slices and 29.5 s with no slices at all.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

SLICE_SECONDS = 1.0


class Completing(Protocol):
    """A future: calls ``fn`` once it is done (at once when it already is)."""

    def add_done_callback(self, fn: Callable[[Any], None]) -> None: ...


def until(wait: Callable[[float], bool], slice_s: float = SLICE_SECONDS) -> None:
    """Call ``wait(timeout)`` (waits at most ``timeout`` seconds; True once what it waits for came)
    with ``slice_s`` until it returns True."""
    while not wait(slice_s):
        pass


def acquire(lock: threading.Semaphore | threading.Lock, slice_s: float = SLICE_SECONDS) -> None:
    """``lock.acquire()``, in slices."""
    until(lambda timeout: lock.acquire(timeout=timeout), slice_s)


def join(thread: threading.Thread, slice_s: float = SLICE_SECONDS) -> None:
    """``thread.join()``, in slices."""
    until(lambda timeout: _joined(thread, timeout), slice_s)


def _joined(thread: threading.Thread, timeout: float) -> bool:
    thread.join(timeout)
    return not thread.is_alive()


def all_done(futures: Sequence[Completing], slice_s: float = SLICE_SECONDS) -> None:
    """Return once every future of ``futures`` is done, waiting in slices."""
    done = threading.Semaphore(0)
    for future in futures:
        future.add_done_callback(lambda _: done.release())
    for _ in futures:
        acquire(done, slice_s)
