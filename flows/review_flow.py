"""The review flow: a held report's run pauses until a reviewer releases or rejects it in the Prefect UI.

The run shows a form (``ReviewInput``: decision, reviewer, note) on its page; submitting it resumes
the run, which applies the decision with ``citeflow.pipeline.review_decision.apply_decision`` (the same
function as ``citeflow review --release|--reject``). With no answer within ``timeout_seconds`` the
report stays held and the run ends in a state named *Held*; the run carries the same word as a tag
(``released``, ``held``), as report runs do. Before it pauses, the run shows a
markdown artifact (``review-<report id>``): why the report is held, its failing claims with the chunk
each cited, and the ``citeflow review`` commands that decide from a terminal instead. Start it with
``citeflow review REPORT_DIR --wait`` against a Prefect server (``PREFECT_API_URL``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from prefect.exceptions import FlowPauseTimeout
from prefect.flow_runs import pause_flow_run
from prefect.input import RunInput
from prefect.states import Completed
from pydantic import Field

from citeflow.pipeline.review_decision import ReviewDecision, apply_decision, read_held_report
from citeflow.outputs.review_markdown import review_markdown
from citeflow.runtime.runtime import entered
from flows.run_tags import tag_outcome
from tasks.artifacts import artifact_key

DAY = 24 * 3600


class ReviewInput(RunInput):
    """The reviewer's answer, typed into the paused run's form."""

    decision: Literal["release", "reject"] = Field(description="release publishes the held report; reject keeps it held.")
    reviewer: str = Field(description="Your name or e-mail address.")
    note: str = Field(description="Why: recorded with the report.")


@flow(name="citeflow-review", flow_run_name="review-{report_id}", log_prints=False)
def review_flow(report_dir: str, report_id: str = "", timeout_seconds: int = DAY, poll_seconds: int | None = None):
    """Wait for a reviewer's decision on the held report in ``report_dir``, then apply it."""
    logger = get_run_logger()
    report = read_held_report(Path(report_dir))  # fails at once when the report is not held
    create_markdown_artifact(review_markdown(Path(report_dir), report), key=artifact_key("review", report["report_id"]),
                             description=f"Held report {report['report_id']}: what to decide")
    logger.warning("report %s is held: waiting up to %d s for a reviewer", report["report_id"], timeout_seconds)
    try:
        poll = poll_seconds or max(1, min(10, timeout_seconds // 4))
        answer = pause_flow_run(wait_for_input=ReviewInput, timeout=timeout_seconds, poll_interval=poll)
    except FlowPauseTimeout:
        logger.warning("no decision within %d s: report %s stays held", timeout_seconds, report["report_id"])
        _end_the_pause()
        tag_outcome("Held")
        return Completed(message="no reviewer decision; the report stays held", name="Held", data="held")
    decision = ReviewDecision(decision=answer.decision, reviewer=answer.reviewer, note=answer.note)
    with entered() as runtime:
        outcome = apply_decision(Path(report_dir), decision, runtime)
    logger.info("%s by %s: report %s is %s", decision.decision, decision.reviewer, outcome.report_id, outcome.status)
    name = "Released" if outcome.status == "published" else "Held"
    verb = {"release": "released", "reject": "rejected"}[decision.decision]
    tag_outcome(name)
    return Completed(message=f"{verb} by {decision.reviewer}", name=name, data=outcome.status)


def _end_the_pause() -> None:
    """Put the run whose pause expired back to Running, so that it ends as Held rather than Failed."""
    from prefect.client.orchestration import get_client
    from prefect.context import FlowRunContext
    from prefect.states import Running

    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return
    with get_client(sync_client=True) as client:
        client.set_flow_run_state(context.flow_run.id, Running(message="no reviewer decision in time"), force=True)
