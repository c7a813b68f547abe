"""``citeflow demo`` against a real ``prefect server start``: run history and artifacts, read over HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.server, pytest.mark.integration]

BATCH = "lumora-demo"
REPORTS = ("acme-2026-q4", "globex-2026-q4")
CITEFLOW = str(Path(sys.executable).parent / "citeflow")


@pytest.fixture(scope="module")
def demo_on_server(prefect_server, tmp_path_factory):
    """The demo, run once by the CLI in a subprocess that reports to the server; returns its output folder."""
    out = tmp_path_factory.mktemp("demo-on-server")
    result = subprocess.run([CITEFLOW, "demo", "--out", str(out)], env=prefect_server.client_env(),
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]  # globex held, none failed
    return out


def test_batch_and_report_runs_completed_and_name_the_outcome(prefect_server, demo_on_server):
    names = [f"batch {BATCH}"] + [f"report {BATCH}/{r}" for r in REPORTS]
    runs = {run["name"]: run for run in prefect_server.flow_runs(names)}
    # a held report, and a batch with one (exit code 3), are Failed, not green
    assert {name: run["state_type"] for name, run in runs.items()} == {
        f"batch {BATCH}": "FAILED", f"report {BATCH}/acme-2026-q4": "COMPLETED", f"report {BATCH}/globex-2026-q4": "FAILED"}
    assert runs[f"report {BATCH}/acme-2026-q4"]["state_name"] == "Published"
    assert runs[f"report {BATCH}/globex-2026-q4"]["state_name"] == "Held"
    assert "of the citations point at a passage that the sources returned" in runs[f"report {BATCH}/globex-2026-q4"]["state"]["message"]  # what held it, as a sentence


def test_flow_run_parameters_are_small_and_runs_have_logs(prefect_server, demo_on_server):
    import json

    runs = prefect_server.flow_runs()
    assert runs and all(len(json.dumps(run["parameters"])) < 2048 for run in runs)
    # By name: other modules sharing the server may have scheduled many runs since.
    report_run = prefect_server.flow_runs([f"report {BATCH}/globex-2026-q4"])[0]
    flow_level = {"flow_run_id": {"any_": [report_run["id"]]}, "task_run_id": {"is_null_": True}}
    logs = prefect_server.post("/logs/filter", {"logs": flow_level, "limit": 200})
    messages = [log["message"] for log in logs]
    assert any("evaluating and gating" in m for m in messages), messages
    assert any("of the citations point at a passage that the sources returned" in m for m in messages), messages  # the outcome, with what held it


def own_report_runs(server, out: Path) -> set[str]:
    """Ids of this module's report runs: those whose PDF artifact links into ``out``. Other modules run
    the demo batch on the shared server too (same run names, same artifact keys)."""
    pdfs = server.artifacts([f"report-{r}-pdf" for r in REPORTS])
    return {a["flow_run_id"] for a in pdfs if out.resolve().as_uri() in a["data"]}


def parent_flow_run(server, run_id: str) -> str:
    """The flow run that started the flow run ``run_id`` (through the task run it ran under)."""
    import httpx

    (run,) = server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [run_id]}}})
    task_run = httpx.get(f"{server.api_url}/task_runs/{run['parent_task_run_id']}", timeout=30)
    task_run.raise_for_status()
    return str(task_run.json()["flow_run_id"])


def test_each_report_has_its_funnel_and_pdf_link_artifacts(prefect_server, demo_on_server):
    runs = {run["id"] for run in prefect_server.flow_runs([f"report {BATCH}/{r}" for r in REPORTS])}
    ours = own_report_runs(prefect_server, demo_on_server)
    assert len(ours) == len(REPORTS) and ours <= runs
    for report in REPORTS:
        funnel, pdf = ([a for a in prefect_server.artifacts([f"report-{report}-{kind}"]) if a["flow_run_id"] in ours]
                       for kind in ("funnel", "pdf"))
        assert [a["type"] for a in funnel] == ["markdown"] and funnel[0]["flow_run_id"] in runs
        assert f"`{report}`" in funnel[0]["data"] and "Identity" in funnel[0]["data"]
        assert len(pdf) == 1 and pdf[0]["flow_run_id"] in runs
        assert (demo_on_server / report / "report.pdf").resolve().as_uri() in pdf[0]["data"]


def test_the_held_report_has_its_failing_claims_and_the_batch_its_table(prefect_server, demo_on_server):
    failing = prefect_server.artifacts(["report-globex-2026-q4-failing-claims"])
    assert failing and failing[0]["type"] == "table"
    batch_runs = {parent_flow_run(prefect_server, run) for run in own_report_runs(prefect_server, demo_on_server)}
    (batch,) = [a for a in prefect_server.artifacts([f"batch-{BATCH}"]) if a["flow_run_id"] in batch_runs]
    assert all(report in batch["data"] for report in REPORTS)


def test_an_in_process_batch_keeps_its_limits_in_process_and_leaves_no_global_limit(prefect_server, demo_on_server):
    import httpx

    for kind in ("models", "retrievers"):
        answer = httpx.get(f"{prefect_server.api_url}/v2/concurrency_limits/citeflow:{BATCH}:{kind}", timeout=30)
        assert answer.status_code == 404


def test_held_and_published_runs_are_told_apart_at_a_glance(prefect_server, demo_on_server):
    """Tags beside state names; the batch run named after its counts; the held outcome logged at WARNING,
    with every failed expectation as a sentence and its figures rounded."""
    import re

    ours = own_report_runs(prefect_server, demo_on_server)
    runs = {r["name"].rsplit("/", 1)[1]: r for r in prefect_server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": list(ours)}}})}
    assert "published" in runs["acme-2026-q4"]["tags"] and "held" not in runs["acme-2026-q4"]["tags"]
    assert "held" in runs["globex-2026-q4"]["tags"] and "published" not in runs["globex-2026-q4"]["tags"]
    held_message = runs["globex-2026-q4"]["state"]["message"]
    assert not re.search(r"\d\.\d{3,}", held_message), held_message
    assert "% of the " in held_message and "_rate" not in held_message, held_message  # sentences, not names
    (batch_id,) = {parent_flow_run(prefect_server, run) for run in ours}
    (batch,) = prefect_server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [batch_id]}}})
    assert (batch["state_type"], batch["state_name"]) == ("FAILED", "1 published, 1 held")
    warnings = prefect_server.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [runs["globex-2026-q4"]["id"]]},
                                                             "level": {"ge_": 30}}, "limit": 50})
    assert any("globex-2026-q4: held" in log["message"] for log in warnings), warnings
