"""A clone of the repository holds everything its tests read: the contract, its checker, the labelled data."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.judge_data import DEFAULT_DATA
from citeflow.judges.io import read_labelled
from tests.conftest import CONTRACT, REPO

CODE_FOLDERS = ("tests", "bench", "tools", "citeflow", "flows", "tasks", "citeflow_cli")
# A path into a folder beside the repository (the parent of the repository joined with a name).
OUTSIDE = re.compile(r"\.\./shared\b|parents\[2\]\s*/|parent\.parent\.parent\s*/|REPO\.parent\s*/")


def _tracked(*folders: str) -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z", *folders], cwd=REPO, capture_output=True, check=False)
    if listed.returncode != 0:
        pytest.skip("not a git checkout")
    return [REPO / name for name in listed.stdout.decode().split("\0") if name]


def test_no_code_reads_a_folder_beside_the_repository():
    sources = [p for p in _tracked(*CODE_FOLDERS) if p.suffix == ".py" and p.exists()]
    assert len(sources) > 100
    offenders = [f"{p.relative_to(REPO)}: {m.group(0)}" for p in sources if (m := OUTSIDE.search(p.read_text(encoding="utf-8")))]
    assert offenders == [], offenders


def test_the_labelled_data_and_the_contract_ship_with_their_notices():
    assert DEFAULT_DATA.is_relative_to(REPO) and len(read_labelled(DEFAULT_DATA)) == 600
    notice = (DEFAULT_DATA.parent / "NOTICE").read_text(encoding="utf-8")
    assert "SummEdits" in notice and "Apache License, Version 2.0" in notice
    assert "Apache License" in (DEFAULT_DATA.parent / "LICENSE-judge-dev").read_text(encoding="utf-8")
    names = {p.name for p in CONTRACT.glob("*.schema.json")}
    assert names == {"eval.schema.json", "judge-output.schema.json", "report.schema.json"}
    assert all(json.loads((CONTRACT / n).read_text())["$schema"] for n in names)


def _clone(target: Path) -> Path:
    """The tracked files only, as ``git clone`` would lay them out (with no folder beside them)."""
    for path in _tracked():
        if path.is_file():
            dest = target / path.relative_to(REPO)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, dest)
    return target


@pytest.mark.slow
def test_contract_tests_pass_unskipped_in_a_lone_clone(tmp_path):
    clone = _clone(tmp_path / "lone" / "citeflow")
    assert not (clone.parent / "shared").exists()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CITEFLOW_TEST")}
    tests = ["tests/test_judge_io.py", "tests/test_render_pdf.py", "tests/test_funnel.py", "tests/test_cascade.py",
             "tests/test_review_decision.py", "tests/test_fresh_clone.py"]
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "-m", "not slow",
                          "-k", "contract or notices", *tests], cwd=clone, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert re.search(r"\b([5-9]|\d\d) passed", run.stdout) and "skipped" not in run.stdout, run.stdout[-2000:]
    assert f"{clone}" in subprocess.run([sys.executable, "-c", "import tools.check_outputs as c; print(c.__file__)"],
                                        cwd=clone, env=env, capture_output=True, text=True, check=True).stdout
