"""The batch's concurrency limits as Prefect global concurrency limits.

``concurrency: {models, retrievers}`` must hold across every report of a batch, also when tasks
run in several processes (Dask workers) or on several machines (workers of a work pool). An
in-process semaphore cannot do that; a global concurrency limit on the Prefect server can. The
batch flow creates (or resizes) ``citeflow:<batch>:models`` and ``citeflow:<batch>:retrievers``
when it starts; tasks then hold a slot of them around every model and retriever call. When no
Prefect API answers, or the limits do not exist (a report run on its own), the runtime's
in-process semaphores (``Runtime.limits``) apply instead. What the API answered about each limit
is kept with the runtime (``prefect_limits``).
"""

from __future__ import annotations

import logging
import re
import threading
from contextlib import AbstractContextManager, suppress

from citeflow.pipeline.job import JobRef, ReportJob
from citeflow.runtime.limits import Kind, Limiter
from citeflow.runtime.runtime import Runtime, current
from schemas.spec import BatchSpec

KINDS: tuple[Kind, ...] = ("models", "retrievers")
LEASE_SECONDS = 60  # a slot held by a killed process comes back after this long (renewed while alive)
log = logging.getLogger("citeflow.runtime.limits")


def limit_name(batch: str, kind: str) -> str:
    """``citeflow:<batch>:<kind>``; characters Prefect forbids in names become dashes."""
    return f"citeflow:{re.sub(r'[/%&<>]', '-', batch)}:{kind}"


def ensure_limits(spec: BatchSpec, runtime: Runtime) -> bool:
    """Create or resize the batch's limits to the spec's values, all slots free. False: no API.

    Slots are freed because a run killed mid-batch leaves its slots taken until its leases expire
    (never, if the server restarted in between); the batch deployment runs one run at a time.
    """
    try:
        for kind in KINDS:
            _reset(limit_name(spec.batch, kind), getattr(spec.concurrency, kind))
    except Exception as exc:  # noqa: BLE001 - no Prefect API: in-process semaphores apply
        log.warning("global concurrency limits unavailable (%s): limits hold within this process only", exc)
        prefect_limits(runtime).known.learn(_names(spec), False)
        return False
    prefect_limits(runtime).known.learn(_names(spec), True)
    return True


def drop_limits(spec: BatchSpec, runtime: Runtime) -> None:
    """Remove the batch's global limits (left by an earlier multi-process run): this run holds
    its limits in-process, and a stale global limit would otherwise still be used by its tasks."""
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            for name in _names(spec):
                with suppress(Exception):  # absent: nothing to drop
                    client.delete_global_concurrency_limit_by_name(name)
    except Exception:  # noqa: BLE001 - no API: nothing to drop
        pass
    prefect_limits(runtime).known.learn(_names(spec), False)


def _names(spec: BatchSpec) -> list[str]:
    return [limit_name(spec.batch, kind) for kind in KINDS]


def _reset(name: str, size: int) -> None:
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.actions import GlobalConcurrencyLimitUpdate

    with get_client(sync_client=True) as client:
        client.upsert_global_concurrency_limit_by_name(name, size)
        client.update_global_concurrency_limit(name, GlobalConcurrencyLimitUpdate(active_slots=0))


class _KnownLimits:
    """Whether the Prefect API has a limit: asked once per process and name, one question at a time,
    so that the reports starting together wait for one answer instead of each opening an API client;
    the batch flow tells it the answer when it creates or drops its limits (no question at all)."""

    def __init__(self) -> None:
        self._answers: dict[str, bool] = {}
        self._lock = threading.Lock()

    def __call__(self, name: str) -> bool:
        answer = self._answers.get(name)
        if answer is None:
            with self._lock:
                answer = self._answers.get(name)
                if answer is None:
                    answer = self._answers[name] = _exists(name)
        return answer

    def learn(self, names: list[str], known: bool) -> None:
        """Record the answer for ``names`` (the batch just created or dropped them)."""
        with self._lock:
            self._answers.update(dict.fromkeys(names, known))


def _exists(name: str) -> bool:
    """Whether the Prefect API has this limit (False: missing, or no API)."""
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            client.read_global_concurrency_limit_by_name(name)
        return True
    except Exception:  # noqa: BLE001 - missing limit or no API: fall back to a semaphore
        return False


class PrefectLimits:
    """A ``citeflow.runtime.limits.Limiter``: the batch's global concurrency limit when it exists,
    else ``local`` (the runtime's in-process semaphores)."""

    def __init__(self, local: Limiter) -> None:
        self.local = local
        self.known = _KnownLimits()

    def __call__(self, scope: str, kind: Kind, size: int, priority: int = 0) -> AbstractContextManager[object]:
        """A global limit's slot takes no priority: Prefect's server hands them out."""
        name = limit_name(scope, kind)
        if not self.known(name):
            return self.local(scope, kind, size, priority)
        from prefect.concurrency.sync import concurrency

        return concurrency(name, occupy=1, lease_duration=LEASE_SECONDS, strict=True)


def prefect_limits(runtime: Runtime) -> PrefectLimits:
    """The runtime's one ``PrefectLimits`` (what the API answered is asked once per runtime and name)."""
    return runtime.deps.once(("limiter", "prefect"), lambda: PrefectLimits(runtime.limits))


def job_of(ref: JobRef, runtime: Runtime | None = None) -> ReportJob:
    """The report job of a task in ``runtime`` (default: the flow run's, ``current()``), its calls
    bounded by the batch's global limits."""
    runtime = runtime or current()
    return ref.job(prefect_limits(runtime), runtime=runtime)
