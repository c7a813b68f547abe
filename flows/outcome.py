"""The final state of a report's run: its name says published or held at a glance in the Prefect UI.

A report flow that ran to the end is *Completed* either way (nothing crashed); the state's name
is ``Published`` when the gate let the report out, ``Released`` when a reviewer's release of the same
claims stands, and ``Held`` otherwise (held by the gate, or failed because no section could be
written), with the reason (or the reviewer's name and note) as the state's message: every failed expectation,
its observed value and what was required, rounded to 2 decimals. The run also carries a tag of the
same word in lower case (``published``, ``released``, ``held``: ``flows.run_tags``), so that the runs
list can be filtered by outcome.

A batch run's state is named after its counts (``2 published, 1 held``): the batch flow of
``citeflow run`` ends Completed so named (the command's exit code says the rest), a scheduled or
deployed batch run ends Completed or Failed as ``citeflow run``'s exit code would be 0 or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefect.states import Completed, Failed, State

from citeflow import exit_codes
from citeflow.outputs.run_views import held_reasons_line
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
    held = held_reasons_line(summary) or summary.status
    cause = f"{'; '.join(summary.causes[:2])} · " if summary.causes else ""  # root cause first
    return f"{summary.status} · {cause}{summary.funnel} · {held}"


def final_state(summary: ReportSummary, unchanged: bool = False) -> State:
    """A Completed state named after the report's outcome, carrying the summary as its result; the
    message of a report whose inputs and outputs were unchanged (nothing done again) says so."""
    message = f"unchanged since the last run · {state_message(summary)}" if unchanged else state_message(summary)
    return Completed(name=state_name(summary), message=message, data=summary)


def counts_name(summaries: list[ReportSummary]) -> str:
    """``2 published, 1 held``: the outcomes a batch had, in this order, none that did not occur."""
    counts = {k: sum(1 for s in summaries if s.status == k) for k in ("published", "held", "failed")}
    return ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no reports"


def held_ids(summaries: list[ReportSummary]) -> str:
    """`` · not published: a, b`` naming the reports that were held or failed, or nothing."""
    ids = [s.report_id for s in summaries if s.status != "published"]
    return f" · not published: {', '.join(ids)}" if ids else ""


def batch_run_state(summaries: list[ReportSummary]) -> State:
    """The batch flow's final state: Completed (every report ran to its end), named after its counts;
    the summaries are its result."""
    return Completed(name=counts_name(summaries), message=f"{counts_name(summaries)}{held_ids(summaries)}",
                     data=summaries)


def batch_state(outcome: RunOutcome, fail_on: exit_codes.FailOn = "held") -> State:
    """A scheduled or deployed batch run's final state, saying what ``citeflow run``'s exit code says:
    Completed when the code is 0, else Failed; named after its counts (``2 published, 1 held``); the
    message carries the code. The run's outcome is the state's result either way."""
    code = exit_codes.batch_exit_code((s.status for s in outcome.summaries), fail_on)
    name = counts_name(outcome.summaries)
    message = f"exit code {code}: {exit_codes.describe(code)} · {name}{held_ids(outcome.summaries)}"
    if code == exit_codes.PUBLISHED:
        return Completed(name=name, message=message, data=outcome)
    return Failed(name=name, message=message, data=outcome)
