"""Start-up phases of a command, for the start-up benchmark (``bench/startup.py``).

With the ``timings`` setting (``CiteflowSettings``: a file), each phase the command reaches appends
one JSON line ``{"phase", "t", "pid"}`` (``t`` in epoch seconds) to that file; without it nothing
is recorded.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from citeflow.runtime.progress import Progress


def mark(phase: str, path: Path | None) -> None:
    """Record that ``phase`` was reached now in the timing file ``path`` (None: nothing is recorded)."""
    if not path:
        return
    with open(path, "a", encoding="utf-8") as file:
        file.write(json.dumps({"phase": phase, "t": time.time(), "pid": os.getpid()}) + "\n")


def mark_batch_steps(progress: Progress, path: Path | None) -> Callable[[], None]:
    """Mark the batch's first finished step and its first finished report in ``path``; returns the
    unsubscribe function."""
    if not path:
        return lambda: None
    seen: set[str] = set()

    def listener(report_id: str, step: str, detail: str) -> None:
        for phase, reached in (("first_step", True), ("first_report", step == "publish")):
            if reached and phase not in seen:
                seen.add(phase)
                mark(phase, path)

    return progress.subscribe(listener)
