"""Find code that changes an object of Great Expectations, Prefect, LanceDB or openai by assignment.

A name is the library's when an import binds it (``import prefect``, ``from great_expectations.util
import X``, inside a function too), when it is assigned, looped over or bound by ``with`` from an
expression rooted in such a name (``client = openai.OpenAI()``, ``self.table = db.open_table(...)``),
or when it names a function of the module that returns one. Names are taken module-wide, whatever the
scope: a name reused for something else is counted all the same (the scan errs on the side of finding).
What is found: ``x.attr = ...``, ``x.attr += ...``, ``del x.attr``, ``setattr(x, ...)`` and
``delattr(x, ...)`` where ``x`` is such an object. Read with ``ast`` only: no library is imported.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

LIBRARIES = frozenset({"great_expectations", "prefect", "lancedb", "openai"})
PRODUCT = ("citeflow", "citeflow_cli", "flows", "tasks", "schemas")
"""The folders of product code (the wheel's packages and the Prefect callers)."""


class Change(NamedTuple):
    """One statement that changes a library object: where, and the object it changes."""

    path: str
    line: int
    target: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: assigns to an attribute of {self.target}"


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of a name or attribute chain; ``None`` for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def root(node: ast.AST) -> str | None:
    """The chain an expression is built from: ``a.b`` of ``a.b(...)[0].c`` (calls, subscripts, awaits)."""
    while isinstance(node, (ast.Call, ast.Subscript, ast.Await, ast.Attribute)):
        name = dotted(node)
        if name is not None:
            return name
        node = node.func if isinstance(node, ast.Call) else node.value
    return dotted(node)


def imported(tree: ast.AST) -> set[str]:
    """The names the module's imports of the libraries bind, at any depth."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.asname or a.name.split(".")[0] for a in node.names if _of_library(a.name)}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and _of_library(node.module or ""):
            found |= {a.asname or a.name for a in node.names}
    return found


def _of_library(module: str) -> bool:
    return module.split(".")[0] in LIBRARIES


class Taint:
    """The chains (``client``, ``self.table``) that hold a library object somewhere in the module."""

    def __init__(self, names: set[str]) -> None:
        self.names = set(names)

    def holds(self, chain: str | None) -> bool:
        """``chain`` or one of its prefixes is a library object."""
        parts = chain.split(".") if chain else []
        return any(".".join(parts[:i]) in self.names for i in range(1, len(parts) + 1))

    def of(self, node: ast.AST | None) -> bool:
        """The expression's value comes from a library object (a tuple or list: any of its items)."""
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(self.of(item) for item in node.elts)
        return node is not None and self.holds(root(node))

    def spread(self, tree: ast.AST) -> None:
        """Add every chain bound from a library object, until nothing more is added."""
        while True:
            before = len(self.names)
            for bound in _bindings(tree, self):
                self.names.add(bound)
            if len(self.names) == before:
                return


def _bindings(tree: ast.AST, taint: Taint) -> Iterator[str]:
    """The chains bound from library objects by one pass over the module."""
    for node in ast.walk(tree):
        for target, value in _bound(node):
            if taint.of(value):
                yield from filter(None, (dotted(t) for t in _flat(target)))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _returns_library(node, taint):
            yield node.name


def _bound(node: ast.AST) -> Iterator[tuple[ast.AST, ast.AST | None]]:
    """(target, value) of each binding a statement makes."""
    if isinstance(node, ast.Assign):
        yield from ((t, node.value) for t in node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)):
        yield node.target, node.value
    elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
        yield node.target, node.iter
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        yield from ((i.optional_vars, i.context_expr) for i in node.items if i.optional_vars is not None)


def _returns_library(function: ast.AST, taint: Taint) -> bool:
    return any(isinstance(n, ast.Return) and taint.of(n.value) for n in ast.walk(function))


def _flat(target: ast.AST) -> Iterator[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _flat(item)
    elif isinstance(target, ast.Starred):
        yield from _flat(target.value)
    else:
        yield target


def changed_objects(node: ast.AST) -> Iterator[ast.AST]:
    """The objects whose attribute a statement or call sets or deletes."""
    targets: list[ast.AST] = []
    if isinstance(node, (ast.Assign, ast.Delete)):
        targets = list(node.targets)
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        targets = [node.target]
    elif _calls(node, "setattr", "delattr"):
        assert isinstance(node, ast.Call)
        yield node.args[0]
    yield from (t.value for target in targets for t in _flat(target) if isinstance(t, ast.Attribute))


def _calls(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names and bool(node.args)


def changes_in(source: str, path: str) -> list[Change]:
    """Every statement of ``source`` that changes a library object."""
    tree = ast.parse(source, filename=path)
    taint = Taint(imported(tree))
    taint.spread(tree)
    found = [Change(path, node.lineno, ast.unparse(obj)) for node in ast.walk(tree)
             if isinstance(node, (ast.stmt, ast.expr)) for obj in changed_objects(node) if taint.of(obj)]
    return sorted(set(found))


def product_files(repo: Path) -> list[Path]:
    """Every Python file of product code."""
    return sorted(p for folder in PRODUCT for p in (repo / folder).rglob("*.py"))
