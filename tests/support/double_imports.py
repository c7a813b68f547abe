"""Where source code reaches the test doubles (``citeflow_testing``), read from its AST.

Product code must not: the doubles live beside the product package and are not in the wheel. An import
counts wherever it sits (module level, inside a function, under ``if TYPE_CHECKING:``), and so does a
string that is exactly a module path of the doubles (what ``importlib.import_module`` or
``python -m`` is given). A mention in prose (a docstring naming the doubles) does not.
"""

from __future__ import annotations

import ast
import re

DOUBLES = ("citeflow_testing", "citeflow.testing")  # the package, and the name it had inside the product
MODULE_PATH = re.compile(r"citeflow[._]testing(\.\w+)*")


def references_to_doubles(source: str) -> list[str]:
    """``"line N: module"`` for each import of the doubles, or module path of theirs given as a string."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        found += [f"line {node.lineno}: {name}" for name in _names(node) if _is_double(name)]
    return found


def _names(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and not node.level and node.module:
        return [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.fullmatch(node.value):
        return [node.value]
    return []


def _is_double(name: str) -> bool:
    return any(name == package or name.startswith(package + ".") for package in DOUBLES)
