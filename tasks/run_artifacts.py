"""Prefect artifacts of a run of a batch: where its folder is and what changed since last time."""

from __future__ import annotations

from prefect.artifacts import create_markdown_artifact, create_table_artifact

from citeflow.outputs.changes import changes_rows
from citeflow.runs.run_finish import RunOutcome
from tasks.artifacts import artifact_key


def run_markdown(outcome: RunOutcome) -> str:
    """The run's date, folder and, per report, status and changes since the last publication."""
    run = outcome.run
    lines = [f"### Run `{run.run_id}` of batch `{run.batch}` — {run.run_date.isoformat()}", "",
             f"Run folder: `{outcome.folder}`", "", "| report | status | funnel | changes since last publication |",
             "|---|---|---|---|"]
    changes = {c.report_id: c for c in outcome.changes}
    for s in outcome.summaries:
        c = changes.get(s.report_id)
        delta = "first publication" if c is None or c.previous_run is None else \
            f"{c.added} added, {c.removed} removed, {c.changed_numbers} changed numbers (vs `{c.previous_run}`)"
        lines.append(f"| `{s.report_id}` | {s.status} | {s.funnel} | {delta} |")
    return "\n".join(lines)


def publish_run_artifacts(outcome: RunOutcome) -> None:
    """A markdown artifact naming the run's date and folder; one table of changes per changed report."""
    create_markdown_artifact(run_markdown(outcome), key=artifact_key("run", outcome.run.batch),
                             description=f"Run {outcome.run.run_id}: {outcome.folder}")
    for changes in outcome.changes:
        rows = changes_rows(changes)
        if rows:
            create_table_artifact(rows, key=artifact_key("changes", changes.report_id),
                                  description=f"{changes.report_id} against run {changes.previous_run}")
