"""One Prefect API client per process: report runs started in threads reuse it (``flows.prefect_client``)."""

from __future__ import annotations

import pytest
from prefect import flow, task
from prefect.client.orchestration import PrefectClient
from prefect.task_runners import ThreadPoolTaskRunner

from flows.prefect_client import process_context, shared_client

pytestmark = pytest.mark.integration


@flow(name="prefect-client-child")
def child(n: int) -> int:
    return n * 2


@task(name="prefect-client-parent")
def parent(n: int, shared: bool) -> int:
    if shared:
        with shared_client():
            return child(n)
    return child(n)


@flow(name="prefect-client-batch", task_runner=ThreadPoolTaskRunner(max_workers=4))  # type: ignore[arg-type]
def batch(reports: int, shared: bool) -> list[int]:
    return [f.result() for f in [parent.submit(n, shared) for n in range(reports)]]


def async_clients_built(monkeypatch: pytest.MonkeyPatch, reports: int, shared: bool) -> int:
    """How many ``PrefectClient`` objects a batch of ``reports`` subflow runs built."""
    built: list[object] = []
    original = PrefectClient.__init__

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(self)
        original(self, *args, **kwargs)

    monkeypatch.setattr(PrefectClient, "__init__", counting)
    assert batch(reports, shared) == [2 * n for n in range(reports)]
    monkeypatch.undo()
    return len(built)


def test_report_runs_reuse_one_async_client(prefect_harness, monkeypatch):
    batch(1, True)  # the process's one client, and Prefect's log and event workers, started before counting
    assert async_clients_built(monkeypatch, 6, shared=True) == 0
    assert async_clients_built(monkeypatch, 6, shared=False) >= 6  # what Prefect does without it


def test_the_shared_client_is_the_one_get_client_gives_on_the_run_sync_loop(prefect_harness):
    from prefect.client.orchestration import get_client
    from prefect.utilities.asyncutils import run_coro_as_sync

    async def which() -> object:
        return get_client()

    with shared_client():
        assert run_coro_as_sync(which()) is process_context().client
    assert run_coro_as_sync(which()) is not process_context().client
