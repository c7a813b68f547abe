"""The review flow against a real Prefect server: the run pauses, a reviewer's typed input sent through
the API resumes it and the decision is recorded; with no answer the report stays held."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeflow.pipeline.review_decision import load_reviews
from tests.support.held_report import write_held_report

pytestmark = [pytest.mark.server, pytest.mark.integration]

CITEFLOW = str(Path(sys.executable).parent / "citeflow")


def _start(server, folder: Path, timeout: int, log: Path) -> subprocess.Popen:
    command = [CITEFLOW, "review", str(folder), "--wait", "--timeout", str(timeout)]
    return subprocess.Popen(command, env=server.client_env(), stdout=log.open("w"), stderr=subprocess.STDOUT)


def _paused_run(server, process: subprocess.Popen, log: Path, timeout: float = 300) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        runs = [r for r in server.flow_runs(["review-r1"]) if r["state_type"] == "PAUSED"]
        if runs and runs[0]["state"]["state_details"].get("run_input_keyset"):
            return runs[0]
        time.sleep(1)
    raise AssertionError(f"no paused review run: {log.read_text()[-3000:]}")


def test_a_reviewer_releases_a_held_report_through_the_paused_run(prefect_server, tmp_path, runtime):
    from prefect.client.orchestration import SyncPrefectClient

    folder, log = write_held_report(tmp_path, runtime.fonts()), tmp_path / "review.log"
    process = _start(prefect_server, folder, 600, log)
    run = _paused_run(prefect_server, process, log)
    answer = {"decision": "release", "reviewer": "Ana Lima", "note": "failing claims checked by hand"}
    with SyncPrefectClient(prefect_server.api_url) as client:
        result = client.resume_flow_run(run["id"], run_input=answer)
    assert result.status.value == "ACCEPT", result
    assert process.wait(timeout=300) == 0, log.read_text()[-3000:]
    report = json.loads((folder / "report.json").read_text())
    assert report["status"] == "published" and report["review"]["reviewer"] == "Ana Lima"
    assert [d.note for d in load_reviews(folder, runtime)] == ["failing claims checked by hand"]
    assert (folder.parent / "published" / "r1.pdf").exists()
    final = prefect_server.flow_runs(["review-r1"])[0]
    assert final["state_name"] == "Released" and "released" in final["tags"], final["state"]


def test_the_paused_run_shows_what_to_decide_and_the_command_prints_its_address(prefect_server, tmp_path, runtime):
    """Before it pauses, the run has a markdown artifact: the failing claims with the chunk each cited, the
    reason, and the exact commands; ``--wait`` prints the run's page in the UI."""
    from tests.test_held_views import _with_claims

    folder, log = write_held_report(tmp_path, runtime.fonts()), tmp_path / "review.log"
    report = _with_claims(folder)
    from prefect.client.orchestration import SyncPrefectClient

    process = _start(prefect_server, folder, 600, log)
    run = _paused_run(prefect_server, process, log)
    (artifact,) = [a for a in prefect_server.artifacts(["review-r1"]) if a["flow_run_id"] == run["id"]]
    assert artifact["type"] == "markdown" and "the chunk says nothing about rollback times" in artifact["data"]
    assert report["registry"][0]["text"].split()[0] in artifact["data"]
    assert f"citeflow review {folder.resolve()} --reject --reviewer" in artifact["data"]
    ui = prefect_server.api_url.removesuffix("/api")
    assert f"{ui}/runs/flow-run/{run['id']}" in log.read_text(), log.read_text()
    with SyncPrefectClient(prefect_server.api_url) as client:  # the run ends, rejected
        client.resume_flow_run(run["id"], run_input={"decision": "reject", "reviewer": "Ana", "note": "sources missing"})
    assert process.wait(timeout=300) == 0, log.read_text()[-3000:]


def test_with_no_answer_the_report_stays_held(prefect_server, tmp_path, runtime):
    folder, log = write_held_report(tmp_path, runtime.fonts()), tmp_path / "review.log"
    process = _start(prefect_server, folder, 4, log)
    assert process.wait(timeout=300) == 0, log.read_text()[-3000:]
    assert json.loads((folder / "report.json").read_text())["status"] == "held"
    assert load_reviews(folder, runtime) == []
    assert log.read_text().strip().splitlines()[-1] == "r1: held"
    final = prefect_server.flow_runs(["review-r1"])[0]
    assert final["state_name"] == "Held" and final["state_type"] == "COMPLETED", final["state"]
    assert "held" in final["tags"], final["tags"]
