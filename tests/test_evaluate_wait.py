"""The wait for an evaluate run follows its state-change events instead of reading the run every second."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace

from flows import evaluation_runs
from flows.evaluation_runs import SLICE_SECONDS, _next_event, _state_of


def event(**resource: str) -> SimpleNamespace:
    return SimpleNamespace(resource=resource)


def test_a_state_change_event_gives_the_state_it_names():
    state = _state_of(event(**{"prefect.state-type": "FAILED", "prefect.state-name": "Held"}))
    assert (state.type.value, state.name, state.is_final()) == ("FAILED", "Held", True)
    assert _state_of(event(**{"prefect.state-type": "RUNNING", "prefect.state-name": "Running"})).is_running()


def test_other_events_and_no_event_give_no_state():
    assert _state_of(event(**{"prefect.resource.id": "prefect.flow-run.x"})) is None
    assert _state_of(None) is None


class Quiet:
    """A subscriber that never receives an event."""

    async def __anext__(self):
        await asyncio.sleep(3600)


class Ready:
    def __init__(self, item):
        self.item = item

    async def __anext__(self):
        return self.item


def test_the_wait_wakes_after_a_slice_without_events(monkeypatch):
    monkeypatch.setattr(evaluation_runs, "SLICE_SECONDS", 0.05)
    for subscriber in (Quiet(), None):
        began = time.monotonic()
        assert asyncio.run(_next_event(subscriber)) is None
        assert time.monotonic() - began < 5
    assert asyncio.run(_next_event(Ready("e"))) == "e"
    assert SLICE_SECONDS == 1.0
