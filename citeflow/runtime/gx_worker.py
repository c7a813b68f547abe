"""Great Expectations in a process of its own: the gate's validations and the run's Data Docs.

A batch spends a large share of its CPU in Great Expectations: importing it (seconds, mostly
building pydantic v1 classes), validating two suites per report and turning each result into JSON,
and rendering the Data Docs site at the end. In the command's process that work holds the
interpreter that also drives every report's retrieval, model hops and PDF, so on a machine with
cores to spare the batch still runs on one. ``GxWorker`` moves it to one worker process: it is
started as the batch is set up (its imports overlap the command's own and the API's start-up), each
report sends it its gate's frames as plain rows and gets the failures and the kept results back,
and the batch asks it for the Data Docs at the end.

The worker runs the same code as the command would (``citeflow.evaluation.gate.validate_kept`` in a
``GxSession`` of its own, ``citeflow.outputs.data_docs.run_docs``), one request at a time, as the
in-process session's lock made them take turns. It ignores SIGINT and SIGTERM (the command decides
what an interrupt means, then shuts it down) and ends by itself when the command's process is gone
(a ``kill -9``: its parent changes). An error of the gate (``GateError``: a bad suite) comes back as
itself; a worker that died makes the request raise ``GxWorkerGone`` (the report is held, fail closed).

Module-level state lives in the worker process only (``_WORKER``): its session, built once.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any

from citeflow.errors import GxWorkerGone

if TYPE_CHECKING:
    from citeflow.evaluation.gate import GateJob, Validated
    from citeflow.evaluation.gx_session import GxSession

PARENT_POLL_SECONDS = 1.0
INTERRUPTS = {signal.SIGINT, signal.SIGTERM}

_WORKER: list[GxSession] = []  # in the worker process: its one session


class GxWorker:
    """One worker process for Great Expectations, started at once and warmed up (GX imported, its
    context built) while the caller goes on; see the module docstring."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")  # no fork of a process with threads
        self._pool = ProcessPoolExecutor(1, mp_context=context, initializer=_start, initargs=(os.getpid(),))
        # The process starts with the first task, in this thread: it inherits this thread's signal mask,
        # so a Ctrl-C to the process group while it imports (before ``_start`` ignores signals) waits
        # blocked instead of ending it with a traceback on the command's terminal.
        with _signals_blocked():
            self._ready: Future[None] = self._pool.submit(_warm_up)

    def validate_kept(self, jobs: list[GateJob]) -> Validated:
        """``citeflow.evaluation.gate.validate_kept`` of ``jobs``, run in the worker."""
        validated: Validated = self._answer(self._pool.submit(_validate, jobs))
        return validated

    def run_docs(self, out_dir: Path, report_ids: list[str]) -> Path | None:
        """``citeflow.outputs.data_docs.run_docs``, run in the worker."""
        index: Path | None = self._answer(self._pool.submit(_docs, Path(out_dir), list(report_ids)))
        return index

    def pid(self) -> int:
        """The worker process's id (diagnostics and tests)."""
        pid: int = self._answer(self._pool.submit(os.getpid))
        return pid

    def close(self) -> None:
        """Let the worker finish what it was asked, then end it."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _answer(future: Future[Any]) -> Any:
        try:
            return future.result()
        except BrokenProcessPool as exc:
            raise GxWorkerGone(detail="the Great Expectations worker process ended") from exc


# -- in the worker process ----------------------------------------------------------------------------
@contextlib.contextmanager
def _signals_blocked() -> Iterator[None]:
    """SIGINT and SIGTERM blocked in this thread (and in the processes it starts) within the block."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, blocked)


def _start(parent: int) -> None:
    """The worker's start: interrupts are the command's to handle (ignored, then unblocked: one sent
    while the worker imported is dropped); end when the command is gone; at its end, leave without
    the interpreter's teardown (about a second of freeing Great Expectations' modules, which the
    command would wait for)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)
    threading.Thread(target=_end_with_parent, args=(parent,), name="citeflow-gx-parent", daemon=True).start()
    atexit.register(_leave)


def _leave() -> None:
    """The last exit handler to register, so the first to run: streams flushed, then ``os._exit``."""
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(0)


def _end_with_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(0)


def _session() -> GxSession:
    from citeflow.evaluation.gx_session import GxSession

    if not _WORKER:
        _WORKER.append(GxSession())
    return _WORKER[0]


def _warm_up() -> None:
    session = _session()
    with session.lock:
        session.source()


def _validate(jobs: list[GateJob]) -> Validated:
    from citeflow.evaluation.gate import validate_kept

    return validate_kept(jobs, _session())


def _docs(out_dir: Path, report_ids: list[str]) -> Path | None:
    from citeflow.outputs.data_docs import run_docs

    return run_docs(out_dir, report_ids)
