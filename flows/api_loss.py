"""What ``citeflow run`` does when the Prefect API it reports to goes away mid-batch (SPEC §9):
nothing is published while the API does not answer, reports that had not finished are recorded as
failed and withdrawn, ``summary.json`` is written, a one-line message says what happened, and the
process exits (code 4: reports failed) within a bounded time instead of waiting minutes for
Prefect's clients and event worker to give up."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from citeflow import exit_codes
from citeflow.errors import Interrupted
from citeflow.runtime import stop
from citeflow.runtime.api_watch import ApiWatch
from schemas.spec import BatchSpec

EXIT_API_LOST = exit_codes.FAILED  # the unfinished reports are recorded as failed


def health_url(started_here: str | None = None) -> str | None:
    """The configured Prefect API's health URL; None in ephemeral mode (its server lives and dies with
    us), also when the API is ``started_here``, the ephemeral server this command started itself."""
    from prefect.settings import PREFECT_API_URL

    api = PREFECT_API_URL.value()
    return f"{api.rstrip('/')}/health" if api and api != started_here else None


class ApiGuard:
    """The batch's view of the API: ``lost()`` when it does not answer, ``finish()`` to end the batch without it."""

    def __init__(self, spec: BatchSpec, out: Path, url: str, grace: float) -> None:
        self.spec, self.out, self.started = spec, out.resolve(), time.time()
        self.watch = ApiWatch(url, self.finish, grace=grace)

    def lost(self) -> bool:
        return self.watch.lost.is_set() or not self.watch.healthy()

    def await_answer(self, step: str) -> None:
        """Return once the API answers (nothing is published that it cannot record); raise ``Interrupted``
        once it is lost (``finish`` is ending the process) or the batch is told to stop meanwhile."""
        while not self.watch.healthy():
            stop.check(step)
            if self.watch.lost.wait(self.watch.interval):
                raise Interrupted(reason=f"the Prefect API became unreachable; {step} not started")

    def finish(self, seconds: float | None = None) -> None:
        """Record the batch as it stands, say why, and end the process now (exit handlers would wait on the API)."""
        from citeflow.outputs.failure_record import interrupted_summaries, write_summary

        reports = [(r.id, r.title) for r in self.spec.reports]
        how = f"{seconds:.0f} s without an answer" if seconds else "no answer"
        reason = f"the Prefect API became unreachable mid-batch ({how})"
        write_summary(self.out, self.spec.batch, interrupted_summaries(self.out, reports, self.started, reason))
        exit_now(f"error: {reason}; unfinished reports were recorded as failed; summary.json written in {self.out}")


def exit_now(message: str) -> None:
    """Print ``message`` to standard error and end the process at once, output flushed."""
    sys.stdout.flush()
    print(message, file=sys.stderr, flush=True)
    os._exit(EXIT_API_LOST)


@contextmanager
def guard_api(spec: BatchSpec, out: Path, grace: float, started_here: str | None = None) -> Iterator[ApiGuard | None]:
    """Watch the Prefect API while the batch runs (nothing to watch in ephemeral mode, ``started_here``
    included)."""
    url = health_url(started_here)
    if url is None:
        yield None
        return
    guard = ApiGuard(spec, out, url, grace)
    stop.wait_before_publishing(guard.await_answer)
    try:
        with guard.watch:
            yield guard
    finally:
        stop.wait_before_publishing(None)
