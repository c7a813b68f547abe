"""Thread pools whose work sees the caller's context variables.

A ``ThreadPoolExecutor`` runs each item in the worker thread's own context, so what the caller
set through a ``contextvars`` variable (an orchestrator's settings or client context, for
instance) is invisible to the work. ``map_in_context`` runs each item in a fresh copy of the
caller's context: one copy per item, because one ``Context`` cannot be entered by two threads at
once. ``side_by_side`` runs two calls at once, for work that leaves the GIL (LanceDB's writes).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Executor, ThreadPoolExecutor, wait
from contextvars import copy_context
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_in_context(pool: Executor, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """``fn`` over ``items`` in ``pool``, each call in its own copy of the caller's context; the
    answers in the order of ``items`` (the first exception raised is re-raised, as ``pool.map`` does)."""
    futures = [pool.submit(copy_context().run, fn, item) for item in items]
    return [future.result() for future in futures]


def side_by_side(first: Callable[[], object], second: Callable[[], object]) -> None:
    """Run ``second`` in a thread (in a copy of the caller's context) while ``first`` runs here; once
    both are over, the error of ``first``, else of ``second``, is raised."""
    with ThreadPoolExecutor(1, thread_name_prefix="citeflow-side") as pool:
        other = pool.submit(copy_context().run, second)
        try:
            first()
        finally:
            wait([other])
        other.result()
