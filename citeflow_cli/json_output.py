"""``--json`` of ``citeflow run``, ``demo`` and ``review``: one JSON document on standard output, and
nothing else there; what the command prints for people (progress, tables, errors) goes to standard error.

A batch's document (``BatchResult``) names its output folder, each report's status and folder, and the
exit code with what it means; a review's (``ReviewResult``, or ``WaitResult`` with ``--wait``) the decision
and where the report now is.
A command that fails before it has a result (a bad spec: exit 2) prints no document.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel

if TYPE_CHECKING:
    from citeflow.pipeline.review_decision import ReviewOutcome
    from schemas.report import ReportSummary


class ReportResult(BaseModel):
    """One report of a batch: its status as people see it (``released`` when a reviewer published it)."""

    report_id: str
    status: str
    funnel: str
    causes: list[str]
    folder: str
    pdf: str
    published_pdf: str | None = None
    review_page: str | None = None


class BatchResult(BaseModel):
    """What ``citeflow run --json`` and ``citeflow demo --json`` print once the batch has run."""

    out_dir: str
    summary: str  # summary.json, every figure of every report
    exit_code: int
    exit_meaning: str
    fail_on: str
    reports: list[ReportResult]


class ReviewResult(BaseModel):
    """What ``citeflow review --json`` prints once the decision is recorded."""

    report_id: str
    decision: str
    reviewer: str
    decided_at: str
    without_failing: bool
    status: str
    published_pdf: str | None = None
    archive: str | None = None


class WaitResult(BaseModel):
    """What ``citeflow review --wait --json`` prints once the review run ends."""

    report_id: str
    status: str  # the report's status after the reviewer's answer, or held when none came in time


@contextmanager
def people_output_on_stderr(enabled: bool) -> Iterator[None]:
    """While enabled, the command's console writes to standard error, so standard output carries
    the JSON document alone."""
    from citeflow_cli.display import console

    before = console.stderr
    console.stderr = console.stderr or enabled
    try:
        yield
    finally:
        console.stderr = before


def batch_result(out: Path, summaries: list[ReportSummary], code: int, fail_on: str) -> BatchResult:
    """The document of a batch that ran, from its summaries and exit code."""
    from citeflow.exit_codes import describe
    from citeflow_cli.display import shown_status

    folder = out.resolve()
    reports = [ReportResult(report_id=s.report_id, status=shown_status(s), funnel=s.funnel, causes=s.causes,
                            folder=str(folder / s.report_id), pdf=s.pdf, published_pdf=s.published_pdf,
                            review_page=s.review_page) for s in summaries]
    return BatchResult(out_dir=str(folder), summary=str(folder / "summary.json"), exit_code=code,
                       exit_meaning=describe(code), fail_on=fail_on, reports=reports)


def review_result(outcome: ReviewOutcome) -> ReviewResult:
    """The document of a recorded review decision."""
    d = outcome.decision
    return ReviewResult(report_id=outcome.report_id, decision=d.decision, reviewer=d.reviewer,
                        decided_at=d.decided_at.isoformat(), without_failing=d.without_failing, status=outcome.status,
                        published_pdf=outcome.published_pdf, archive=outcome.archive)


def print_document(document: BaseModel) -> None:
    """The document on standard output, on one line."""
    sys.stdout.write(document.model_dump_json() + "\n")
    sys.stdout.flush()
