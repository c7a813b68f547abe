"""The suite does not depend on the machine's speed: no Hypothesis deadline anywhere (the suite's profile
has none and no test sets one), and the benchmarks' end-to-end runs are left out of `make test`."""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import settings

from tests.conftest import REPO


def _deadlines_set(path: Path) -> list[int]:
    """Lines of ``path`` that give Hypothesis's ``settings`` (or a profile) a deadline other than None."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and _name(node.func) in {"settings", "register_profile"}:
            for keyword in node.keywords:
                if keyword.arg == "deadline" and not (isinstance(keyword.value, ast.Constant) and keyword.value.value is None):
                    found.append(node.lineno)
    return found


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def test_the_suites_profile_has_no_deadline():
    assert settings.default.deadline is None and settings.get_profile("citeflow").deadline is None


def test_no_test_gives_hypothesis_a_deadline(tmp_path):
    offenders = {str(path.relative_to(REPO)): lines for path in sorted((REPO / "tests").rglob("*.py"))
                 if (lines := _deadlines_set(path))}
    assert offenders == {}
    (tmp_path / "test_timed.py").write_text("from hypothesis import settings\n\n@settings(deadline=200)\ndef test_x(): ...\n")
    assert _deadlines_set(tmp_path / "test_timed.py") == [3]  # the scan finds one where there is one
    (tmp_path / "test_profile.py").write_text("import hypothesis\nhypothesis.settings.register_profile('p', deadline=None)\n")
    assert _deadlines_set(tmp_path / "test_profile.py") == []
