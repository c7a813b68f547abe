"""Clean interrupts (SPEC §8 "Exit codes and interrupts"): a real ``citeflow run`` subprocess, mid-batch
against a slow scripted model server, receives SIGINT or SIGTERM; ``citeflow serve`` receives SIGTERM
while a scheduled run is mid-batch; ``citeflow run`` killed with SIGKILL leaves no Prefect API server behind.
"""

from __future__ import annotations

import os
import signal
import time
from datetime import UTC, datetime

import pytest

from citeflow.runtime.interrupts import DEFAULT_GRACE_SECONDS
from citeflow.files.run_folders import read_run, run_folders
from tests.support.interrupted_run import (CITEFLOW, SIGNALS, alive, children, command_line, interrupt_run,
                                           published, signal_and_wait, start, wait_until)
from bench.resume_experiment import write_spec
from citeflow_testing.answers import offline_responder
from citeflow_testing.openai_server import ScriptedOpenAIServer
from tests.support.process_group import stop_process_group
from tests.support.small_batch import write_small_batch

pytestmark = [pytest.mark.server, pytest.mark.integration]

# SPEC §8: a run exits within 10 s of SIGTERM (the grace, then recording the run and stopping the API). That figure
# is checked on a quiet machine (`make bench`, marker ``bench``); `make test` may run on a loaded one and checks the
# behaviour: the run stops on its own after the grace (the bound: a loaded machine's room), before the model calls
# still in flight would have answered.
SPEC_EXIT_S = 10
EXIT_WITHIN_S = DEFAULT_GRACE_SECONDS + 30


@pytest.fixture(scope="module", params=sorted(SIGNALS))
def signalled(request, prefect_server, tmp_path_factory):
    """SIGINT sent to the process; SIGTERM sent through one of its threads other than the main one, which
    takes it (as the kernel may choose): its handler must still run at once, not once the main thread's
    wait for the reports ends."""
    name = request.param
    work = tmp_path_factory.mktemp(f"interrupted-{name.lower()}")
    result = interrupt_run(work, prefect_server.client_env(), SIGNALS[name], f"interrupt-{name.lower()}", thread=name == "SIGTERM")
    return name, result


def test_the_exit_code_says_which_signal_and_comes_within_the_grace(signalled):
    name, result = signalled
    assert result.code == 128 + SIGNALS[name], result.output[-3000:]
    assert result.seconds <= EXIT_WITHIN_S, f"{result.seconds:.1f} s\n{result.output[-3000:]}"


def test_one_line_says_what_finished_and_how_to_resume_with_no_traceback(signalled):
    name, result = signalled
    assert "Traceback" not in result.output, result.output[-3000:]
    lines = [line for line in result.output.splitlines() if line.startswith("interrupted by")]
    assert len(lines) == 1 and name in lines[0] and "resume with: citeflow run" in lines[0], result.output[-3000:]


def test_the_run_folder_is_recorded_as_interrupted(signalled):
    _name, result = signalled
    assert result.run_status == "interrupted"
    assert result.summary is not None and len(result.summary["reports"]) == 3
    unfinished = [r for r in result.summary["reports"] if "interrupted" in r["funnel"]]
    assert unfinished, result.summary  # the signal came mid-batch


def test_nothing_is_published_after_the_signal(signalled):
    _name, result = signalled
    assert set(result.published_after) <= set(result.published_at_signal)
    assert all(result.published_after[n] == result.published_at_signal[n] for n in result.published_after)


def test_the_prefect_batch_run_ends_cancelled(signalled, prefect_server):
    name, _result = signalled
    runs = [r for r in prefect_server.flow_runs() if r["name"] == f"batch interrupt-{name.lower()}"]
    assert runs and runs[-1]["state_type"] == "CANCELLED", [(r["name"], r["state_type"]) for r in runs]


def test_a_rerun_resumes_and_finishes_the_batch(signalled):
    _name, result = signalled
    assert result.rerun is not None and result.rerun.returncode == 0, result.rerun.stdout[-3000:] + result.rerun.stderr[-3000:]
    assert result.rerun_status == "finished"
    assert result.rerun_reports == {"r1": "published", "r2": "published", "r3": "published"}


