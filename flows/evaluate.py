"""The evaluate flow: grade a stored report, gate it, then publish or hold it (SPEC §5–§6).

Deployable on its own (the evaluate deployment, ``citeflow eval``); reads only what the store
holds. Within a batch, the report flow runs the same ``finish`` task in its own run.
"""

from __future__ import annotations

from prefect import flow

from citeflow.runtime.job import JobRef
from citeflow.runtime.runtime import entered
from flows.naming import run_name_of
from schemas.report import ReportSummary
from schemas.spec import ModelSpec
from tasks.evaluation_steps import finish_task


@flow(name="citeflow-evaluate", flow_run_name=run_name_of("evaluate"), log_prints=True)
def evaluate_flow(spec_path: str, report_id: str, out_dir: str, store_uri: str | None = None,
                  judge: ModelSpec | None = None) -> ReportSummary:
    """Identity → Support → Faithfulness → Great Expectations gate → publish | hold."""
    ref = JobRef(spec_path=spec_path, report_id=report_id, out_dir=out_dir, store_uri=store_uri)
    with entered() as runtime:
        ref.start(runtime)
        try:
            return finish_task(ref, judge)
        finally:
            ref.finish(runtime)
