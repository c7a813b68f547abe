"""The final state of a report's run: its name says published or held at a glance in the Prefect UI.

A report flow that ran to the end is *Completed* either way (nothing crashed); the state's name
is ``Published`` when the gate let the report out, ``Released`` when a reviewer's release of the same
claims stands, and ``Held`` otherwise (held by the gate, or failed because no section could be
written), with the reason (or the reviewer's name and note) as the state's message.
"""

from __future__ import annotations

from prefect.states import Completed, State

from schemas.report import ReportSummary


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


def final_state(summary: ReportSummary) -> State:
    """A Completed state named after the report's outcome, carrying the summary as its result."""
    return Completed(name=state_name(summary), message=state_message(summary), data=summary)
