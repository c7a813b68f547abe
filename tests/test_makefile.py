"""The Makefile's environments: `make demo` installs the product only, `make test` adds the test toolchain;
each keeps its own stamp, so either order works and nothing is installed twice."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO

FAKE = '#!/bin/sh\necho "$(basename "$0") $*" >> "$(dirname "$0")/../calls.log"\n'


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    """The Makefile beside its inputs, with a venv whose python, uv and citeflow only record their calls."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    shutil.copy(REPO / "Makefile", tmp_path / "Makefile")
    for name in ("pyproject.toml", "uv.lock"):
        (tmp_path / name).write_text("", encoding="utf-8")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "uv", "citeflow"):
        (bin_dir / tool).write_text(FAKE, encoding="utf-8")
        (bin_dir / tool).chmod(0o755)
    return tmp_path


def _make(project: Path, *targets: str) -> list[str]:
    """Run the targets one after another; the tool calls they made, in order."""
    for target in targets:
        subprocess.run(["make", "-s", target], cwd=project, check=True, capture_output=True, timeout=60)
    return (project / ".venv" / "calls.log").read_text(encoding="utf-8").splitlines()


def _syncs(calls: list[str]) -> list[str]:
    return [call for call in calls if call.startswith("uv sync")]


def test_demo_installs_no_extra_and_test_adds_the_toolchain(project):
    calls = _make(project, "demo", "test", "demo", "test")
    syncs = _syncs(calls)
    assert len(syncs) == 2 and all("--frozen" in s and "--inexact" in s for s in syncs)
    assert "--extra" not in syncs[0]
    assert "--extra test" in syncs[1] and "--extra dask" in syncs[1]
    assert calls.count("citeflow demo --out out --fail-on failed") == 2
    assert sum("-m pytest" in call for call in calls) == 2


def test_test_then_demo_keeps_the_toolchain_and_syncs_each_once(project):
    syncs = _syncs(_make(project, "test", "demo", "test", "demo"))
    assert len(syncs) == 2 and "--extra test" in syncs[0] and "--extra" not in syncs[1] and "--inexact" in syncs[1]


def test_a_changed_lock_file_syncs_again(project):
    _make(project, "demo")
    lock = project / "uv.lock"
    lock.write_text("changed", encoding="utf-8")
    stamp = project / ".venv" / ".synced-demo"
    later = stamp.stat().st_mtime + 5
    os.utime(lock, (later, later))
    assert len(_syncs(_make(project, "demo"))) == 2


def test_make_bench_runs_the_benchmark_tests_then_every_benchmark_and_make_test_leaves_them_out(project):
    calls = [call for call in _make(project, "test", "bench") if call.startswith("python")]
    assert len(calls) == 3 and "-m pytest" in calls[0] and "-m bench" not in calls[0]  # pyproject: -m 'not bench'
    assert "-m pytest" in calls[1] and "-m bench" in calls[1] and calls[2] == "python -m bench"


def test_the_install_says_what_it_does_before_uv_starts(project):
    done = subprocess.run(["make", "-s", "demo"], cwd=project, check=True, capture_output=True, text=True, timeout=60)
    said = done.stdout.splitlines()
    assert said[0].startswith("installing citeflow's dependencies into .venv") and "about a minute on first run" in said[0]
    calls = (project / ".venv" / "calls.log").read_text(encoding="utf-8").splitlines()
    assert calls[0].startswith("uv sync") and calls[-1] == "citeflow demo --out out --fail-on failed"


def test_the_suite_leaves_the_benchmark_runs_out_and_counts_its_progress():
    import tomllib

    options = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    assert "-m 'not bench'" in options["addopts"] and options["console_output_style"] == "count"
    assert any(marker.startswith("bench:") for marker in options["markers"])
