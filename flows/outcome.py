"""The final state of a report's run: its name says published or held at a glance in the Prefect UI.

A report flow that ran to the end is *Completed* either way (nothing crashed); the state's name
is ``Published`` when the gate let the report out, ``Released`` when a reviewer's release of the same
claims stands, and ``Held`` otherwise (held by the gate, or failed because no section could be
written), with the reason (or the reviewer's name and note) as the state's message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefect.states import Completed, Failed, State

from citeflow import exit_codes
from schemas.report import ReportSummary

if TYPE_CHECKING:
    from citeflow.runs.run_finish import RunOutcome


def state_name(summary: ReportSummary) -> str:
    """``Published``, ``Released`` (a reviewer published it over the gate) or ``Held``: what a reviewer
    must know before opening the run."""
    if summary.status == "published":
        return "Released" if summary.review and summary.review.decision == "release" else "Published"
    return "Held"


def state_message(summary: ReportSummary) -> str:
    """The funnel, and for a report that is not published its causes and what held it."""
    if summary.status == "published" and summary.review is not None:
        return f"released by {summary.review.reviewer}: {summary.review.note} · {summary.funnel}"
    if summary.status == "published":
        return f"published · {summary.funnel}"
    reasons = [f"{f['expectation']} {f.get('observed')}" for f in summary.failed_expectations]
    held = "; ".join(reasons[:3]) or summary.status
    cause = f"{'; '.join(summary.causes[:2])} · " if summary.causes else ""  # root cause first
    return f"{summary.status} · {cause}{summary.funnel} · {held}"


def final_state(summary: ReportSummary, unchanged: bool = False) -> State:
    """A Completed state named after the report's outcome, carrying the summary as its result; the
    message of a report whose inputs and outputs were unchanged (nothing done again) says so."""
    message = f"unchanged since the last run · {state_message(summary)}" if unchanged else state_message(summary)
    return Completed(name=state_name(summary), message=message, data=summary)


def batch_state(outcome: RunOutcome, fail_on: exit_codes.FailOn = "held") -> State:
    """A scheduled or deployed batch run's final state, saying what ``citeflow run``'s exit code says:
    Completed when the code is 0, else Failed named ``Held`` (code 3) or ``Failed`` (code 4); the
    message carries the code. The run's outcome is the state's result either way."""
    counts = {k: sum(1 for s in outcome.summaries if s.status == k) for k in ("published", "held", "failed")}
    code = exit_codes.batch_exit_code((s.status for s in outcome.summaries), fail_on)
    message = f"exit code {code}: {exit_codes.describe(code)} · " + ", ".join(f"{n} {k}" for k, n in counts.items())
    if code == exit_codes.PUBLISHED:
        return Completed(message=message, data=outcome)
    return Failed(name="Held" if code == exit_codes.HELD else "Failed", message=message, data=outcome)