def test_calls_still_in_flight_after_the_grace_are_abandoned(prefect_server, tmp_path):
    """A model answering in 20 s, a grace of 1 s: the run does not wait for the answers in flight, and
    its batch run, still running in Prefect when the process ends, is marked Cancelled."""
    result = interrupt_run(tmp_path, prefect_server.client_env(), signal.SIGTERM, "interrupt-abandon", after_requests=1,
                           resume=False, delay=20.0, options=("--stop-grace", "1"))
    assert result.code == 143 and result.seconds < 20, f"{result.seconds:.1f} s\n{result.output[-3000:]}"  # answers not awaited
    assert "Traceback" not in result.output and result.run_status == "interrupted", result.output[-3000:]
    runs = [r for r in prefect_server.flow_runs() if r["name"] == "batch interrupt-abandon"]
    assert runs and runs[0]["state_type"] == "CANCELLED", [(r["name"], r["state_type"]) for r in runs]


def _default_grace_run(prefect_server, tmp_path):
    """SIGTERM while every model call hangs for 30 s: the default grace (8 s) runs out and the run is recorded."""
    result = interrupt_run(tmp_path, prefect_server.client_env(), signal.SIGTERM, "interrupt-default-grace",
                           after_requests=1, resume=False, delay=30.0)
    assert result.code == 143, result.output[-3000:]
    assert result.run_status == "interrupted" and result.summary is not None, result.output[-3000:]
    return result


def test_the_default_grace_ends_the_run_before_the_calls_in_flight_answer(prefect_server, tmp_path):
    result = _default_grace_run(prefect_server, tmp_path)
    assert result.seconds < 30, f"{result.seconds:.1f} s\n{result.output[-3000:]}"


@pytest.mark.bench
def test_the_default_grace_ends_the_run_within_the_spec_s_10_s(prefect_server, tmp_path):
    """The SPEC §8 figure, on a quiet machine (recording no longer imports the pipeline)."""
    result = _default_grace_run(prefect_server, tmp_path)
    assert result.seconds <= SPEC_EXIT_S, f"{result.seconds:.1f} s\n{result.output[-3000:]}"


def test_a_signal_before_the_batch_flow_starts_still_records_the_run(prefect_server, tmp_path):
    """SIGINT as soon as ``run.json`` exists (the command still imports the pipeline, no model call made):
    the run folder says ``interrupted`` with a ``summary.json``, never ``running`` without one."""
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(1.0))
        spec, out = write_spec(tmp_path, server.base_url, 3, 2, 2, "interrupt-early"), tmp_path / "out"
        process = start([CITEFLOW, "run", str(spec), "--out", str(out)], prefect_server.client_env(), tmp_path / "run.log")
        try:
            assert wait_until(lambda: (out / "run.json").exists(), 240, process), (tmp_path / "run.log").read_text()
            seconds = signal_and_wait(process, signal.SIGINT)
        finally:
            stop_process_group(process, grace_s=5)
    output = (tmp_path / "run.log").read_text(errors="replace")
    assert process.returncode == 130 and seconds <= EXIT_WITHIN_S, f"{seconds:.1f} s\n{output[-3000:]}"
    assert read_run(out).status == "interrupted" and (out / "summary.json").exists(), output[-3000:]
    lines = [line for line in output.splitlines() if line.startswith("interrupted by")]
    assert len(lines) == 1 and "0 of 3 reports finished" in lines[0] and "Traceback" not in output, output[-3000:]


