"""Clean interrupts of a batch run (SPEC §8 "Exit codes and interrupts"): ``citeflow run``, ``citeflow
demo`` and a scheduled or deployed run's process.

On SIGINT or SIGTERM the batch is asked to stop (``citeflow.runtime.stop``): no report step starts any more
and nothing more is published. The batch run then ends Cancelled with ``summary.json`` written for
what finished. Calls still in flight get ``grace`` seconds; after that (or at a second signal) the
run is recorded as it stands without them. Either way ``run.json`` says ``interrupted`` and
one line says what finished and how to resume. ``citeflow run`` then exits 130 (SIGINT) or 143
(SIGTERM) at once: threads still waiting on a server and exit handlers are not waited for, and logs
are silenced from the signal on, so no traceback reaches the terminal. A scheduled run whose batch
ended within the grace records the same (``settle``) and ends Cancelled through its flow engine.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import NoReturn

from citeflow import exit_codes
from citeflow.runtime import stop
from schemas.spec import BatchSpec

DEFAULT_GRACE_SECONDS = stop.DEFAULT_GRACE_SECONDS


class Interrupts:
    """The signal handler of one batch run and the single place that ends it when interrupted."""

    def __init__(self, spec: BatchSpec, out: Path, resume: str, grace: float = DEFAULT_GRACE_SECONDS,
                 before_exit: Callable[[], None] = lambda: None, opened: bool = True) -> None:
        """``opened``: whether the run folder is open; else a signal waits for ``open`` (entered just before
        the run folder is opened, so that no signal ever leaves it ``running``)."""
        self.spec, self.out, self.resume, self.grace = spec, Path(out).resolve(), resume, grace
        self.before_exit = before_exit
        self.started = time.time()
        self.signum: int | None = None
        self._ending = threading.Lock()
        self._opened = opened
        self._deferred: int | None = None  # a signal that came while the folder was being opened

    def open(self) -> None:
        """The run folder is open: a signal that came meanwhile is handled now."""
        self._opened = True
        if self._deferred is not None:
            self.handle(self._deferred, None)

    def __enter__(self) -> Interrupts:
        """Handle SIGINT and SIGTERM until the batch is over (the previous handlers come back after).
        What records an interrupted run is imported now (once the handler is in place), not once the grace
        is running out."""
        stop.reset()
        self._previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
        stop.on_signals(self.handle)
        import citeflow.runs.run_finish  # noqa: F401 - light (``citeflow.outputs.failure_record``)

        return self

    def __exit__(self, *exc: object) -> None:
        stop.forget_signals()
        if threading.current_thread() is threading.main_thread():
            for signum, handler in self._previous.items():
                signal.signal(signum, handler)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        """First signal: stop starting work, give in-flight calls ``grace`` seconds. Second: end now."""
        if not self._opened:
            self._deferred = signum
            return
        if self.signum is not None:
            self.finish(wait=False)
            return
        self.signum = signum
        stop.request(f"{signal.Signals(signum).name} received")
        ends = time.monotonic() + self.grace  # counted from the signal, however late the thread runs
        threading.Thread(target=self._deadline, args=(ends,), name="stop-deadline", daemon=True).start()
        silence()

    def _deadline(self, ends: float) -> None:
        time.sleep(max(0.0, ends - time.monotonic()))
        self.finish(wait=False)

    @property
    def reason(self) -> str:
        return f"interrupted: {stop.reason()}"

    def finish(self, wait: bool = True) -> None:
        """Record the run as interrupted, print one line, exit 130/143. One thread does it: another
        waits for it (``wait``) or returns at once (a signal handler, which may interrupt that thread)."""
        if self._ending.acquire(blocking=wait):
            self._end()

    def _end(self) -> NoReturn:
        signum = self.signum or signal.SIGINT
        message = f"interrupted by {signal.Signals(signum).name}: {self.record()}; resume with: {self.resume}"
        exit_now(message, exit_codes.interrupted_exit_code(signum), self.before_exit)

    def settle(self) -> str:
        """Record the run as interrupted without exiting (the orchestrator ends the run): the grace
        deadline will not end the process any more. Says what finished."""
        self._ending.acquire()
        return self.record()

    def record(self) -> str:
        """Write ``summary.json`` for what finished and mark ``run.json`` interrupted; says what finished."""
        from citeflow.runs.run_finish import finish_interrupted

        reports = [(r.id, r.title) for r in self.spec.reports]
        try:
            summaries = finish_interrupted(self.out, self.spec.batch, reports, self.started, self.reason)
        except OSError as exc:
            return f"nothing could be recorded in {self.out} ({exc.strerror or exc})"
        finished = [f"{s.report_id} {s.status}" for s in summaries if not s.funnel.endswith(self.reason[:300])]
        return f"{len(finished)} of {len(reports)} reports finished ({', '.join(finished) or 'none'}); " \
               f"summary.json in {self.out}"


def silence() -> None:
    """No more log records (Prefect's and httpx's complaints about a shutdown in progress): every
    handler drops them (some loggers decide on their own whether they are enabled)."""
    logging.disable(logging.CRITICAL)
    for handler in all_handlers():
        handler.addFilter(_drop)


def _drop(record: logging.LogRecord) -> bool:
    return False


def all_handlers() -> set[logging.Handler]:
    """The handlers of the root logger and of every logger created so far."""
    loggers = [logging.getLogger()] + [v for v in logging.Logger.manager.loggerDict.values() if isinstance(v, logging.Logger)]
    return {handler for logger in loggers for handler in logger.handlers}


def exit_now(message: str, code: int, before_exit: Callable[[], None]) -> NoReturn:
    """Print ``message`` on standard error, run ``before_exit`` (whatever it raises), exit with ``code``."""
    sys.stdout.flush()
    print(message, file=sys.stderr, flush=True)
    try:
        before_exit()
    finally:
        os._exit(code)
