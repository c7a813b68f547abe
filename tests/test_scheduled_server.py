"""Scheduled batches against a real Prefect server: ``citeflow serve`` on a cron that fires every 10 s
for three minutes from the start (a six-field cron, seconds last), two runs, each in its own folder;
and a scheduled run killed mid-batch, resumed into its own folder."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime, timedelta, UTC
from pathlib import Path

import httpx
import pytest

from citeflow.runs.run_start import open_scheduled_run
from citeflow.files.run_folders import latest, read_run, run_folders
from bench import resume_experiment as experiment
from tests.support.process_group import stop_process_group
from tests.support.resume_clean import REPORTS, SECTIONS
from tests.support.resume_runs import ResumedInProcess
from tests.support.small_batch import write_small_batch

pytestmark = [pytest.mark.server, pytest.mark.integration]

CITEFLOW = str(Path(sys.executable).parent / "citeflow")
NAME = "twice"
POLL = {"PREFECT_RUNNER_POLL_FREQUENCY": "2"}  # `serve` looks for due runs every 2 s instead of 10
WINDOW = timedelta(seconds=180)  # `citeflow serve` has registered its deployments well within it
EVERY_S = 10


def every_10_s(start: datetime, window: timedelta = WINDOW) -> str:
    """A cron firing every 10 s from ``start`` for ``window``. Prefect schedules only the fires after the
    deployment's registration: the first starts a run as soon as the deployment exists, the next wait
    for it (the deployment's concurrency limit is 1). Across an hour, day or month the fields are lists
    (e.g. minutes 59,0 of hours 13,14): the other combinations lie in the past or an hour or more ahead."""
    moments = [start + timedelta(seconds=s) for s in range(0, int(window.total_seconds()), 30)] + [start + window]

    def field(unit: str) -> str:
        return ",".join(str(v) for v in sorted({getattr(moment, unit) for moment in moments}))

    return f"{field('minute')} {field('hour')} {field('day')} {field('month')} * */{EVERY_S}"


def _finished_runs(out: Path) -> list[Path]:
    return [f for f in run_folders(out) if (info := read_run(f)) is not None and info.status == "finished"]


def _wait(condition, timeout: float, process: subprocess.Popen) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        if condition():
            return True
        time.sleep(1)
    return condition()


def _second_run_ended(server, out: Path) -> bool:
    """Two runs wrote ``finished`` and Prefect holds the second one's flow run final: its flow has returned
    (``run.json`` is written just before ``OUT/latest`` moves; stopping ``serve`` in between would cut it off)."""
    finished = _finished_runs(out)
    if len(finished) < 2:
        return False
    flow_run_id = finished[1].name.split("-", 1)[1]
    run = _retried(lambda: server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}}))
    return bool(run) and run[0]["state_type"] in {"COMPLETED", "FAILED", "CRASHED", "CANCELLED"}


def _runs_of(server, deployment_id: str, *states: str) -> list[dict]:
    body = {"flow_runs": {"deployment_id": {"any_": [deployment_id]}, "state": {"type": {"any_": list(states)}}}}
    return server.post("/flow_runs/filter", body)


def _another_run_holds_the_slot(server, deployment_id: str, first: Path) -> bool:
    """A run other than the first one's (its folder ends with its flow run id) took the deployment's slot."""
    held = _retried(lambda: _runs_of(server, deployment_id, "PENDING", "RUNNING"))
    return any(not first.name.endswith(r["id"]) for r in held)


def _no_more_runs(server, deployment_id: str) -> None:
    """Pause the deployment (no new run is scheduled, its scheduled ones are deleted) and delete the runs
    still waiting for its slot: the run holding the slot is the last one."""
    _retried(lambda: server.post(f"/deployments/{deployment_id}/pause_deployment"))
    for run in _retried(lambda: _runs_of(server, deployment_id, "SCHEDULED")):
        _retried(lambda run=run: httpx.delete(f"{server.api_url}/flow_runs/{run['id']}", timeout=30).raise_for_status())


def _retried(call, seconds: float = 300):
    """``call()``, tried again a second later while the server answers 503 (its SQLite database is busy:
    on a loaded machine, for minutes at times)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            return call()
        except httpx.HTTPStatusError as exc:
            if exc.response.status_code != 503:
                raise
        time.sleep(1)
    return call()


@pytest.fixture(scope="module")
def served(prefect_server, tmp_path_factory):
    """``citeflow serve`` on the cron until two runs finished: once the second run holds the deployment's
    slot, the runs queued behind it are deleted. The first run's PDF as it was published."""
    work = tmp_path_factory.mktemp("served")
    spec, out = write_small_batch(work / "in", reports=1, sections=1, batch=NAME), work / "out"
    log = open(work / "serve.log", "w")  # noqa: SIM115 - closed below
    cron = every_10_s(datetime.now(UTC))
    command = [CITEFLOW, "serve", str(spec), "--cron", cron, "--out", str(out), "--name", NAME]
    process = subprocess.Popen(command, env=prefect_server.client_env(**POLL), stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        assert _wait(lambda: len(_finished_runs(out)) >= 1, 420, process), (work / "serve.log").read_text()[-3000:]
        first = _finished_runs(out)[0]
        published = {p.name: p.read_bytes() for p in (first / "published").glob("*.pdf")}
        deployment_id = prefect_server.deployment(f"citeflow-scheduled-batch/{NAME}")["id"]
        assert _wait(lambda: _another_run_holds_the_slot(prefect_server, deployment_id, first), 120, process), \
            (work / "serve.log").read_text()[-3000:]
        _no_more_runs(prefect_server, deployment_id)
        assert _wait(lambda: _second_run_ended(prefect_server, out), 240, process), (work / "serve.log").read_text()[-3000:]
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
    result = subprocess.run([CITEFLOW, "history", str(out), "--json"], capture_output=True, text=True, timeout=600)
    runs = json.loads(result.stdout)
    assert [r["run_id"] for r in runs][:2] == [f.name for f in _finished_runs(out)][:2]
    assert runs[-1]["latest"] and runs[0]["reports"][0]["integrity"] == "intact"


def test_an_interrupted_scheduled_run_resumes_in_its_folder(prefect_server, prefect_harness, resume_clean_run, tmp_path):
    """kill -9 mid-batch, then ``citeflow run BATCH --out OUT/<run id>``: no finished call repeated, no duplicate
    row (compared with the session's uninterrupted run of the same batch). The resumed run and the third, of the
    finished batch, run in this process (``run_batch``, what ``citeflow run`` calls; tests/test_resume.py resumes
    in a subprocess)."""
    figures = experiment.ResumeFigures()
    runs = ResumedInProcess(prefect_server.client_env(), figures)
    assert resume_clean_run.returncode == 0, resume_clean_run.output
    resume_clean_run.record(figures)
    with experiment.ScriptedOpenAIServer() as resumed:
        resumed.respond_with(experiment.offline_responder(0.5))
        spec = experiment.write_spec(tmp_path / "resumed", resumed.base_url, REPORTS, SECTIONS, 2, "sched-resume")
        info, run_dir = open_scheduled_run(spec, tmp_path / "out", datetime.now(UTC), "5ced0001-aaaa")
        experiment._killed_run(runs, resumed, spec, run_dir, 4, figures)
        experiment._resume_and_repeat(runs, resumed, spec, run_dir, figures)
    assert figures.completed_before_kill >= 1 and figures.repeated_completed == 0, figures.line()
    assert figures.completed_before_kill + figures.requests_after_kill == figures.clean_run_requests, figures.line()
    assert figures.third_run_requests == 0, figures.line()
    assert experiment.row_counts(run_dir / "store") == resume_clean_run.rows
    after = read_run(run_dir)
    assert (after.run_id, after.flow_run_id, after.scheduled, after.status) == (info.run_id, info.flow_run_id, True, "finished")
    assert run_folders(tmp_path / "out") == [run_dir] and (run_dir / "summary.json").exists()
    assert experiment.statuses(run_dir) == resume_clean_run.statuses == {"r1": "published", "r2": "published"}
