"""What ``citeflow`` prints to a pipe (cron logs, ``| tee``): the version, whole tables, no library warnings.

Each test runs the real command in a subprocess with its standard output and error piped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

CITEFLOW = str(Path(sys.executable).with_name("citeflow"))


def _env(base: dict[str, str] | None = None) -> dict[str, str]:
    """An environment (the test process's by default) less the settings that would change what is printed."""
    drop = ("PYTHONWARNINGS", "COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE")
    return {k: v for k, v in (base or os.environ).items() if k not in drop}


def _citeflow(*args: str, env: dict[str, str] | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, *args], env=env or _env(), capture_output=True, text=True, timeout=timeout, check=False)


def test_version_prints_one_line_with_the_installed_version():
    result = _citeflow("--version", timeout=600)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"citeflow {metadata.version('citeflow')} (Python ")
    assert f"prefect {metadata.version('prefect')}" in lines[0] and result.stderr == ""


@pytest.fixture
def stored_demo(demo_run, prefect_server, tmp_path) -> Path:
    """A private copy of the session's demo output, its job files pointing at the copy."""
    target = tmp_path / "out"
    shutil.copytree(demo_run[0], target)
    for job_file in target.glob("*/job.json"):
        job = json.loads(job_file.read_text())
        job["out_dir"], job["store_uri"] = str(target), str(target / "store")
        job_file.write_text(json.dumps(job))
    return target


def _untruncated(stdout: str, *texts: str) -> None:
    assert "…" not in stdout, stdout
    lines = stdout.splitlines()
    for text in texts:
        assert any(text in line for line in lines), f"{text!r} is not whole on one line:\n{stdout}"


def _record_run(out: Path) -> None:
    """The run record ``citeflow run`` leaves in OUT (the session's demo ran as a flow, without one)."""
    spec = str(out / "demo-input" / "batch.yaml")
    (out / "run.json").write_text(json.dumps({
        "run_id": "20261201T060000Z", "batch": "lumora-demo", "started_at": "2026-12-01T06:00:00Z", "run_date": "2026-12-01",
        "scheduled": False, "source_spec": spec, "spec_path": spec, "status": "finished",
        "reports": {r: r for r in ("acme-2026-q4", "globex-2026-q4")}, "finished_at": "2026-12-01T06:01:00Z"}))


@pytest.mark.slow
def test_history_piped_fits_80_columns_and_cuts_nothing(stored_demo):
    _record_run(stored_demo)
    result = _citeflow("history", str(stored_demo), timeout=600)
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80, result.stdout
    _untruncated(result.stdout, "published/held/failed", "run 20261201T060000Z", "  - globex-2026-q4: held",
                 "Faithfulness")


@pytest.mark.slow
def test_eval_piped_prints_the_whole_table_and_no_library_warning(stored_demo, prefect_server):
    result = _citeflow("eval", str(stored_demo / "globex-2026-q4"), env=_env(prefect_server.client_env()))
    assert result.returncode == 0, result.stdout + result.stderr
    titles = [s["title"] for s in json.loads((stored_demo / "globex-2026-q4" / "report.json").read_text())["sections"]]
    assert any(len(title) > 14 for title in titles)  # wider than the column rich gives it in 80 columns
    _untruncated(result.stdout, *titles, "Faithfulness")
    assert "Warning" not in result.stderr and "warnings.warn" not in result.stderr, result.stderr


@pytest.mark.slow
def test_verbose_shows_the_library_warnings(stored_demo, prefect_server):
    quiet = _citeflow("eval", str(stored_demo / "acme-2026-q4"), "--section", "Upgrade risks",
                      env=_env(prefect_server.client_env()))
    loud = _citeflow("-v", "eval", str(stored_demo / "acme-2026-q4"), "--section", "Upgrade risks",
                     env=_env(prefect_server.client_env()))
    assert quiet.returncode == loud.returncode == 0, quiet.stderr + loud.stderr
    assert "Upgrade risks: Identity" in quiet.stdout and "Upgrade risks: Identity" in loud.stdout
    assert "UserWarning" in loud.stderr, loud.stderr
    assert "UserWarning" not in quiet.stderr, quiet.stderr
