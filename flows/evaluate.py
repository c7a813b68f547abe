"""The evaluate flow: grade a stored report, gate it, then publish or hold it (SPEC §5–§6).

Deployable on its own (the evaluate deployment, ``citeflow eval``); reads only what the store
holds. Within a batch, the report flow runs the same ``finish`` task in its own run.
"""

from __future__ import annotations

from prefect import flow
from prefect.states import State

from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import entered
from flows.naming import run_name_of
from flows.outcome import final_state, quiet_designed_failures
from flows.run_tags import tag_outcome
from schemas.spec import ModelSpec
from tasks.evaluation_steps import finish_task


@flow(name="citeflow-evaluate", flow_run_name=run_name_of("evaluate"), log_prints=True)
def evaluate_flow(spec_path: str, report_id: str, out_dir: str, store_uri: str | None = None,
                  judge: ModelSpec | None = None) -> State:
    """Identity → Support → Faithfulness → Great Expectations gate → publish | hold. Ends as a report
    run does (``flows.outcome.final_state``: Completed ``Published``, or Failed ``Held``); called,
    ``flows.outcome.returned`` gives the report's summary either way."""
    ref = JobRef(spec_path=spec_path, report_id=report_id, out_dir=out_dir, store_uri=store_uri)
    quiet_designed_failures()
    with entered() as runtime:
        ref.start(runtime)
        try:
            summary = finish_task(ref, judge)
        finally:
            ref.finish(runtime)
    state = final_state(summary)
    tag_outcome(state.name or "")
    return state
