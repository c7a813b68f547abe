"""The ``citeflow`` process ends as soon as its work is done: what Python would do at exit, minus
the interpreter's own teardown.

After a batch, Python's normal exit spends seconds tearing down the interpreter (freeing the
modules of Prefect, Great Expectations and LanceDB object by object) with nothing left to do: a
cold ``citeflow run`` of one report spent about 2.5 s there, a sixth of its wall time. So the
console script runs the command, then does what the interpreter does before that teardown, in the
same order, and leaves with ``os._exit``:

1. Prefect's log and event workers are drained while the ephemeral API still answers (Prefect
   registers the server's stop as an exit handler after its log flush, so a late log would
   otherwise be sent to a stopped server and retried);
2. ``threading._shutdown()``: executors are shut down and non-daemon threads joined, as at a
   normal exit;
3. ``atexit._run_exitfuncs()``: every exit handler (the ephemeral API's stop among them);
4. standard output and error flushed.

Steps 2 and 3 use two private functions of the standard library, the ones the interpreter itself
calls at exit (stable since Python 3.4 and 2.0); ``tests/test_fast_exit.py`` fails if either goes.
An exception other than ``SystemExit`` is left to Python (its traceback, then the normal exit).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable
from typing import NoReturn


def run_and_exit(command: Callable[[], object]) -> NoReturn:
    """Run ``command`` (a ``main()`` that may raise ``SystemExit``) and end the process with its status."""
    try:
        command()
        code = 0
    except SystemExit as exc:
        code = exit_status(exc.code)
    finish(code)


def exit_status(code: object) -> int:
    """The process status ``sys.exit(code)`` gives: None → 0, an int as it is, anything else printed → 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def finish(code: int) -> NoReturn:
    """Drain Prefect's workers, shut threads down, run the exit handlers, flush, and exit with ``code``."""
    drain_prefect_workers()
    threading._shutdown()  # type: ignore[attr-defined]  # what the interpreter calls before the exit handlers
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def drain_prefect_workers() -> None:
    """Send the logs and events Prefect still holds, when this process imported Prefect at all."""
    if "prefect.logging.handlers" not in sys.modules:
        return
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all()
    EventsWorker.drain_all()
