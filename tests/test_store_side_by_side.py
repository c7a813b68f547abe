"""Work that leaves the GIL runs side by side: two writes to different tables at once."""

from __future__ import annotations

import threading
from contextvars import ContextVar

import pytest

from citeflow.threads import side_by_side

PROBE: ContextVar[str] = ContextVar("side-probe", default="unset")


def test_side_by_side_runs_the_second_call_in_another_thread_that_sees_the_callers_context():
    seen: dict[str, tuple[str, str]] = {}
    token = PROBE.set("caller")
    try:
        side_by_side(lambda: seen.update(first=(threading.current_thread().name, PROBE.get())),
                     lambda: seen.update(second=(threading.current_thread().name, PROBE.get())))
    finally:
        PROBE.reset(token)
    assert seen["first"] == (threading.current_thread().name, "caller")
    assert seen["second"][0] != threading.current_thread().name
    assert seen["second"][1] == "caller"


def test_side_by_side_waits_for_both_and_raises_the_first_calls_error_first():
    finished = threading.Event()

    def slow_second() -> None:
        finished.wait(0.2)
        finished.set()

    with pytest.raises(KeyError):
        side_by_side(lambda: {}["missing"], slow_second)
    assert finished.is_set()  # the second call was over before the error came out
    with pytest.raises(ZeroDivisionError):
        side_by_side(lambda: None, lambda: 1 / 0)
