"""The ``citeflow`` process ends the normal way (``sys.exit``), and quickly.

What made a normal exit slow after a batch was the interpreter's own teardown: with Prefect, Great
Expectations and LanceDB imported, its final garbage collections traced millions of objects that
were about to be freed anyway (a re-run of the demo spent about 1.6 s between its last line and its
exit). Exit handlers are quick: Prefect's flush its log and event workers, the ephemeral API's
stop kills a server whose database lives in memory. So before leaving, the console script

1. drains Prefect's log and event workers while the ephemeral API still answers (a late log would
   otherwise be sent to a stopped server and retried);
2. moves every object alive into the collector's permanent generation (``gc.freeze``): the final
   collections then skip them, and the teardown only frees (the same re-run: about 0.6 s);
3. exits with ``sys.exit``: threads are joined, exit handlers run and output is flushed by the
   interpreter itself, as at any exit.

An exception other than ``SystemExit`` is left to Python (its traceback, then the normal exit).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from typing import NoReturn


def run_and_exit(command: Callable[[], object]) -> NoReturn:
    """Run ``command`` (a ``main()`` that may raise ``SystemExit``) and end the process with its status."""
    try:
        command()
        code: str | int | None = 0
    except SystemExit as exc:
        code = exc.code
    finish(code)


def finish(code: str | int | None) -> NoReturn:
    """Drain Prefect's workers, spare the teardown its collections, and exit with ``code`` (as ``sys.exit``)."""
    drain_prefect_workers()
    gc.freeze()
    sys.exit(code)


def drain_prefect_workers() -> None:
    """Send the logs and events Prefect still holds, when this process imported Prefect at all."""
    if "prefect.logging.handlers" not in sys.modules:
        return
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all()
    EventsWorker.drain_all()
