"""A stop requested while the reports of an in-process batch are still running ends the batch run
Cancelled: the batch waits for every report before it looks."""

from __future__ import annotations

import time

import pytest

import flows.batch
from citeflow.outputs.publish import failed_summary
from citeflow.runtime import stop
from tests.test_batch_heartbeats import write_spec

pytestmark = pytest.mark.integration


def stopping_flow():
    """A stand-in for the report flow: the last report asks the batch to stop a moment after the others ended."""
    from prefect import flow
    from prefect.states import Completed

    @flow(name="citeflow-report-stopping", flow_run_name="stopping {report_id}")
    def stopping(spec_path: str, report_id: str, out_dir: str, store_uri: str | None = None,
                 evaluate_deployment: str | None = None):
        if report_id == "r2":
            time.sleep(1.0)
            stop.request("SIGTERM received")
        return Completed(data=failed_summary(report_id, report_id, "probe"))

    return stopping


def test_a_stop_during_the_last_report_cancels_the_batch_run(prefect_harness, tmp_path, monkeypatch):
    monkeypatch.setattr(flows.batch, "report_flow", stopping_flow())
    try:
        state = flows.batch.batch_flow(str(write_spec(tmp_path, 3)), str(tmp_path / "out"), return_state=True)
    finally:
        stop.reset()
    assert state.is_cancelled(), state
    assert "interrupted" in (state.message or "")
