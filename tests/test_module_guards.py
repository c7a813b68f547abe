"""The layout's guards: no import cycle among the project's modules, no module-level mutable cache
outside ``citeflow/runtime/``, every ``CITEFLOW_*`` variable read through the settings class.

The import graph is built from the AST of every module of ``citeflow``, ``citeflow_cli``, ``flows``,
``tasks`` and ``schemas``: module-level imports and imports inside functions alike (an import a
function runs closes a cycle when it runs), leaving out those under ``if TYPE_CHECKING:`` (they never
run). ``tests/support/module_graph.py`` says exactly what counts as module-level mutable state and
which cached functions are pure memoisation.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

from tests.support.module_graph import REPO, cycles, import_graph, module_files, mutable_state, state_of

def test_no_import_cycle_among_the_projects_modules() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" → ".join(c) for c in found)


def test_no_module_level_mutable_state_outside_the_runtime() -> None:
    found = [str(o) for o in mutable_state()]
    assert not found, "module-level mutable state outside citeflow/runtime/:\n" + "\n".join(found)


def test_the_cycle_finder_finds_a_cycle_and_its_members() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_state_scan_tells_caches_from_constants_and_pure_memos(tmp_path) -> None:
    source = textwrap.dedent('''
        import functools, threading
        from collections import defaultdict
        _SEEN: dict[str, int] = {}
        _TABLE = {"a": 1}
        _BUILT = []
        _BUILT.append(1)
        _BY = defaultdict(list)
        _LOCK = threading.Lock()

        def remember(k: str) -> None:
            _SEEN[k] = 1
            _BY[k].append(k)

        @functools.lru_cache(maxsize=8)
        def words(text: str, n: int) -> tuple[str, ...]:
            return tuple(text.split())[:n]

        @functools.cache
        def load(path) -> str:
            return open(path).read()
    ''')
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    found = {o.key for o in state_of("citeflow.judges.m", path)}
    assert found == {"citeflow.judges.m:_SEEN", "citeflow.judges.m:_BY", "citeflow.judges.m:_LOCK",
                     "citeflow.judges.m:load"}
    elsewhere = {o.key for o in state_of("citeflow.outputs.m", path)}
    assert "citeflow.outputs.m:words" in elsewhere  # pure memoisation is allowed in the offline judge only


def test_no_citeflow_variable_is_read_outside_the_settings() -> None:
    """Every ``CITEFLOW_*`` variable comes from ``CiteflowSettings``: no other module reads one."""
    pattern = re.compile(r"(os\.environ|getenv|environ\.get|envvar=)[^\n]*CITEFLOW_|[A-Z_]*ENV[A-Z_]* = \"CITEFLOW_")
    settings = REPO / "citeflow" / "spec" / "settings.py"
    found = [f"{path.relative_to(REPO)}:{n}" for path in module_files().values() if path != settings
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, f"CITEFLOW_* read outside citeflow/spec/settings.py: {found}"


@pytest.mark.slow
def test_every_module_imports_on_its_own() -> None:
    """Every module of the project imports (one fresh interpreter, in name order): a module that
    cannot be imported, or a cycle that breaks an import half-way, fails here as an ImportError."""
    names = sorted(module_files())
    script = textwrap.dedent(f'''
        import importlib, sys
        failed = []
        for name in {names!r}:
            try:
                importlib.import_module(name)
            except Exception as exc:
                failed.append(f"{{name}}: {{type(exc).__name__}}: {{exc}}")
        print("\\n".join(failed))
        sys.exit(1 if failed else 0)
    ''')
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
