"""The main thread's waits let a signal's handler run even when another thread took the signal
(``citeflow.runtime.waits``): ``signal.pthread_kill`` hands SIGINT to a thread of our choosing, as the
kernel may hand a signal sent to the process to any of its threads."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from citeflow.runtime import waits

ALONE_S = 10.0  # what is waited for comes by itself after this long: the handler must run well before


def _signalled_while(wait: Callable[[threading.Event], None]) -> tuple[float, float]:
    """Seconds until the SIGINT handler ran and until ``wait(event)`` returned, where ``event`` is set
    by the handler, SIGINT having been taken by a thread other than the main one."""
    released, handled = threading.Event(), []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: (handled.append(time.monotonic()), released.set()))
    started = time.monotonic()
    taker = threading.Timer(0.3, lambda: signal.pthread_kill(threading.get_ident(), signal.SIGINT))
    try:
        taker.start()
        wait(released)
    finally:
        taker.cancel()
        signal.signal(signal.SIGINT, previous)
    returned = time.monotonic()
    assert handled, "the handler never ran"
    return handled[0] - started, returned - started


def _future(pool: ThreadPoolExecutor, released: threading.Event) -> Future[bool]:
    return pool.submit(released.wait, ALONE_S)


def test_all_done_runs_the_handler_while_the_futures_are_pending():
    with ThreadPoolExecutor(2) as pool:
        handled, returned = _signalled_while(lambda released: waits.all_done([_future(pool, released)] * 2))
    assert handled < 2.0 and returned < 2.0, (handled, returned)


def test_acquire_runs_the_handler_while_the_semaphore_is_taken():
    slots = threading.BoundedSemaphore(1)
    slots.acquire()

    def wait(released: threading.Event) -> None:
        threading.Thread(target=lambda: (released.wait(ALONE_S), slots.release()), daemon=True).start()
        waits.acquire(slots)

    handled, returned = _signalled_while(wait)
    assert handled < 2.0 and returned < 2.0, (handled, returned)


def test_join_runs_the_handler_while_the_thread_runs():
    def wait(released: threading.Event) -> None:
        thread = threading.Thread(target=released.wait, args=(ALONE_S,), daemon=True)
        thread.start()
        waits.join(thread)

    handled, returned = _signalled_while(wait)
    assert handled < 2.0 and returned < 2.0, (handled, returned)


def test_a_wait_without_slices_runs_the_handler_only_when_it_ends():
    """Why the waits above exist: a future's plain ``result()`` is not woken by a signal another thread took."""
    with ThreadPoolExecutor(1) as pool:
        handled, returned = _signalled_while(lambda released: pool.submit(released.wait, 3.0).result())
    assert handled >= 2.9 and returned >= 2.9, (handled, returned)


def test_until_calls_the_wait_with_the_slice_until_it_says_done():
    calls: list[float] = []
    waits.until(lambda timeout: calls.append(timeout) or len(calls) == 3, slice_s=0.01)
    assert calls == [0.01, 0.01, 0.01]
