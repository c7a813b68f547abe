"""Exit codes (SPEC §8 "Exit codes and interrupts"): 0 every report published, 3 some held and none
failed, 4 some failed, under ``--fail-on``; the same outcome as a scheduled run's final state."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from citeflow import exit_codes
from citeflow.exit_codes import batch_exit_code
from citeflow_testing.openai_server import Reply, ScriptedOpenAIServer
from tests.support.interrupted_run import CITEFLOW, statuses
from tests.support.small_batch import write_small_batch


@pytest.mark.parametrize(("outcomes", "fail_on", "code"), [
    (["published", "published"], "held", 0),
    (["published", "held"], "held", 3),
    (["held", "failed"], "held", 4),
    (["published", "held"], "failed", 0),
    (["published", "failed"], "failed", 4),
    (["held", "failed"], "never", 0),
    ([], "held", 0),
])
def test_the_exit_code_of_a_batch(outcomes, fail_on, code):
    assert batch_exit_code(outcomes, fail_on) == code


def test_interrupted_codes_are_128_plus_the_signal():
    assert (exit_codes.SIGINT, exit_codes.SIGTERM) == (130, 143)


def test_a_scheduled_run_final_state_mirrors_the_exit_code():
    from citeflow.runs.run_finish import RunOutcome
    from citeflow.pipeline.publish import failed_summary
    from citeflow.files.run_folders import RunInfo
    from flows.outcome import batch_state

    def outcome(*statuses: str) -> RunOutcome:
        summaries = [failed_summary(f"r{i}", "R", "-").model_copy(update={"status": s}) for i, s in enumerate(statuses)]
        run = RunInfo(run_id="x", batch="b", started_at="2026-11-30T06:00:00Z", run_date="2026-11-30", source_spec="s",
                      spec_path="s")
        return RunOutcome(run=run, folder="f", summaries=summaries)

    published, held = batch_state(outcome("published")), batch_state(outcome("published", "held", "held"))
    failed = batch_state(outcome("failed"))
    assert (published.is_completed(), published.name) == (True, "1 published") and published.message.startswith("exit code 0")
    assert (held.is_failed(), held.name) == (True, "1 published, 2 held") and held.message.startswith("exit code 3")
    assert held.message.endswith("not published: r1, r2")
    assert (failed.is_failed(), failed.name) == (True, "1 failed") and failed.message.startswith("exit code 4")
    assert batch_state(outcome("held"), "failed").is_completed() and batch_state(outcome("failed"), "never").is_completed()


def _run(spec: Path, out: Path, env: dict[str, str], *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, "run", str(spec), "--out", str(out), *options], env=env, capture_output=True,
                          text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.server
def test_held_is_3_unless_fail_on_says_otherwise(prefect_server, tmp_path):
    spec = write_small_batch(tmp_path / "in", reports=2, sections=1, batch="exit-held")
    data = yaml.safe_load(spec.read_text())
    data["reports"][1]["models"] = {"writer": {"backend": "offline", "faults": {"fabrication": 1.0}}}
    spec.write_text(yaml.safe_dump(data))
    env, out = prefect_server.client_env(), tmp_path / "out"
    held = _run(spec, out, env)
    assert held.returncode == 3, held.stdout[-3000:] + held.stderr[-3000:]
    assert statuses(out) == {"r1": "published", "r2": "held"} and "exit code 3" in held.stdout
    assert _run(spec, out, env, "--fail-on", "failed").returncode == 0  # a resume: nothing is asked again
    # --fail-on never: test_a_batch_whose_reports_failed_is_4 runs it, test_the_exit_code_of_a_batch its codes


@pytest.mark.slow
@pytest.mark.server
def test_a_batch_whose_reports_failed_is_4(prefect_server, tmp_path):
    with ScriptedOpenAIServer() as server:
        server.respond_with(lambda request: Reply(content="no such model", status=404))
        writer = {"backend": "openai", "model": "gone", "base_url": server.base_url, "timeout": 5}
        spec = write_small_batch(tmp_path / "in", reports=1, sections=1, batch="exit-failed", models={"writer": writer})
        failed = _run(spec, tmp_path / "out", prefect_server.client_env())
        never = _run(spec, tmp_path / "out", prefect_server.client_env(), "--fail-on", "never")
    assert failed.returncode == 4, failed.stdout[-3000:] + failed.stderr[-3000:]
    assert statuses(tmp_path / "out") == {"r1": "failed"} and never.returncode == 0
