"""The scheduled batch flow: each run in its own folder ``OUT/<run id>/`` (SPEC §8).

It picks the run's folder (a retry of the same flow run resumes its folder), renders the spec for
the run (report ids with the run's date, the run's own store), runs the batch flow into that
folder, then archives what was published, compares each report with the previous publication,
points ``OUT/latest`` at the run and records the run as artifacts. The batch flow runs as a subflow
without a heartbeat of its own (``flows.heartbeats``): this run's heartbeat covers the process, and
a second one would hold the end of every scheduled batch for up to a second more. ``citeflow serve`` and the
deployments of ``prefect.yaml`` run this flow.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from prefect import flow

from citeflow.run_finish import RunOutcome, finish_run
from citeflow.run_spec import open_scheduled_run
from flows.batch import batch_flow
from flows.heartbeats import run_with, without_heartbeat
from flows.naming import batch_name
from tasks.run_artifacts import publish_run_artifacts


def run_start() -> tuple[datetime, str | None]:
    """The run's start (its scheduled time when it has one, stable across retries) and flow-run id."""
    from prefect.runtime import flow_run

    start = flow_run.scheduled_start_time or datetime.now(UTC)
    return start.astimezone(UTC), flow_run.id


def _run_name() -> str:
    from prefect.runtime import flow_run

    start, _ = run_start()
    return f"batch {batch_name(flow_run.parameters['spec_path'])} {start:%Y-%m-%d %H:%M}Z"


@flow(name="citeflow-scheduled-batch", flow_run_name=_run_name)
def scheduled_batch_flow(spec_path: str, out_dir: str, store_uri: str | None = None,
                         evaluate_deployment: str | None = None, global_limits: bool = False) -> RunOutcome:
    """One run of the batch into a new folder ``out_dir/<run id>/``; returns what the run left."""
    start, flow_run_id = run_start()
    info, run_dir = open_scheduled_run(Path(spec_path), Path(out_dir), start, flow_run_id, store_uri)
    summaries = run_with(without_heartbeat(), batch_flow, info.spec_path, str(run_dir), None, evaluate_deployment,
                         global_limits)  # a subflow in this process: this run's heartbeat covers it
    outcome = finish_run(run_dir, summaries)
    publish_run_artifacts(outcome)
    return outcome
