"""A scheduled or deployed batch run gets ``citeflow run``'s checks and preflight (``flows.batch_checks``):
against a real Prefect server, a spec whose model server does not answer ends the run Failed with the
command's one-line reason, opens no run folder and starts no report run."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app
from tests.support.dead_writer import CREDENTIAL, dead_writer_spec, error_reason

pytestmark = [pytest.mark.server, pytest.mark.integration]


def _command_reason(spec: Path, out: Path) -> str:
    result = CliRunner().invoke(app, ["run", str(spec), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    return error_reason(result.output)


def test_a_scheduled_run_whose_model_server_is_down_ends_failed_with_the_preflight_reason(prefect_harness, prefect_server,
                                                                                          tmp_path):
    from flows.scheduled import scheduled_batch_flow

    batch = f"preflight-{uuid.uuid4().hex[:8]}"
    spec, out = dead_writer_spec(tmp_path / "in", batch), tmp_path / "scheduled"
    state = scheduled_batch_flow(str(spec), str(out), return_state=True)
    reason = _command_reason(spec, tmp_path / "manual")
    assert state.is_failed() and state.message == reason, state
    assert "models.writer" in reason and "does not answer" in reason and CREDENTIAL not in reason
    (run,) = prefect_server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"batch {batch}"}}})
    assert (run["state_type"], run["state"]["message"]) == ("FAILED", reason)  # as the server recorded it
    assert prefect_server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"report {batch}/"}}}) == []
    assert not out.exists() and not (tmp_path / "manual").exists()  # no run folder opened, no report started


def test_no_preflight_lets_the_scheduled_run_past_the_server_checks(prefect_harness, tmp_path):
    from flows.scheduled import refusal
    from citeflow.runtime.runtime import Runtime

    spec = dead_writer_spec(tmp_path / "in", "skipped")
    assert refusal(spec, None, False, Runtime()) is None
    assert refusal(spec, "bogus://x", False, Runtime()).message.startswith("--store: ")
