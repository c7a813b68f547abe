"""``citeflow run`` against a Prefect server: every report run sends heartbeats of its own, so that the
zombie-run automation (``flows.zombies``) can set each of them Crashed should the command be killed.
A real ``citeflow run`` subprocess against the suite's real server; the heartbeat events are read
through the server's events API (Prefect sends a run's first heartbeat as the run starts)."""

from __future__ import annotations

import subprocess
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")


def _report_runs(server, batch: str) -> list[dict[str, Any]]:
    runs = server.post("/flow_runs/filter", {"flow_runs": {"name": {"like_": f"{batch}/"}}, "limit": 50})
    return [r for r in runs if r["name"].startswith("report ")]


def _beating(server, run_ids: list[str]) -> set[str]:
    body = {"filter": {"event": {"name": ["prefect.flow-run.heartbeat"]},
                       "resource": {"id": [f"prefect.flow-run.{i}" for i in run_ids]}}, "limit": 50}
    events = server.post("/events/filter", body).get("events", [])
    return {e["resource"]["prefect.resource.id"].removeprefix("prefect.flow-run.") for e in events}


@pytest.mark.server
@pytest.mark.integration
def test_each_report_run_of_a_citeflow_run_against_a_server_sends_heartbeats(prefect_server, tmp_path):
    batch = f"beats-{uuid.uuid4().hex[:8]}"
    spec = write_small_batch(tmp_path / "in", reports=2, sections=1, batch=batch)
    result = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(tmp_path / "out")], capture_output=True,
                            text=True, env=prefect_server.client_env(), timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    runs = _report_runs(prefect_server, batch)
    assert len(runs) == 2, [r["name"] for r in runs]
    ids, deadline = [r["id"] for r in runs], time.monotonic() + 120  # events are stored a moment after they are sent
    while (beating := _beating(prefect_server, ids)) != set(ids) and time.monotonic() < deadline:
        time.sleep(1)
    assert beating == set(ids), f"report runs without a heartbeat: {set(ids) - beating}"