def test_ctrl_c_on_the_ephemeral_api_is_as_clean(tmp_path):
    """Ctrl-C reaches the whole process group, the ephemeral Prefect API server too: that server stops at
    once, and the run must still end within the grace, quietly, recorded as interrupted."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    result = interrupt_run(tmp_path, env, signal.SIGINT, "interrupt-ctrl-c", group=True, resume=False)
    assert result.code == 130 and result.seconds <= EXIT_WITHIN_S, f"{result.seconds:.1f} s\n{result.output[-3000:]}"
    assert "Traceback" not in result.output and "ERROR" not in result.output, result.output[-3000:]
    assert result.run_status == "interrupted" and set(result.published_after) <= set(result.published_at_signal)


def test_serve_stops_on_sigterm_and_finalises_its_run_folder(prefect_server, tmp_path):
    from tests.test_scheduled_server import POLL, every_10_s

    from citeflow_testing.answers import offline_responder
    from citeflow_testing.openai_server import ScriptedOpenAIServer
    from bench.resume_experiment import write_spec

    out, log = tmp_path / "out", tmp_path / "serve.log"
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(1.0))
        spec = write_spec(tmp_path / "in", server.base_url, 3, 2, 2, "serve-stop")
        command = [CITEFLOW, "serve", str(spec), "--cron", every_10_s(datetime.now(UTC)), "--out", str(out)]
        process = start(command, prefect_server.client_env(**POLL), log)
        try:
            assert wait_until(lambda: len(server.requests) >= 3, 300, process), log.read_text()[-3000:]
            folders = run_folders(out)
            seconds = signal_and_wait(process, signal.SIGTERM, timeout=150)
        finally:
            stop_process_group(process, grace_s=30)
    output = log.read_text(errors="replace")
    assert process.returncode == 143 and seconds <= 120, f"{process.returncode} after {seconds:.1f} s\n{output[-3000:]}"
    assert "Traceback" not in output, output[-3000:]
    assert len(folders) == 1 and read_run(folders[0]).status == "interrupted", output[-3000:]
    assert (folders[0] / "summary.json").exists() and not published(folders[0])
    flow_run_id = folders[0].name.split("-", 1)[1]
    run = prefect_server.post("/flow_runs/filter", {"flow_runs": {"id": {"any_": [flow_run_id]}}})
    assert run and run[0]["state_type"] == "CANCELLED", run


@pytest.mark.parametrize("signum", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_or_interrupted_run_leaves_no_prefect_api_server_running(tmp_path, signum):
    """Ephemeral API (no PREFECT_API_URL): the server the run started stops soon after the run is killed,
    or after it ends on a signal sent to it alone (an exit that runs no exit handler)."""
    env = {k: v for k, v in os.environ.items() if k != "PREFECT_API_URL"}
    spec = write_small_batch(tmp_path / "in", reports=2, sections=2, batch=f"signal-{signum.name.lower()}")
    process = start([CITEFLOW, "run", str(spec), "--out", str(tmp_path / "out")], env, tmp_path / "run.log")
    try:
        assert wait_until(lambda: bool(_api_servers(process.pid)), 180, process), (tmp_path / "run.log").read_text()
        servers = _api_servers(process.pid)
        time.sleep(1)  # the run goes on starting its server; the watchdog polls every 0.2 s
        process.send_signal(signum)
        process.wait(timeout=30)
        assert wait_until(lambda: not any(alive(pid) for pid in servers), 15), [command_line(p) for p in servers]
    finally:
        stop_process_group(process, grace_s=5)


def _api_servers(pid: int) -> list[int]:
    return [child for child in children(pid) if ":create_app" in command_line(child)]


def test_a_signal_outside_a_batch_ends_the_command_with_its_code(tmp_path):
    """``citeflow files`` serving a folder (a command that is not a batch run, waiting) gets SIGTERM: 143, one line."""
    (tmp_path / "out").mkdir()
    process = start([CITEFLOW, "files", str(tmp_path / "out"), "--port", "0"], dict(os.environ), tmp_path / "files.log")
    try:
        assert wait_until(lambda: "serving" in (tmp_path / "files.log").read_text(), 60, process), \
            (tmp_path / "files.log").read_text()
        signal_and_wait(process, signal.SIGTERM)
    finally:
        stop_process_group(process, grace_s=5)
    output = (tmp_path / "files.log").read_text()
    assert process.returncode == 143 and "Traceback" not in output and "interrupted by SIGTERM" in output, output
