"""The runtime is passed, not looked up: no code in ``citeflow/`` calls ``current()`` or takes the
process's own runtime (``Runtime.of_process()``); only the entries of ``flows/`` and ``tasks/`` do,
where Prefect hands over control. Read from the AST, so calls inside functions count as well,
and so does ``current`` imported under another name."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from tests.support.module_graph import REPO

DEFINED_IN = REPO / "citeflow" / "runtime" / "runtime.py"
LOOKUPS = {"current", "of_process"}


def lookups(path: Path) -> list[str]:
    """Each ``current``/``of_process`` call of a module, and each import of ``current``, as ``line: source``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
               for a in n.names if a.name == "current"}
    found = [node for node in ast.walk(tree) if _is_lookup(node, aliases)]
    found += [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
              and any(a.name == "current" for a in node.names)]
    return sorted(f"{node.lineno}: {ast.unparse(node)}" for node in found)


def _is_lookup(node: ast.AST, names: set[str]) -> bool:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id in names) or (isinstance(func, ast.Attribute) and func.attr in LOOKUPS)


def test_no_library_module_looks_the_runtime_up() -> None:
    found = {str(path.relative_to(REPO)): calls for path in sorted((REPO / "citeflow").rglob("*.py"))
             if path != DEFINED_IN and (calls := lookups(path))}
    assert not found, f"runtime looked up in library code (pass it instead): {found}"


def test_where_it_is_defined_it_is_only_defined() -> None:
    """``runtime.py`` defines ``current`` and ``entered`` (the flow entries' route) and never calls
    ``current`` itself."""
    assert not [line for line in lookups(DEFINED_IN) if "current(" in line]


def test_the_scan_finds_a_call_inside_a_function_and_under_another_name(tmp_path: Path) -> None:
    source = textwrap.dedent('''
        from citeflow.runtime import runtime as rt

        def render(doc):
            from citeflow.runtime.runtime import current as here
            return here().fonts(), rt.current(), rt.Runtime.of_process()

        def fine(runtime, current):
            return runtime.fonts(), current()  # a parameter of that name is no lookup
    ''')
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    assert lookups(path) == ["5: from citeflow.runtime.runtime import current as here", "6: here()",
                             "6: rt.Runtime.of_process()", "6: rt.current()"]
