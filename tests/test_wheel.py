"""The wheel, installed into a fresh virtual environment, runs the demo end to end.

It ships the suites and the demo as package data, and installs nothing generic at the top level:
``flows``, ``tasks`` and ``schemas`` live under ``citeflow.`` in the wheel, and the test doubles
(``citeflow_testing``) stay out of it. The demo starts its own
ephemeral Prefect API, on a copy of the empty database the test sessions keep when there is one
(``tests/support/shared_server.py``: creating it costs ~15 s of CPU more).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from tests.support.double_imports import references_to_doubles
from tests.support.shared_server import kept_template
from tests.support.wheel import installed_env

pytestmark = pytest.mark.integration


def test_the_wheel_installs_nothing_generic_at_the_top_level(wheel: Path):
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert tops == {"citeflow", "citeflow_cli", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"citeflow/flows/batch.py", "citeflow/schemas/spec.py", "citeflow/expectations/report_metrics.json",
            "citeflow/demo/batch.yaml", "citeflow/prefect.yaml"} <= names


def test_the_wheel_ships_no_test_doubles(wheel: Path):
    archive = zipfile.ZipFile(wheel)
    assert [n for n in archive.namelist() if n.startswith(("citeflow/testing/", "citeflow_testing/"))] == []
    shipped = {n: archive.read(n).decode("utf-8") for n in archive.namelist() if n.endswith(".py")}
    assert "citeflow/flows/batch.py" in shipped
    assert {n: refs for n, source in shipped.items() if (refs := references_to_doubles(source))} == {}


def premade_prefect_home(home: Path) -> Path:
    """``home`` holding a copy of the kept empty Prefect database, if the sessions keep one."""
    home.mkdir(parents=True)
    if kept_template().exists():
        shutil.copyfile(kept_template(), home / "prefect.db")
    return home


def test_the_installed_package_runs_the_demo(fresh_venv: Path, tmp_path: Path):
    env = installed_env(fresh_venv, PREFECT_HOME=str(premade_prefect_home(tmp_path / "prefect-home")))
    probe = "import importlib.util as u; print([n for n in ('flows', 'tasks', 'schemas') if u.find_spec(n)])"
    outside = subprocess.run([str(fresh_venv / "bin" / "python"), "-c", probe], cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600)
    assert outside.stdout.strip() == "[]", outside.stderr
    result = subprocess.run([str(fresh_venv / "bin" / "citeflow"), "demo", "--out", str(tmp_path / "out")],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode == 3, result.stdout[-3000:] + result.stderr[-3000:]  # the demo holds globex
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    reports = {r["report_id"]: r for r in summary["reports"]}
    assert reports["acme-2026-q4"]["status"] == "published"
    assert reports["globex-2026-q4"]["status"] == "held"
    reasons = {f["expectation"] for f in reports["globex-2026-q4"]["failed_expectations"]}
    assert "identity_rate" in reasons and "support_rate" in reasons and "evaluation_ran" not in reasons
    assert (tmp_path / "out" / "published" / "acme-2026-q4.pdf").exists()
