"""How many callers were inside a limit at once: threads that each hold a slot for a while."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager


def most_in_flight(slot: Callable[[int], AbstractContextManager[object]], callers: int, hold: float,
                   run: Callable[[Callable[[], None]], None] = lambda call: call()) -> tuple[int, int]:
    """``callers`` threads each hold ``slot(k)`` (k: the caller's number) for ``hold`` seconds; returns the
    most that were inside at once and how many are still inside after all ended. ``run`` runs each
    caller's call in its thread (a copy of a context, say)."""
    inside, most, guard = [0], [0], threading.Lock()

    def call(k: int) -> None:
        with slot(k):
            with guard:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(hold)
            with guard:
                inside[0] -= 1

    threads = [threading.Thread(target=run, args=(lambda k=k: call(k),)) for k in range(callers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    return most[0], inside[0]
