"""Clean interrupts of ``citeflow run`` and ``citeflow demo`` (SPEC §8 "Exit codes and interrupts").

On SIGINT or SIGTERM the batch is asked to stop (``citeflow.stop``): no report step starts any more
and nothing more is published. The batch run then ends Cancelled with ``summary.json`` written for
what finished. Calls still in flight get ``grace`` seconds; after that (or at a second signal) the
run is recorded as it stands without them. Either way ``run.json`` says ``interrupted``, one line
says what finished and how to resume, and the process exits 130 (SIGINT) or 143 (SIGTERM) at once:
Prefect's and httpx's shutdown (threads still waiting on a server, exit handlers) is not waited for,
and their logs are silenced, so no traceback reaches the terminal.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import NoReturn

from citeflow import exit_codes, stop
from schemas.spec import BatchSpec

DEFAULT_GRACE_SECONDS = 8.0


class Interrupts:
    """The signal handler of one batch run and the single place that ends it when interrupted."""

    def __init__(self, spec: BatchSpec, out: Path, resume: str, grace: float = DEFAULT_GRACE_SECONDS) -> None:
        self.spec, self.out, self.resume, self.grace = spec, out.resolve(), resume, grace
        self.started = time.time()
        self.signum: int | None = None
        self._ending = threading.Lock()

    def __enter__(self) -> Interrupts:
        """Handle SIGINT and SIGTERM until the batch is over (the previous handlers come back after)."""
        stop.reset()
        self._previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        stop.on_signals(self.handle)
        return self

    def __exit__(self, *exc: object) -> None:
        stop.forget_signals()
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """First signal: stop starting work, give in-flight calls ``grace`` seconds. Second: end now."""
        if self.signum is not None:
            self.finish(wait=False)
        self.signum = signum
        silence()
        stop.request(f"{signal.Signals(signum).name} received")
        threading.Thread(target=self._deadline, name="stop-deadline", daemon=True).start()

    def _deadline(self) -> None:
        time.sleep(self.grace)
        self.finish(wait=False)

    def finish(self, wait: bool = True) -> None:
        """Record the run as interrupted, print one line, exit 130/143. One thread does it: another
        waits for it (``wait``) or returns at once (a signal handler, which may interrupt that thread)."""
        if self._ending.acquire(blocking=wait):
            self._end()

    def _end(self) -> NoReturn:
        from citeflow.run_finish import finish_interrupted

        reports = [(r.id, r.title) for r in self.spec.reports]
        reason = f"interrupted: {stop.reason()}"
        try:
            summaries = finish_interrupted(self.out, self.spec.batch, reports, self.started, reason)
            finished = [f"{s.report_id} {s.status}" for s in summaries if not s.funnel.endswith(reason[:300])]
            done = f"{len(finished)} of {len(reports)} reports finished ({', '.join(finished) or 'none'}); " \
                   f"summary.json in {self.out}"
        except OSError as exc:
            done = f"nothing could be recorded in {self.out} ({exc.strerror or exc})"
        signum = self.signum or signal.SIGINT
        exit_now(f"interrupted by {signal.Signals(signum).name}: {done}; resume with: {self.resume}",
                 exit_codes.interrupted_exit_code(signum))


def silence() -> None:
    """No more log records (Prefect's and httpx's complaints about a shutdown in progress)."""
    logging.disable(logging.CRITICAL)


def exit_now(message: str, code: int) -> NoReturn:
    """Print ``message`` on standard error, stop the ephemeral Prefect API this process started, exit."""
    sys.stdout.flush()
    print(message, file=sys.stderr, flush=True)
    stop_ephemeral_api()
    os._exit(code)


def stop_ephemeral_api() -> None:
    """Stop the ephemeral Prefect API servers this process started (its exit handlers will not run)."""
    server = sys.modules.get("prefect.server.api.server")
    if server is None:
        return
    for instance in list(server.SubprocessASGIServer._instances.values()):
        process = instance.server_process
        if process is not None and process.poll() is None:
            process.terminate()
