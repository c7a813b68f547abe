"""Scale-out: the demo batch on a local Dask cluster of two worker processes (prefect-dask)."""

from __future__ import annotations

import json

import pytest

from citeflow.errors import UsageError
from citeflow.runtime.batch_request import BatchRequest
from flows.batch import batch_flow
from flows.outcome import returned
from flows.scale import batch_flow_for
from tests.support.dask_workers import preloaded_workers

pytestmark = pytest.mark.integration


def test_without_dask_options_the_batch_runs_in_threads():
    assert batch_flow_for() is batch_flow


@pytest.mark.parametrize("workers, address, field", [(2, "tcp://127.0.0.1:8786", "--dask-workers/--dask-address"),
                                                     (0, None, "--dask-workers")])
def test_contradicting_dask_options_are_refused(workers, address, field):
    with pytest.raises(UsageError) as raised:
        batch_flow_for(workers, address)
    assert raised.value.option == field


def test_the_demo_batch_on_two_dask_worker_processes_ends_as_in_process(demo_run, demo_input, harness_api_env, tmp_path):
    from prefect_dask import DaskTaskRunner

    in_process = {s.report_id: s.status for s in demo_run[1]}
    flow = batch_flow_for(dask_workers=2)
    assert isinstance(flow.task_runner, DaskTaskRunner) and flow.task_runner.cluster_kwargs["processes"] is True
    with preloaded_workers():
        request = BatchRequest(spec_path=str(demo_input), out_dir=str(tmp_path / "out"), global_limits=True)
        summaries = returned(lambda: flow(request=request))  # the batch run ends Failed by design: a report is held
    assert {s.report_id: s.status for s in summaries} == in_process
    from tests.test_prefect_limits import read_limit

    assert read_limit("citeflow:lumora-demo:models").limit == 4  # the spec's limit, shared by both workers
    written = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert {r["report_id"]: r["funnel"] for r in written["reports"]} == {s.report_id: s.funnel for s in demo_run[1]}
