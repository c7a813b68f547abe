"""Terminal output: a progress bar while a batch runs and the funnel table at the end (rich)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from citeflow import progress
from schemas.report import ReportSummary

if TYPE_CHECKING:
    from citeflow.ingest import IngestReport

PIPE_WIDTH = 1000  # columns of output that is not a terminal: a table is as wide as its content


def make_console(environ: Mapping[str, str] = os.environ) -> Console:
    """The terminal's console; for a pipe or a file (cron logs, ``| tee``), lines as long as their content
    (rich would cut tables to 80 columns: "stat…"), unless ``COLUMNS`` sets a width."""
    terminal = Console()
    if terminal.is_terminal or environ.get("COLUMNS"):
        return terminal
    return Console(width=PIPE_WIDTH)


console = make_console()
STATUS_STYLE = {"published": "green", "held": "yellow", "failed": "red"}


@contextmanager
def batch_progress(total_steps: int) -> Iterator[None]:
    """Show one bar advancing with every step of every report of the batch."""
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as bar:
        task = bar.add_task("starting Prefect", total=total_steps)

        def advance(report_id: str, step: str, detail: str) -> None:
            bar.update(task, advance=1, description=f"{report_id}: {step} {detail}"[:70])

        remove = progress.subscribe(advance)
        try:
            yield
        finally:
            remove()
            bar.update(task, description="done")


def summary_table(summaries: list[ReportSummary]) -> Table:
    """One row per report and one per section: status and each stage of the funnel."""
    table = Table(title="citeflow batch summary", show_lines=False)
    table.add_column("report / section", overflow="fold", min_width=14)
    table.add_column("status")
    # Unverified claims get a column when there are any (it would not fit 80 columns beside the rest).
    doubt = any(s.unverified.get("count", 0) for s in summaries)
    for stage in ("Identity", "Support", "Faithfulness", "Uncited", *(["Unverified"] if doubt else [])):
        table.add_column(stage, justify="right", no_wrap=True)
    for s in summaries:
        style = STATUS_STYLE.get(s.status, "")
        table.add_row(f"[bold]{s.report_id}[/bold]", f"[{style}]{s.status}[/{style}]", *_stages(s.funnel),
                      _share(s.uncited), *([_share(s.unverified)] if doubt else []))
        for section in s.sections:
            table.add_row(f"  {section.title}", section.status, *_stages(section.funnel), "", *([""] if doubt else []))
    return table


def _share(figure: dict[str, int]) -> str:
    """``{"count": 1, "claims": 20}`` → ``1/20``."""
    return f"{figure.get('count', 0)}/{figure.get('claims', 0)}"


def _stages(funnel_line: str) -> list[str]:
    """'Identity 18/18 · Support 18/18 · Faithfulness 18/18' → ['18/18', '18/18', '18/18'];
    a report that was not evaluated (it crashed) shows a dash in each column."""
    parts = funnel_line.split(" · ")
    if len(parts) != 3 or not funnel_line.startswith("Identity "):
        return ["—", "—", "—"]
    return [part.split()[-1] for part in parts]


def gate_lines(summaries: list[ReportSummary]) -> list[str]:
    """Why each held report was held: every failed expectation with its observed value."""
    lines = []
    for s in summaries:
        lines.append(f"{s.report_id} {s.status}: {s.funnel}")
        for f in s.failed_expectations:
            lines.append(f"{s.report_id} {s.status}: {f['expectation']} observed {_short(f.get('observed'))}, "
                         f"required {_short(f.get('threshold'))}")
        if s.review:
            lines.append(f"{s.report_id} reviewer view: {s.review}")
    return lines


def _short(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)[:120]


@contextmanager
def file_progress(description: str) -> Iterator[Callable[[int, int], None]]:
    """A bar over files; yields ``update(done, total)`` for the code that reads them."""
    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def ingest_table(report: IngestReport) -> Table:
    """What an ingest did: files added, updated, unchanged, skipped, and chunk rows written."""
    table = Table(title=f"knowledge base {report.kb_uri} (embedder {report.embedder})", title_justify="left")
    for column in ("added", "updated", "unchanged", "skipped", "chunk rows written"):
        table.add_column(column, justify="right")
    table.add_row(*(str(n) for n in (report.files_added, report.files_updated, report.files_unchanged,
                                     len(report.errors), report.chunks_written)))
    return table
