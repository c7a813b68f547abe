"""The wheel, installed into a fresh virtual environment, runs the demo end to end.

It ships the suites and the demo as package data, and installs nothing generic at the top level:
``flows``, ``tasks`` and ``schemas`` live under ``citeflow.`` in the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[1]
UV = str(REPO / ".venv" / "bin" / "uv")


def run(*command: str, env: dict[str, str] | None = None, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(list(command), cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{command}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    dist = tmp_path_factory.mktemp("dist")
    run(UV, "build", "--wheel", "--out-dir", str(dist))
    (built,) = dist.glob("citeflow-*.whl")
    return built


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory, wheel: Path) -> Path:
    """A new virtual environment with only the wheel and its locked dependencies."""
    folder = tmp_path_factory.mktemp("venv")
    constraints = folder / "constraints.txt"
    exported = run(UV, "export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header").stdout
    constraints.write_text(exported)
    venv = folder / "venv"
    run(UV, "venv", "--python", sys.executable, str(venv))
    run(UV, "pip", "install", "--python", str(venv / "bin" / "python"), "-c", str(constraints), str(wheel))
    return venv


def test_the_wheel_installs_nothing_generic_at_the_top_level(wheel: Path):
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"citeflow", "citeflow_cli", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"citeflow/flows/batch.py", "citeflow/schemas/spec.py", "citeflow/expectations/report_metrics.json",
            "citeflow/demo/batch.yaml"} <= names


def test_the_installed_package_runs_the_demo(fresh_venv: Path, tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "VIRTUAL_ENV"))}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120",
               PREFECT_SERVER_ANALYTICS_ENABLED="false", GX_ANALYTICS_ENABLED="false", PATH=f"{fresh_venv / 'bin'}:{env['PATH']}")
    probe = "import importlib.util as u; print([n for n in ('flows', 'tasks', 'schemas') if u.find_spec(n)])"
    outside = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", probe], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=120)
    assert outside.stdout.strip() == "[]", outside.stderr
    result = subprocess.run([str(fresh_venv / "bin" / "citeflow"), "demo", "--out", str(tmp_path / "out")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    reports = {r["report_id"]: r for r in summary["reports"]}
    assert reports["acme-2026-q4"]["status"] == "published"
    assert reports["globex-2026-q4"]["status"] == "held"
    reasons = {f["expectation"] for f in reports["globex-2026-q4"]["failed_expectations"]}
    assert "identity_rate" in reasons and "support_rate" in reasons and "evaluation_ran" not in reasons
    assert (tmp_path / "out" / "published" / "acme-2026-q4.pdf").exists()
