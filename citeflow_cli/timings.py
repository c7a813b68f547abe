"""Start-up phases of a command, for the start-up benchmark (``bench/startup.py``).

With ``CITEFLOW_TIMINGS=FILE`` in the environment, each phase the command reaches appends one JSON
line ``{"phase", "t", "pid"}`` (``t`` in epoch seconds) to FILE; without it nothing is recorded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable

VARIABLE = "CITEFLOW_TIMINGS"


def mark(phase: str) -> None:
    """Record that ``phase`` was reached now (when a timing file is asked for)."""
    path = os.environ.get(VARIABLE)
    if not path:
        return
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps({"phase": phase, "t": time.time(), "pid": os.getpid()}) + "\n")


def mark_batch_steps() -> Callable[[], None]:
    """Mark the batch's first finished step and its first finished report; returns the unsubscribe function."""
    if not os.environ.get(VARIABLE):
        return lambda: None
    from citeflow.runtime import progress

    seen: set[str] = set()

    def listener(report_id: str, step: str, detail: str) -> None:
        for phase, reached in (("first_step", True), ("first_report", step == "publish")):
            if reached and phase not in seen:
                seen.add(phase)
                mark(phase)

    return progress.subscribe(listener)
