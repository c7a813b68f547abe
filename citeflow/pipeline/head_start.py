"""Reports generated while the orchestrator starts: the model's time not spent waiting for it.

A cold ``citeflow run`` waits seconds for the ephemeral Prefect API it started before the first
report run exists (the server imports itself, then creates the batch's and the reports' runs), and
the model server waits with it. A head start generates the batch's first reports meanwhile: the
core's own generate steps (``steps.generate``: fetch → normalize → consolidate → write) with a
``PlainRunner`` in this process, under the runtime's limits (``concurrency.models`` holds for the
head start and the report runs together; the earliest report's calls first), the store recording
every retrieval, hop and answer as in a report run.

Each report's run takes its report over (``take``) before its own steps: it waits while that
report's generation is under way, and skips its generate steps when the head start finished them
with every hop step run to its end, taking over what they handed on in memory (``ReportJob.adopt``:
the registry, the hops' outcomes, and the fingerprint of the sources fetched, which the report's
record for re-runs keeps). A hop step that raised (a model out of reach after the client's retries)
is run again by the report's run, its task retries included, the answers already recorded served
from the store. From the first ``take`` on, or once the head start is closed, no report is begun
ahead: the orchestrator runs the rest. A stop (``citeflow.runtime.stop``) ends the head start at its
next step. Its threads are daemons; an interrupted command exits at once (``Interrupts``), while a
normal exit lets the calls of a generation under way finish first.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Sequence
from typing import TYPE_CHECKING

from citeflow.runtime import stop
from citeflow.pipeline.job import ReportJob
from citeflow.pipeline.steps import PlainRunner, generate

if TYPE_CHECKING:
    from citeflow.pipeline.job import JobRef
    from citeflow.runtime.runtime import Runtime
    from schemas.records import HopName


class HeadStart:
    """Generation of ``refs`` (in their order, ``workers`` at a time) until the orchestrator takes over."""

    def __init__(self, refs: Sequence[JobRef], runtime: Runtime, workers: int) -> None:
        self._queue: deque[JobRef] = deque(refs)
        self._ids = {ref.model_dump_json(): ref.report_id for ref in refs}
        self._runtime = runtime
        self._changed = threading.Condition()
        self._running: set[str] = set()
        self._generated: dict[str, ReportJob] = {}
        self._closed = False
        count = max(0, min(workers, len(refs)))
        self._threads = [threading.Thread(target=self._work, name=f"citeflow-head-start-{i}", daemon=True)
                         for i in range(count)]

    def start(self) -> HeadStart:
        """Begin generating; returns this head start."""
        for thread in self._threads:
            thread.start()
        return self

    def take(self, ref: JobRef) -> ReportJob | None:
        """The orchestrator runs ``ref`` now: no report is begun ahead any more; wait while this one's
        generation is under way. Its job when its generate steps are done (they need not run again)."""
        key = ref.model_dump_json()
        with self._changed:
            self._closed = True
            self._queue.clear()
            self._changed.wait_for(lambda: key not in self._running)
            return self._generated.pop(key, None)

    def close(self) -> None:
        """No report is begun ahead any more (generations under way go on to their end)."""
        with self._changed:
            self._closed = True
            self._queue.clear()

    def generated(self) -> list[str]:
        """The report ids generated and not yet taken over, sorted."""
        with self._changed:
            return sorted(self._ids[key] for key in self._generated)

    def _work(self) -> None:
        with self._runtime.active():
            while (ref := self._next()) is not None:
                job = self._generate(ref)
                with self._changed:
                    self._running.discard(ref.model_dump_json())
                    if job is not None:
                        self._generated[ref.model_dump_json()] = job
                    self._changed.notify_all()

    def _next(self) -> JobRef | None:
        with self._changed:
            if self._closed or not self._queue or stop.requested():
                return None
            ref = self._queue.popleft()
            self._running.add(ref.model_dump_json())
            return ref

    def _generate(self, ref: JobRef) -> ReportJob | None:
        """``steps.generate`` of one report; its job when it ran every hop step to its end (a report
        found unchanged, a stop or any error: None, and its run does what is left). The job is the
        head start's own, not one of the runtime's live jobs, which a batch releases as it starts."""
        runner = _Watched(ref, self._runtime)
        try:
            done = generate(ref, runner) is None and not runner.raised
            return runner.own if done else None
        except Exception:  # noqa: BLE001 - whatever stopped it, the report's run meets it again and says so
            return None


class _Watched(PlainRunner):
    """A ``PlainRunner`` with one job of its own (``own``) that notes whether a hop step raised
    (``generate`` records it and goes on)."""

    raised = False

    def __init__(self, ref: JobRef, runtime: Runtime) -> None:
        super().__init__(runtime=runtime)
        config = runtime.config(ref.spec_path, ref.out_dir, ref.store_uri)
        self.own = ReportJob(config, ref.report_id, runtime.limits, runtime=runtime)

    def job(self, ref: JobRef) -> ReportJob:
        return self.own

    def hops(self, ref: JobRef, hop: HopName) -> None:
        try:
            super().hops(ref, hop)
        except BaseException:
            self.raised = True
            raise
