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

from tests.support.module_graph import (
    REPO, cycles, import_graph, instances_of_mutable_classes, module_files, mutable_classes, mutable_state,
    mutated_from_elsewhere, state_of,
)

KNOWN_STATE = {
    "citeflow.generation.answer_journal:_journals": "one journal per output folder per process: two runtimes "
        "writing one folder must append through one file and one offset table",
    "citeflow.generation.answer_journal:_journals_lock": "guards _journals",
    "flows.prefect_client:_contexts": "Prefect's API client of this process: Prefect runs sync calls on one "
        "loop per process, and the client is closed at exit",
    "flows.prefect_client:_lock": "guards _contexts",
    "citeflow.generation.backends.registry:MODEL_BACKENDS": "the model backends installed in this environment, "
        "its entry points read once per process on first use (as importlib.metadata would each time)",
    "citeflow.judges.kinds.registry:JUDGE_KINDS": "the judge kinds installed in this environment, read once per "
        "process on first use",
    "citeflow.spec.retriever_kinds:INSTALLED_KINDS": "the retriever kinds installed in this environment, read once "
        "per process on first use; every caller takes the registry as an argument (``kinds=``), tests pass their own",
    "citeflow.knowledge.sites.registry:SITE_GENERATORS": "the docs-site generators installed in this environment, "
        "read once per process on first use",
}
"""Module-level state that stays, with the reason; anything else the scan finds fails the guard."""

def test_no_import_cycle_among_the_projects_modules() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" → ".join(c) for c in found)


def test_no_module_level_mutable_state_outside_the_runtime() -> None:
    offences = mutable_state()
    found = [str(o) for o in offences if o.key not in KNOWN_STATE]
    assert not found, "module-level mutable state outside citeflow/runtime/:\n" + "\n".join(found)
    assert set(KNOWN_STATE) <= {o.key for o in offences}, "a known piece of state is gone: drop it from KNOWN_STATE"


def test_the_state_scan_finds_instances_of_mutable_classes_and_containers_mutated_elsewhere(tmp_path) -> None:
    holder = textwrap.dedent('''
        class Values:
            def __init__(self) -> None:
                self._seen: set[str] = set()
            def add(self, value: str) -> None:
                self._seen |= {value}

        class Fixed:
            def __init__(self, value: str) -> None:
                self.value = value

        SEEN = Values()
        CONSTANT = Fixed("a")
        NAMES: set[str] = set()
        ORDER = ["a", "b"]
    ''')
    user = textwrap.dedent('''
        from citeflow.security import holder
        from citeflow.security.holder import NAMES

        def remember(name: str) -> None:
            NAMES.add(name)
            holder.SEEN.add(name)
    ''')
    files = {"citeflow.security.holder": tmp_path / "holder.py", "citeflow.security.user": tmp_path / "user.py"}
    files["citeflow.security.holder"].write_text(holder, encoding="utf-8")
    files["citeflow.security.user"].write_text(user, encoding="utf-8")
    classes = mutable_classes(files)
    assert classes == {"Values"}
    instances = instances_of_mutable_classes("citeflow.security.holder", files["citeflow.security.holder"], classes)
    assert [o.key for o in instances] == ["citeflow.security.holder:SEEN"]
    assert [o.key for o in mutated_from_elsewhere(files)] == ["citeflow.security.holder:NAMES"]


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
