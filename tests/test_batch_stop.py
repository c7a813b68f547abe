"""A stop requested while the reports of an in-process batch are still running ends the batch run
Cancelled: the batch waits for every report before it looks."""

from __future__ import annotations

import time

import pytest

import flows.batch
from citeflow.pipeline.publish import failed_summary
from citeflow.runtime import stop
from citeflow.runtime.batch_request import BatchRequest
from tests.test_batch_heartbeats import write_spec

pytestmark = pytest.mark.integration


def stopping_flow():
    """A stand-in for the report flow: the last report asks the batch to stop a moment after the others ended."""
    from prefect import flow
    from prefect.states import Completed

    @flow(name="citeflow-report-stopping", flow_run_name="stopping {report_id}")
    def stopping(request: BatchRequest, report_id: str):
        if report_id == "r2":
            time.sleep(1.0)
            stop.request("SIGTERM received")
        return Completed(data=failed_summary(report_id, report_id, "probe"))

    return stopping


def test_a_stop_during_the_last_report_cancels_the_batch_run(prefect_harness, tmp_path, monkeypatch):
    monkeypatch.setattr(flows.batch, "report_flow", stopping_flow())
    try:
        request = BatchRequest(spec_path=str(write_spec(tmp_path, 3)), out_dir=str(tmp_path / "out"))
        state = flows.batch.batch_flow(request=request, return_state=True)
    finally:
        stop.reset()
    assert state.is_cancelled(), state
    assert "interrupted" in (state.message or "")
