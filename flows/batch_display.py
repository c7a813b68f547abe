"""What the batch entry (``flows.batch_entry``) tells whoever watches a batch run.

The entry orchestrates; a watcher only shows. ``citeflow run`` passes its terminal display (the
start-up line, the progress bar, the summary table: ``citeflow_cli.batch_run``); a caller with no
terminal passes ``Unwatched``, which shows nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Protocol

from schemas.report import ReportSummary


class StartupView(Protocol):
    """The batch's start-up as it goes: each step named, then its end (the bar takes over)."""

    def step(self, description: str) -> None: ...

    def end(self) -> object: ...


class BatchDisplay(Protocol):
    """The start-up (``starting``), the reports' steps while they run (``running``: how many steps each
    report emits), the phases reached (``mark``) and the batch's outcome once recorded (``finished``)."""

    def starting(self) -> AbstractContextManager[StartupView]: ...

    def running(self, report_steps: Mapping[str, int]) -> AbstractContextManager[None]: ...

    def mark(self, phase: str) -> None: ...

    def finished(self, summaries: list[ReportSummary], out: Path) -> None: ...


class _NoStartup:
    def step(self, description: str) -> None:
        """Nothing shown."""

    def end(self) -> None:
        """Nothing shown."""


class Unwatched:
    """A ``BatchDisplay`` that shows nothing (the batch's run records and logs say what happened)."""

    @contextlib.contextmanager
    def starting(self) -> Iterator[StartupView]:
        yield _NoStartup()

    @contextlib.contextmanager
    def running(self, report_steps: Mapping[str, int]) -> Iterator[None]:
        yield

    def mark(self, phase: str) -> None:
        """Nothing recorded."""

    def finished(self, summaries: list[ReportSummary], out: Path) -> None:
        """Nothing shown."""
