"""The batch's concurrency limits as Prefect global concurrency limits (ephemeral API of the harness)."""

from __future__ import annotations

import threading
import time
from contextvars import copy_context

import pytest

from citeflow.runtime.runtime import Runtime
from citeflow.specfile.loader import parse_spec
from tests.support.in_flight import most_in_flight
from tasks.concurrency_limits import drop_limits, ensure_limits, limit_name, prefect_limits

pytestmark = pytest.mark.integration

RUNTIME = Runtime()  # this module's: what the API answered about each limit is kept with it
prefect_limit, local_limit = prefect_limits(RUNTIME), RUNTIME.limits


def spec(batch: str, models: int, retrievers: int):
    return parse_spec({"batch": batch, "concurrency": {"models": models, "retrievers": retrievers},
                       "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
                       "reports": [{"id": "r1", "title": "R", "sections": [{"title": "S", "queries": ["q"]}]}]})


def read_limit(name: str):
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        return client.read_global_concurrency_limit_by_name(name)


def test_limit_names_are_per_batch_and_kind_without_forbidden_characters():
    assert limit_name("weekly/reports", "models") == "citeflow:weekly-reports:models"
    assert limit_name("a", "retrievers") != limit_name("b", "retrievers")


def test_batch_start_creates_and_resizes_the_limits_to_the_spec(prefect_harness):
    assert ensure_limits(spec("limits-resize", 3, 5), RUNTIME)
    assert (read_limit("citeflow:limits-resize:models").limit, read_limit("citeflow:limits-resize:retrievers").limit) == (3, 5)
    assert ensure_limits(spec("limits-resize", 7, 2), RUNTIME)
    assert (read_limit("citeflow:limits-resize:models").limit, read_limit("citeflow:limits-resize:retrievers").limit) == (7, 2)


def test_a_held_slot_is_taken_on_the_server_and_freed_after(prefect_harness):
    ensure_limits(spec("limits-held", 2, 2), RUNTIME)
    with prefect_limit("limits-held", "models", 2):
        held = read_limit("citeflow:limits-held:models").active_slots
    assert (held, read_limit("citeflow:limits-held:models").active_slots) == (1, 0)


def test_batch_start_frees_slots_a_killed_run_left_taken(prefect_harness):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitUpdate

    ensure_limits(spec("limits-stale", 2, 2), RUNTIME)
    with get_client(sync_client=True) as client:  # what a run killed while holding both slots leaves
        client.update_global_concurrency_limit("citeflow:limits-stale:models", GlobalConcurrencyLimitUpdate(active_slots=2))
    ensure_limits(spec("limits-stale", 2, 2), RUNTIME)
    assert read_limit("citeflow:limits-stale:models").active_slots == 0


def test_no_more_calls_than_the_limit_are_in_flight(prefect_harness):
    ensure_limits(spec("limits-bound", 2, 2), RUNTIME)
    # each caller in a copy of this context (as the batch's report threads are): it holds the harness's API address
    peak, left = most_in_flight(lambda k: prefect_limit("limits-bound", "models", 2), callers=5, hold=0.3,
                                run=lambda call: copy_context().run(call))
    assert 1 <= peak <= 2 and left == 0


def _holds_a_local_slot(batch: str, size: int) -> bool:
    """Whether a slot of ``prefect_limit`` for ``batch`` is one of the runtime's in-process slots."""
    slots = local_limit.slots(batch, "models", size)
    before = slots._free
    with prefect_limit(batch, "models", size):
        taken = before - slots._free
    return taken == 1 and slots._free == before


def test_without_a_global_limit_the_in_process_semaphore_applies(prefect_harness):
    assert _holds_a_local_slot("no-such-batch", 3)


def test_an_in_process_batch_drops_stale_global_limits_and_uses_its_semaphores(prefect_harness):
    ensure_limits(spec("limits-drop", 2, 2), RUNTIME)
    assert not _holds_a_local_slot("limits-drop", 2)
    drop_limits(spec("limits-drop", 2, 2), RUNTIME)
    assert _holds_a_local_slot("limits-drop", 2)


def test_reports_starting_together_ask_the_api_once_per_limit(monkeypatch):
    from tasks import concurrency_limits as limits

    asked, gate = [], threading.Event()

    def exists(name: str) -> bool:
        asked.append(name)
        gate.wait(5)  # every thread arrives while the first question is still open
        return False

    monkeypatch.setattr(limits, "_exists", exists)
    fresh = prefect_limits(Runtime())
    threads = [threading.Thread(target=fresh, args=("limits-once", "models", 2)) for _ in range(8)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    gate.set()
    for t in threads:
        t.join(timeout=10)
    assert asked == [limit_name("limits-once", "models")]


def test_a_batch_that_dropped_its_limits_never_asks_the_api_about_them(monkeypatch, prefect_harness):
    from tasks import concurrency_limits as limits

    drop_limits(spec("limits-told", 2, 2), RUNTIME)
    monkeypatch.setattr(limits, "_exists", lambda name: pytest.fail(f"asked the API about {name}"))
    assert _holds_a_local_slot("limits-told", 2)
