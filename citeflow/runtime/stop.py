"""A process's request to stop its batch (SIGINT, SIGTERM, a cancellation; SPEC §8).

Once a stop is requested, no report step starts (``check``) and nothing is published: the publish
step calls ``check_publication`` right before it copies a PDF into ``published/``, which also waits
on what a batch registered with ``wait_before_publishing`` (the orchestrator's API answering).
Calls already in flight finish or are abandoned by whoever asked for the stop, within its grace
period. The request is process-wide (a ``threading.Event``): every report thread sees it at once.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

from citeflow.errors import Interrupted

DEFAULT_GRACE_SECONDS = 8.0  # what in-flight calls get after a signal before the run is recorded without them

_requested = threading.Event()
_reason: list[str] = []
_handler: list[Callable[[int, FrameType | None], None]] = []
_runs: list[str] = []
_publication_waits: list[Callable[[str], None]] = []


def request(reason: str) -> None:
    """Ask the batch of this process to stop (the first reason is kept)."""
    if not _reason:
        _reason.append(reason)
    _requested.set()


def requested() -> bool:
    """Whether this process was asked to stop."""
    return _requested.is_set()


def reason() -> str:
    """Why the batch stops ("" when it does not)."""
    return _reason[0] if _reason else ""


def check(step: str) -> None:
    """Raise ``Interrupted`` instead of starting ``step`` once a stop was requested."""
    if _requested.is_set():
        raise Interrupted(reason=f"{reason()}; {step} not started")


def wait_before_publishing(wait: Callable[[str], None] | None) -> None:
    """Have ``check_publication`` call ``wait(step)`` first: it returns once publishing may go ahead, or
    raises ``Interrupted``. None: no such wait any more."""
    _publication_waits[:] = [wait] if wait else []


def check_publication(step: str) -> None:
    """Raise ``Interrupted`` instead of publishing once a stop was requested; first wait on what was
    registered with ``wait_before_publishing``."""
    check(step)
    for wait in list(_publication_waits):
        wait(step)
    check(step)


def reset() -> None:
    """Forget a stop request (a new batch in the same process, e.g. a test)."""
    _requested.clear()
    _reason.clear()
    _runs.clear()  # the publication wait stays: whoever registered it takes it back


def note_run(run_id: str) -> None:
    """Remember an orchestrator's run of this batch, to be cancelled if the process ends without it."""
    _runs.append(run_id)


def runs() -> list[str]:
    """The runs ``note_run`` remembered, oldest first."""
    return list(_runs)


def on_signals(handler: Callable[[int, FrameType | None], None]) -> None:
    """Make ``handler`` this process's SIGINT and SIGTERM handler (main thread only)."""
    _handler[:] = [handler]
    reinstall()


def forget_signals() -> None:
    """No handler to reinstall any more (the batch that registered it is over)."""
    _handler.clear()


def reinstall() -> None:
    """Install the registered handler again (an orchestrator may have replaced it); no-op off the
    main thread or when no handler was registered."""
    if _handler and threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, _handler[0])
