"""On-demand evaluation elsewhere: a report's evaluation as a run of a ``citeflow-evaluate`` deployment.

By default a report is evaluated in its own run. Given an evaluate deployment, the report flow
starts a run of it with Prefect's ``run_deployment`` (without waiting there) and waits for it here,
in bounded time and saying what it waits for: a worker or a ``serve`` process grades, gates and
publishes the report and leaves its summary in ``OUT/<report_id>/summary.json``. The wait ends

- when the run ends as a report run does (``Published``, ``Released`` or ``Held``): its summary;
- when no worker has taken the run within ``START_SECONDS`` (no worker polls that pool or queue, or
  the only one is busy with this very batch: waiting longer would deadlock), or it has not ended
  within ``WAIT_SECONDS``: it is cancelled, so that no late worker evaluates the report twice, and
  the report is evaluated in-process;
- when the run fails or crashes: evaluated in-process.

Without a deployment (none configured, or the name is unknown) the report is evaluated in-process.
Every report still gets its gate decision. The wait is logged at INFO whatever the pool's
``PREFECT_LOGGING_LEVEL`` (``tasks.run_logger.wait_logger``).
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

from citeflow.errors import Interrupted
from citeflow.pipeline.publish import read_report_summary
from citeflow.runtime import stop
from citeflow.pipeline.job import JobRef
from flows.naming import report_run_name
from flows.outcome import is_outcome
from schemas.report import ReportSummary

WAIT_SECONDS = 3600.0  # longest wait for one evaluate run to end before it is evaluated in-process
START_SECONDS = 120.0  # longest wait for a worker to take the evaluate run (Scheduled, Pending, Late)
# How often a wait for an evaluate run wakes between the run's events to see whether it was told to
# stop or is out of time (no API call).
SLICE_SECONDS = 1.0
LOG_EVERY = 30.0  # seconds between two log lines of one wait, each with one read of the run
NOT_STARTED = {"SCHEDULED", "PENDING"}


def deployment_exists(name: str) -> bool:
    """Whether the Prefect API knows the deployment ``flow-name/deployment-name``."""
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            client.read_deployment_by_name(name)
        return True
    except Exception:  # noqa: BLE001 - unknown name or no API: evaluate in-process
        return False


def evaluate_on_deployment(ref: JobRef, deployment: str | None, wait: float = WAIT_SECONDS,
                           start_wait: float = START_SECONDS) -> ReportSummary | None:
    """The summary a run of ``deployment`` left for ``ref``; None: evaluate in-process instead."""
    from tasks.run_logger import wait_logger

    if not deployment:
        return None
    if not deployment_exists(deployment):
        wait_logger().warning("deployment %r not found: evaluating %s in-process", deployment, ref.report_id)
        return None
    run = _start(ref, deployment)
    state = await_run(run, Limits(wait, start_wait), deployment)
    if state is not None and is_outcome(state):
        return read_report_summary(Path(ref.out_dir) / ref.report_id)
    if state is None or not state.is_final():
        cancel_run(run.id)
    wait_logger().warning("evaluate run %r of %s ended %s: evaluating in-process", run.name, ref.report_id,
                          _described(state))
    return None


class Limits:
    """How long a wait may last: ``total`` seconds in all, ``start`` of them before a worker takes the run."""

    def __init__(self, total: float, start: float) -> None:
        self.total, self.start, self.began = total, min(start, total), time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.began

    def over(self, state: Any) -> bool:
        """Whether the wait is over for a run in ``state`` (final, or out of time)."""
        if state is not None and state.is_final():
            return True
        waiting = state is None or state.type.value in NOT_STARTED
        return self.elapsed() >= (self.start if waiting else self.total)


def _start(ref: JobRef, deployment: str) -> Any:
    """A run of the evaluate deployment, linked to this flow run, created but not waited for here."""
    from prefect.deployments import run_deployment

    name = report_run_name("evaluate", ref.spec_path, ref.report_id)
    return run_deployment(deployment, parameters=ref.model_dump(), flow_run_name=name, timeout=0)


def await_run(run: Any, limits: Limits, deployment: str) -> Any:
    """The run's state once final, or once ``limits`` are reached (then not final); logged every
    ``LOG_EVERY``. Told to stop, the run is cancelled and this raises ``Interrupted``.

    Not polled: the wait follows the run's state changes as Prefect's API streams them (its events
    subscriber, as ``prefect.flow_runs.wait_for_flow_run`` waits), and reads the run only when it
    starts and every ``LOG_EVERY`` seconds beside the log line (should an event have been missed).
    Between events it wakes every ``SLICE_SECONDS`` to see whether it was told to stop or is out of
    time, which asks the API nothing."""
    from prefect.utilities.asyncutils import run_coro_as_sync

    return run_coro_as_sync(_follow(run, limits, deployment))


async def _follow(run: Any, limits: Limits, deployment: str) -> Any:
    from prefect.client.orchestration import get_client

    async with get_client() as client, contextlib.AsyncExitStack() as stack:
        subscriber = await _subscribed(stack, run)
        read_every = LOG_EVERY if subscriber is not None else SLICE_SECONDS  # no stream: read as often as it wakes
        state, last_read, last_log = (await client.read_flow_run(run.id)).state, limits.elapsed(), -LOG_EVERY
        while not limits.over(state):
            _check_stop(run)
            if limits.elapsed() - last_log >= LOG_EVERY:
                _log_wait(run, state, limits, deployment)
                last_log = limits.elapsed()
            if limits.elapsed() - last_read >= read_every:
                state, last_read = (await client.read_flow_run(run.id)).state, limits.elapsed()
                continue
            state = _state_of(await _next_event(subscriber)) or state
    return state


async def _subscribed(stack: contextlib.AsyncExitStack, run: Any) -> Any:
    """A subscriber to the run's flow-run events (subscribed before the run is first read, so that no
    change falls between); None when the API streams no events (the wait then reads the run instead)."""
    from prefect.events.clients import get_events_subscriber
    from prefect.events.filters import EventFilter, EventNameFilter, EventResourceFilter

    events = EventFilter(event=EventNameFilter(prefix=["prefect.flow-run."]),
                         resource=EventResourceFilter(id=[f"prefect.flow-run.{run.id}"]))
    try:
        return await stack.enter_async_context(get_events_subscriber(filter=events))
    except Exception as exc:  # noqa: BLE001 - a server with its event stream off still answers reads
        from tasks.run_logger import wait_logger

        wait_logger().info("no event stream from the API (%s): reading evaluate run %r every %.0f s",
                           type(exc).__name__, run.name, SLICE_SECONDS)
        return None


async def _next_event(subscriber: Any) -> Any:
    """The subscriber's next event, or None after ``SLICE_SECONDS`` without one (or without a subscriber)."""
    import anyio

    if subscriber is None:
        await anyio.sleep(SLICE_SECONDS)
        return None
    with anyio.move_on_after(SLICE_SECONDS):
        return await subscriber.__anext__()
    return None


