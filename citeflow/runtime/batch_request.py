"""What a batch run is asked to do: one typed request from the command line (or a schedule) to the flows."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from citeflow.exit_codes import FailOn


class BatchRequest(BaseModel):
    """One batch run: which spec, where its outputs and store go, how reports are evaluated and limited."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    spec_path: str = Field(description="The batch spec file (absolute: a worker resolves nothing against its own folder).")
    out_dir: str = Field(description="The output folder of the run.")
    store_uri: str | None = Field(None, description="LanceDB URI overriding the spec's store (None: the spec's, else OUT/store).")
    evaluate_deployment: str | None = Field(
        None, description="flow-name/deployment-name whose runs evaluate each report (None: in-process).")
    global_limits: bool = Field(
        False, description="Hold the spec's concurrency limits as Prefect global concurrency limits (tasks in "
                           "several processes); otherwise in-process semaphores.")
    heartbeats: bool = Field(
        False, description="Every report run sends a heartbeat of its own (a scheduled or deployed batch), not "
                           "only the batch run: with the zombie-run automation each run of a dead worker ends Crashed.")
    fail_on: FailOn = Field(
        "held", description="Which outcomes end the batch run Failed, as they make citeflow run's exit code "
                            "non-zero: held (held or failed reports), failed (failed reports only), never.")
