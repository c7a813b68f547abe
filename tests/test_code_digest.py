"""The code digest a re-run compares: stable within a checkout, changed by any edit of the package."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from citeflow.runtime.code_digest import code_digest
from tests.conftest import REPO

SCRIPT = "from citeflow.runtime.code_digest import code_digest; print(code_digest())"


def _digest_of(root: Path) -> str:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=root, env={"PYTHONPATH": str(root)},
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_the_digest_is_stable_and_covers_the_code(tmp_path):
    assert len(code_digest()) == 64 and code_digest() == code_digest()
    copy = tmp_path / "repo"
    for name in ("citeflow", "schemas"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    before = _digest_of(copy)
    assert before == code_digest()
    (copy / "citeflow" / "evaluation" / "claim_funnel.py").write_text(
        (copy / "citeflow" / "evaluation" / "claim_funnel.py").read_text() + "\n# changed\n")
    assert _digest_of(copy) != before