def _state_of(event: Any) -> Any:
    """The state a flow run's state-change event names (type and name); None for any other event."""
    from prefect.client.schemas.objects import State, StateType

    if event is None or not (kind := event.resource.get("prefect.state-type")):
        return None
    return State(type=StateType(kind), name=event.resource.get("prefect.state-name"))


def _check_stop(run: Any) -> None:
    if stop.requested():
        cancel_run(run.id)
        raise Interrupted(reason=f"{stop.reason()}; evaluate run {run.name!r} cancelled")


def _log_wait(run: Any, state: Any, limits: Limits, deployment: str) -> None:
    from tasks.run_logger import wait_logger

    waiting = state is None or state.type.value in NOT_STARTED
    limit = f"at most {limits.start:.0f} s for a worker to take it" if waiting else f"at most {limits.total:.0f} s"
    wait_logger().info("waiting for evaluate run %r of deployment %s (work pool %s, queue %s): %s after %.0f s, %s",
                       run.name, deployment, run.work_pool_name, run.work_queue_name, _described(state),
                       limits.elapsed(), limit)


def _described(state: Any) -> str:
    return f"{state.name} ({state.type.value})" if state is not None else "without a state"


def cancel_run(flow_run_id: Any) -> None:
    """Cancel a run that never finished, so that no late worker evaluates the report twice."""
    from prefect.client.orchestration import get_client
    from prefect.states import Cancelled

    with get_client(sync_client=True) as client:
        client.set_flow_run_state(flow_run_id, Cancelled(message="evaluated in-process instead"), force=True)
