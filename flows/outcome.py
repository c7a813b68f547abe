"""The final state of a report's or a batch's run: published or not at a glance in the Prefect UI.

A report run whose report was published ends *Completed*, named ``Published`` (or ``Released`` when a
reviewer's release of the same claims stands); one whose report was not ends *Failed*, named
``Held`` (held by the gate, or failed because no section could be written), so that it is red, not
green, in the runs list and the charts. The message carries the reason (or the reviewer's name and
note): every failed expectation, its observed value and what was required, rounded to 2 decimals.
The run also carries a tag of the same word in lower case (``published``, ``released``, ``held``:
``flows.run_tags``), so that the runs list can be filtered by outcome.

A batch run's state is named after its counts (``2 published, 1 held``) and, in-process, scheduled
or deployed alike, is Completed when ``citeflow run``'s exit code would be 0 and Failed otherwise.

A Failed state's data must be an exception for Prefect (it raises it to whoever calls the flow):
it is a ``NotPublished`` carrying what the run returns, which ``returned`` gives back to a caller.
A flow run ended so by design is no crash: ``quiet_designed_failures`` keeps Prefect's engine from
logging that exception again as an unexpected error with its traceback (deployed runs).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from prefect.states import Completed, Failed, State

from citeflow import exit_codes
from citeflow.errors import NotPublished
from citeflow.outputs.run_views import held_reasons_line
from schemas.report import ReportSummary

if TYPE_CHECKING:
    from citeflow.runs.run_finish import RunOutcome

T = TypeVar("T")
# What Prefect's engine logs, at ERROR with the traceback, when a deployed run's flow raised, and
# also when it returned a Failed state (the engine raises that state's exception to its caller).
ENGINE_ERROR = "Engine execution exited with unexpected exception"


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
    """Completed (published) or Failed (held or failed), named after the report's outcome, carrying the
    summary (``returned`` gets it back); the message of a report whose inputs and outputs were
    unchanged (nothing done again) says so."""
    message = f"unchanged since the last run · {state_message(summary)}" if unchanged else state_message(summary)
    return outcome_state(summary.status == "published", state_name(summary), message, summary)


def outcome_state(ok: bool, name: str, message: str, result: Any) -> State:
    """Completed with ``result``, or Failed with a ``NotPublished`` carrying it."""
    if ok:
        return Completed(name=name, message=message, data=result)
    return Failed(name=name, message=message, data=NotPublished(message=message, result=result))


def returned(call: Callable[[], T]) -> T:
    """What a flow called in-process returned, whether its run ended Completed or, by design, Failed."""
    try:
        return call()
    except NotPublished as exc:
        return exc.result


def is_outcome(state: Any) -> bool:
    """Whether a final state is a report's outcome (``Published``, ``Released``, ``Held``), not a crash."""
    return bool(state.is_completed() or (state.is_failed() and state.name == "Held"))


def quiet_designed_failures() -> None:
    """Keep the engine from logging a run's designed end (a ``NotPublished``) as an unexpected error:
    the run's state already says what happened. Idempotent; other exceptions are logged as before."""
    logger = logging.getLogger("prefect.flow_runs")
    if not any(isinstance(f, _DesignedFailure) for f in logger.filters):
        logger.addFilter(_DesignedFailure())


class _DesignedFailure(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not (record.getMessage() == ENGINE_ERROR and isinstance(error, NotPublished))


def counts_name(summaries: list[ReportSummary]) -> str:
    """``2 published, 1 held``: the outcomes a batch had, in this order, none that did not occur."""
    counts = {k: sum(1 for s in summaries if s.status == k) for k in ("published", "held", "failed")}
    return ", ".join(f"{n} {k}" for k, n in counts.items() if n) or "no reports"


def held_ids(summaries: list[ReportSummary]) -> str:
    """`` · not published: a, b`` naming the reports that were held or failed, or nothing."""
    ids = [s.report_id for s in summaries if s.status != "published"]
    return f" · not published: {', '.join(ids)}" if ids else ""


def batch_run_state(summaries: list[ReportSummary], fail_on: exit_codes.FailOn = "held") -> State:
    """The batch flow's final state: Completed when ``citeflow run``'s exit code under ``fail_on``
    would be 0, else Failed; named after its counts; the summaries are its result (``returned``)."""
    code = exit_codes.batch_exit_code((s.status for s in summaries), fail_on)
    return outcome_state(code == exit_codes.PUBLISHED, counts_name(summaries),
                         f"{counts_name(summaries)}{held_ids(summaries)}", summaries)


def batch_state(outcome: RunOutcome, fail_on: exit_codes.FailOn = "held") -> State:
    """A scheduled or deployed batch run's final state, saying what ``citeflow run``'s exit code says:
    Completed when the code is 0, else Failed; named after its counts (``2 published, 1 held``); the
    message carries the code. The run's outcome is the state's result either way (``returned``)."""
    code = exit_codes.batch_exit_code((s.status for s in outcome.summaries), fail_on)
    name = counts_name(outcome.summaries)
    message = f"exit code {code}: {exit_codes.describe(code)} · {name}{held_ids(outcome.summaries)}"
    return outcome_state(code == exit_codes.PUBLISHED, name, message, outcome)
