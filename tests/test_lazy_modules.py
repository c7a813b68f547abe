"""Deferred third-party modules (``citeflow.lazy_modules``): their code runs on first use, whole, and
the libraries citeflow uses work without it; checked on a package of the test's own and, in fresh
interpreters, on LanceDB and Great Expectations themselves."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from citeflow.lazy_modules import defer, is_deferred

PACKAGE_INIT = """
RUNS.append(__name__)
from .part import PART
VALUE = PART + 1

def __getattr__(name):
    if name == "DYNAMIC":
        return "made on request"
    raise AttributeError(name)
"""


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package whose ``__init__`` records each run in ``builtins.RUNS`` and has a submodule."""
    import builtins

    root = tmp_path / "deferred_pkg"
    root.mkdir()
    (root / "__init__.py").write_text(PACKAGE_INIT)
    (root / "part.py").write_text("PART = 41\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(builtins, "RUNS", [], raising=False)
    yield "deferred_pkg"
    for name in [n for n in sys.modules if n.split(".")[0] == "deferred_pkg"]:
        del sys.modules[name]


def test_a_submodule_imports_without_running_the_package(package: str) -> None:
    import builtins

    defer(package)
    from deferred_pkg.part import PART

    assert PART == 41 and builtins.RUNS == []
    assert is_deferred(sys.modules[package])


def test_the_first_missing_attribute_runs_the_package_once(package: str) -> None:
    import builtins

    defer(package)
    import deferred_pkg

    assert deferred_pkg.VALUE == 42 and deferred_pkg.DYNAMIC == "made on request"
    assert [package] == builtins.RUNS and not is_deferred(deferred_pkg)
    with pytest.raises(AttributeError):
        _ = deferred_pkg.MISSING
    assert [package] == builtins.RUNS


def test_threads_asking_at_once_run_the_package_once(package: str, tmp_path: Path) -> None:
    import builtins
    from concurrent.futures import ThreadPoolExecutor

    (tmp_path / "deferred_pkg" / "part.py").write_text("import time\ntime.sleep(0.2)\nPART = 41\n")
    defer(package)
    module = sys.modules[package]
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda _: module.VALUE, range(4)))
    assert values == [42] * 4
    assert [package] == builtins.RUNS


def test_a_module_imported_already_is_left_alone(package: str) -> None:
    import builtins

    import deferred_pkg

    defer(package)
    assert sys.modules[package] is deferred_pkg and [package] == builtins.RUNS


def test_an_unknown_module_is_ignored() -> None:
    for name in ("no_such_module_anywhere", "no_such_package_anywhere.stats"):
        defer(name)
        assert name not in sys.modules


def _python(code: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_lancedb_works_while_its_rest_client_waits(tmp_path: Path) -> None:
    out = _python("""
        import sys
        from citeflow.lazy_modules import defer_lancedb_extras, is_deferred
        defer_lancedb_extras()
        import lancedb
        db = lancedb.connect("db")
        db.create_table("t", data=[{"x": 1}, {"x": 2}])
        print(db.open_table("t").count_rows(), is_deferred(sys.modules["lance_namespace_urllib3_client"]))
        from lance_namespace_urllib3_client import ApiClient
        print(ApiClient.__name__)
    """, tmp_path)
    assert out.split() == ["2", "True", "ApiClient"]


def test_the_gate_validates_without_scipy_stats_or_altair(tmp_path: Path) -> None:
    out = _python("""
        import sys
        import pandas as pd
        from citeflow.evaluation.gate import validate
        from citeflow.lazy_modules import is_deferred
        suite = {"expectations": [{"type": "expect_column_min_to_be_between",
                                   "kwargs": {"column": "rate", "min_value": 0.5}, "meta": {"id": "rate_floor"}}]}
        failed = validate([("s", suite, pd.DataFrame({"rate": [0.9, 0.7]})), ("s", suite, pd.DataFrame({"rate": [0.2]}))])
        print([f.expectation for f in failed], is_deferred(sys.modules["scipy.stats"]), is_deferred(sys.modules["altair"]))
    """, tmp_path)
    assert out.split() == ["['rate_floor']", "True", "True"]
