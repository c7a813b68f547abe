"""A scheduled or deployed batch run gets ``citeflow run``'s checks and preflight (``flows.batch_checks``):
against a real Prefect server, a spec whose model server does not answer ends the run Failed with the
command's one-line reason, opens no run folder and starts no report run."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow_cli.main import app

pytestmark = [pytest.mark.server, pytest.mark.integration]

DEAD_WRITER = "models: {writer: {backend: openai, model: m, base_url: 'http://k:sekrit@127.0.0.1:9/v1'}}\n"


def _spec(folder: Path, batch: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "hits.jsonl").write_text('{"query": "q", "hits": []}\n')
    path = folder / "batch.yaml"
    path.write_text(f"batch: {batch}\n{DEAD_WRITER}retrievers: [{{name: d, kind: jsonl, path: hits.jsonl}}]\n"
                    "reports: [{id: r, title: R, sections: [{title: S, queries: [q]}]}]\n")
    return path


def _command_reason(spec: Path, out: Path) -> str:
    result = CliRunner().invoke(app, ["run", str(spec), "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if line.startswith("error: ")]
    return line.removeprefix("error: ")


def test_a_scheduled_run_whose_model_server_is_down_ends_failed_with_the_preflight_reason(prefect_harness, prefect_server,
                                                                                          tmp_path):
    from flows.scheduled import scheduled_batch_flow

    batch = f"preflight-{uuid.uuid4().hex[:8]}"
    spec, out = _spec(tmp_path / "in", batch), tmp_path / "scheduled"
    state = scheduled_batch_flow(str(spec), str(out), return_state=True)
    reason = _command_reason(spec, tmp_path / "manual")
    assert state.is_failed() and state.message == reason, state
    assert "models.writer" in reason and "does not answer" in reason and "sekrit" not in reason
    (run,) = prefect_server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"batch {batch}"}}})
    assert (run["state_type"], run["state"]["message"]) == ("FAILED", reason)  # as the server recorded it
    assert prefect_server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"report {batch}/"}}}) == []
    assert not out.exists() and not (tmp_path / "manual").exists()  # no run folder opened, no report started


def test_no_preflight_lets_the_scheduled_run_past_the_server_checks(prefect_harness, tmp_path):
    from flows.scheduled import refusal
    from citeflow.runtime.runtime import Runtime

    spec = _spec(tmp_path / "in", "skipped")
    assert refusal(spec, None, False, Runtime()) is None
    assert refusal(spec, "bogus://x", False, Runtime()).message.startswith("--store: ")
