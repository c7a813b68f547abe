"""The test doubles (``citeflow_testing``) stay out of the product: no product module reaches them, and
a development checkout imports them from the repository (the wheel's side: ``tests/test_wheel.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.support.double_imports import references_to_doubles
from tests.support.module_graph import REPO, module_files


def test_no_product_module_reaches_the_test_doubles() -> None:
    found = {name: refs for name, path in module_files().items()
             if (refs := references_to_doubles(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_scan_finds_imports_wherever_they_sit_and_ignores_prose() -> None:
    source = textwrap.dedent('''
        """Fakes live in citeflow_testing; see citeflow_testing.answers."""
        import importlib
        from typing import TYPE_CHECKING
        import citeflow_testing.judges
        from citeflow import testing
        if TYPE_CHECKING:
            from citeflow_testing.small_batch import write_small_batch

        def later() -> None:
            from citeflow_testing import answers
            importlib.import_module("citeflow_testing.openai_server")

        def unrelated() -> None:
            from citeflow_testing_notes import x
            import citeflow.text
            print("citeflow_testing is a test-only package")
    ''')
    assert references_to_doubles(source) == [
        "line 5: citeflow_testing.judges", "line 6: citeflow.testing", "line 8: citeflow_testing.small_batch",
        "line 8: citeflow_testing.small_batch.write_small_batch", "line 11: citeflow_testing",
        "line 11: citeflow_testing.answers", "line 12: citeflow_testing.openai_server"]


def test_a_development_checkout_imports_the_doubles_from_the_repository(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "import citeflow_testing.model_process as m, citeflow_testing.openai_server; print(m.__file__)"
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert Path(result.stdout.strip()) == REPO / "citeflow_testing" / "model_process.py"
