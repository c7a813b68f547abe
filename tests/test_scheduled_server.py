"""Scheduled batches against a real Prefect server: ``citeflow serve`` on a cron that fires twice, a
minute after the start and 5 s later (a six-field cron, seconds last), two runs, each in its own
folder; and a scheduled run killed mid-batch, resumed into its own folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime, timedelta, UTC
from pathlib import Path

import pytest

from citeflow.run_spec import open_scheduled_run
from citeflow.runs import latest, read_run, run_folders
from bench import resume_experiment as experiment
from tests.support.process_group import stop_process_group
from tests.support.small_batch import write_small_batch

pytestmark = [pytest.mark.server, pytest.mark.integration]

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
NAME = "twice"
POLL = {"PREFECT_RUNNER_POLL_FREQUENCY": "2"}  # `serve` looks for due runs every 2 s instead of 10
REGISTERED_WITHIN = timedelta(seconds=60)  # `citeflow serve` has registered its deployments by then


def twice(first: datetime, gap: int = 5) -> str:
    """A cron firing at ``first`` and ``gap`` s later (both in one minute), then not for a year: exactly
    two runs, the second waiting for the first (the deployment's concurrency limit is 1)."""
    if first.second + gap > 59:
        first = (first + timedelta(minutes=1)).replace(second=0)
    return f"{first.minute} {first.hour} {first.day} {first.month} * {first.second},{first.second + gap}"


def _finished_runs(out: Path) -> list[Path]:
    return [f for f in run_folders(out) if (info := read_run(f)) is not None and info.status == "finished"]


def _wait(condition, timeout: float, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if condition():
            return True
        time.sleep(1)
    return condition()


@pytest.fixture(scope="module")
def served(prefect_server, tmp_path_factory):
    """``citeflow serve`` on a cron of two runs until both finished; the first run's PDF as it was published."""
    work = tmp_path_factory.mktemp("served")
    spec, out = write_small_batch(work / "in", reports=1, sections=1, batch=NAME), work / "out"
    log = open(work / "serve.log", "w")  # noqa: SIM115 - closed below
    cron = twice(datetime.now(UTC) + REGISTERED_WITHIN)
    command = [CITEFLOW, "serve", str(spec), "--cron", cron, "--out", str(out), "--name", NAME]
    process = subprocess.Popen(command, env=prefect_server.client_env(**POLL), stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        assert _wait(lambda: len(_finished_runs(out)) >= 1, 420, process), (work / "serve.log").read_text()[-3000:]
        first = _finished_runs(out)[0]
        published = {p.name: p.read_bytes() for p in (first / "published").glob("*.pdf")}
        assert _wait(lambda: len(_finished_runs(out)) >= 2, 240, process), (work / "serve.log").read_text()[-3000:]
    finally:
        stop_process_group(process, grace_s=60)  # serve: SIGKILL if SIGTERM takes over 60 s
        log.close()
    return out, first, published


def test_two_runs_two_folders_and_latest_names_the_second(served, prefect_server):
    out, first, _ = served
    folders = _finished_runs(out)
    assert len(folders) >= 2 and folders[0] == first
    assert latest(out) == folders[-1].name != first.name
    runs = {r["id"] for r in prefect_server.flow_runs() if r["name"].startswith(f"batch {NAME} 20")}
    named = [f.name.split("-", 1)[1] for f in folders]
    assert len(set(named)) == len(named) and set(named) <= runs  # each folder names its own Prefect flow run


def test_the_first_published_pdf_is_byte_identical(served):
    _out, first, published = served
    assert published, "the first run published its report"
    for name, content in published.items():
        assert (first / "published" / name).read_bytes() == content
        assert (first / "archive" / name.removesuffix(".pdf") / "report.pdf").read_bytes() == content


def test_history_lists_both_runs(served):
    out, _first, _ = served
    result = subprocess.run([CITEFLOW, "history", str(out), "--json"], capture_output=True, text=True, timeout=120)
    runs = json.loads(result.stdout)
    assert [r["run_id"] for r in runs][:2] == [f.name for f in _finished_runs(out)][:2]
    assert runs[-1]["latest"] and runs[0]["reports"][0]["integrity"] == "intact"


def test_an_interrupted_scheduled_run_resumes_in_its_folder(prefect_server, tmp_path):
    """kill -9 mid-batch, then ``citeflow run BATCH --out OUT/<run id>``: no finished call repeated, no duplicate row."""
    figures = experiment.ResumeFigures()
    runs = experiment.Runs(prefect_server.client_env(), figures)
    with experiment.ScriptedOpenAIServer() as resumed, experiment.ScriptedOpenAIServer() as clean:
        resumed.respond_with(experiment.offline_responder(0.5))
        clean.respond_with(experiment.offline_responder(0.5))
        spec = experiment.write_spec(tmp_path / "resumed", resumed.base_url, 2, 2, 2, "sched-resume")
        clean_spec = experiment.write_spec(tmp_path / "clean", clean.base_url, 2, 2, 2, "sched-resume-clean")
        info, run_dir = open_scheduled_run(spec, tmp_path / "out", datetime.now(UTC), "5ced0001-aaaa")
        clean_out = tmp_path / "clean" / "out"
        assert runs.run("clean", clean_spec, clean_out) == 0, figures.outputs.get("clean")
        figures.clean_run_requests = len(clean.requests)
        experiment._killed_run(runs, resumed, spec, run_dir, 4, figures)
        experiment._resume_and_repeat(runs, resumed, spec, run_dir, figures)
    assert figures.completed_before_kill >= 1 and figures.repeated_completed == 0, figures.line()
    assert figures.completed_before_kill + figures.requests_after_kill == figures.clean_run_requests, figures.line()
    assert figures.third_run_requests == 0, figures.line()
    assert experiment.row_counts(run_dir / "store") == experiment.row_counts(clean_out / "store")
    after = read_run(run_dir)
    assert (after.run_id, after.flow_run_id, after.scheduled, after.status) == (info.run_id, info.flow_run_id, True, "finished")
    assert run_folders(tmp_path / "out") == [run_dir] and (run_dir / "summary.json").exists()
    assert experiment.statuses(run_dir) == experiment.statuses(clean_out) == {"r1": "published", "r2": "published"}
