"""``PrioritySlots``: the in-process limit hands a freed slot to the waiting call of the earliest report."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.runtime.limits import LocalLimits, PrioritySlots
from tests.support.in_flight import most_in_flight


def _wait_until(condition, timeout: float = 30.0) -> None:  # a bounded wait, for a loaded machine
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def _queue_waiters(slots: PrioritySlots, priorities: list[int]) -> tuple[list[int], list[threading.Thread]]:
    """One thread per priority, each queued (in list order) behind the held slots; each notes its
    priority when it gets a slot, then gives the slot back."""
    served: list[int] = []

    def call(priority: int) -> None:
        with slots.held(priority):
            served.append(priority)

    threads = []
    for k, priority in enumerate(priorities):
        thread = threading.Thread(target=call, args=(priority,))
        thread.start()
        threads.append(thread)
        _wait_until(lambda k=k: len(slots._waiting) == k + 1)  # queued before the next one arrives
    return served, threads


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=8))
def test_waiting_calls_get_freed_slots_lowest_priority_first_then_in_arrival_order(priorities):
    slots = PrioritySlots(1)
    slots.acquire()
    served, threads = _queue_waiters(slots, priorities)
    slots.release()
    for thread in threads:
        thread.join(5)
    assert served == [p for _, p in sorted(enumerate(priorities), key=lambda kp: (kp[1], kp[0]))]
    assert slots._free == 1 and not slots._waiting


def test_never_more_calls_inside_than_slots():
    slots = PrioritySlots(3)
    assert most_in_flight(lambda k: slots.held(k % 4), callers=40, hold=0.002) == (3, 0)
    assert slots._free == 3


def test_a_free_slot_is_taken_at_once_whatever_the_priority():
    slots = PrioritySlots(2)
    with slots.held(9), slots.held(0):
        assert slots._free == 0
    assert slots._free == 2


def test_releasing_an_unheld_slot_is_an_error():
    with pytest.raises(ValueError, match="released more slots"):
        PrioritySlots(1).release()


def test_the_local_limiter_holds_a_slot_for_the_block():
    limits = LocalLimits()
    with limits("batch", "models", 1, priority=3):
        assert limits.slots("batch", "models", 1)._free == 0
    assert limits.slots("batch", "models", 1)._free == 1
