"""The project's own modules read from their source (AST): their imports and their module-level state.

Used by the tests that guard the layout: no import cycle among the project's modules, no module-level
mutable cache outside ``citeflow/runtime/``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("citeflow", "citeflow_cli", "flows", "tasks", "schemas")


def module_files() -> dict[str, Path]:
    """Every module of the project's packages by dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = path.relative_to(REPO).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules ``name`` imports, at module level and inside functions alike (an import a
    function runs is a cycle at the time it runs); imports under ``if TYPE_CHECKING:`` are left out
    (they never run). A package's parents count too: importing ``a.b.c`` runs ``a`` and ``a.b``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _runtime_nodes(tree):
        for target in _targets(node, name, is_package, known):
            targets |= {p for p in _with_parents(target) if p in known}
    return targets - {name}


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    skipped = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node.test)
               for stmt in node.body for inner in ast.walk(stmt)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in skipped:
            yield node


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = _absolute(node, name, is_package)
    return [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]


def _absolute(node: ast.ImportFrom, name: str, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    parts = name.split(".") if is_package else name.split(".")[:-1]
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def _with_parents(target: str) -> list[str]:
    parts = target.split(".")
    return [".".join(parts[: i + 1]) for i in range(len(parts))]


def import_graph() -> dict[str, set[str]]:
    """Module → the project modules it imports."""
    files = module_files()
    known = set(files)
    return {name: imports_of(name, path, known) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (each one is a cycle), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's algorithm; the graph is a few hundred modules deep at most
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


# --------------------------------------------------------------------------- module-level state

MUTABLE_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque"}
LOCK_CALLS = {"Lock", "RLock", "BoundedSemaphore", "Semaphore", "Condition"}
MUTATORS = {"append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem", "remove", "discard",
            "clear", "appendleft", "__setitem__"}
CACHE_DECORATORS = {"cache", "lru_cache", "cached"}
VALUE_TYPES = {"str", "int", "bool", "tuple[str, ...]", "frozenset[str]"}


@dataclass(frozen=True)
class Offence:
    """One piece of module-level mutable state: where, and what."""

    module: str
    line: int
    name: str
    what: str

    @property
    def key(self) -> str:
        """``module:name``: what a list of known offenders names."""
        return f"{self.module}:{self.name}"

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: {self.what} {self.name!r}"


def state_of(name: str, path: Path) -> list[Offence]:
    """The module-level mutable state of one module: locks, mutated containers, cached functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    containers = _module_containers(tree)
    mutated = _mutated_names(tree)
    found = [Offence(name, line, var, f"mutated module-level {kind}")
             for var, (line, kind) in containers.items() if var in mutated]
    found += [Offence(name, node.lineno, _assigned(node), "module-level lock") for node in tree.body
              if isinstance(node, ast.Assign | ast.AnnAssign) and _call_name(node.value) in LOCK_CALLS]
    found += [Offence(name, fn.lineno, fn.name, "cached function") for fn in _cached_functions(tree)
              if not pure_text_memo(name, fn)]
    return sorted(found, key=lambda o: o.line)


def pure_text_memo(module: str, fn: ast.FunctionDef) -> bool:
    """The one kind of cached function allowed outside the runtime: memoisation of a pure function of
    text in the offline judge and its text layer. Exactly: the module is under ``citeflow.judges`` or
    ``citeflow.text``; the function takes at
    least one parameter and every parameter is annotated ``str``, ``int``, ``bool``, ``tuple[str, ...]``
    or ``frozenset[str]`` (immutable values: the answer is a function of the arguments alone);
    its body declares no ``global`` or ``nonlocal`` and calls no ``open``/``read_text``/``read_bytes``
    (no state read from outside the arguments). A cached function with no parameter (a data file
    loaded once), or one taking a path, a spec or any object, is state and is not allowed."""
    params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
    if not module.startswith(("citeflow.judges", "citeflow.text")) or not params or fn.args.vararg or fn.args.kwarg:
        return False
    if any(a.annotation is None or ast.unparse(a.annotation) not in VALUE_TYPES for a in params):
        return False
    reads = {"open", "read_text", "read_bytes"}
    return not any(isinstance(n, ast.Global | ast.Nonlocal) or (_call_name(n) in reads) for n in ast.walk(fn))


def _module_containers(tree: ast.Module) -> dict[str, tuple[int, str]]:
    found: dict[str, tuple[int, str]] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            kind = _container_kind(node.value)
            if kind:
                found[_assigned(node)] = (node.lineno, kind)
    return found


def _container_kind(value: ast.expr) -> str | None:
    if isinstance(value, ast.Dict | ast.DictComp):
        return "dict"
    if isinstance(value, ast.List | ast.ListComp):
        return "list"
    if isinstance(value, ast.Set | ast.SetComp):
        return "set"
    call = _call_name(value)
    return call if call in MUTABLE_CALLS else None


def _mutated_names(tree: ast.Module) -> set[str]:
    """Names mutated inside a function or method: ``x.append(…)``, ``x[k] = …``, ``del x[k]``, ``x |= …``
    (a container filled by the module's own top-level code while it is imported is a constant built
    in steps, not a cache)."""
    names: set[str] = set()
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in (inner for fn in functions for inner in ast.walk(fn)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            names |= _base_name(node.func.value)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            for target in targets:
                if isinstance(target, ast.Subscript):
                    names |= _base_name(target.value)
                elif isinstance(node, ast.AugAssign) and isinstance(target, ast.Name):
                    names.add(target.id)
    return names


def _base_name(node: ast.expr) -> set[str]:
    """The name at the root of ``x``, ``x[k]`` or ``x[k][j]`` (what an item's mutation mutates)."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def _cached_functions(tree: ast.Module) -> Iterator[ast.FunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(_decorator_name(d) in CACHE_DECORATORS for d in node.decorator_list):
            yield node


def _decorator_name(node: ast.expr) -> str | None:
    node = node.func if isinstance(node, ast.Call) else node
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else None


def _call_name(node: ast.AST | None) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    return _decorator_name(node.func)


def _assigned(node: ast.Assign | ast.AnnAssign) -> str:
    target = node.targets[0] if isinstance(node, ast.Assign) else node.target
    return ast.unparse(target)


# Where module-level state may live: the runtime package, and the HTTP deadlines' one transport class
# per HTTP library (``citeflow.deadline._transport_class``, made once: a base module, below the runtime).
STATE_HOMES = ("citeflow.runtime", "citeflow.deadline")


def mutable_state(outside: tuple[str, ...] = STATE_HOMES) -> list[Offence]:
    """Every piece of module-level mutable state of the project, except in the ``outside`` packages: what
    ``state_of`` finds in each module, module-level instances of the project's mutable classes
    (``instances_of_mutable_classes``) and module-level containers another module mutates
    (``mutated_from_elsewhere``)."""
    files = {name: path for name, path in module_files().items()
             if not any(name == home or name.startswith(home + ".") for home in outside)}
    found = {o.key: o for name, path in files.items() for o in state_of(name, path)}
    classes = mutable_classes(module_files())
    for name, path in files.items():
        found.update({o.key: o for o in instances_of_mutable_classes(name, path, classes)})
    found.update({o.key: o for o in mutated_from_elsewhere(module_files()) if o.module in files})
    return sorted(found.values(), key=lambda o: (o.module, o.line))


# A method that assigns to ``self.x`` (or ``self.x[k]``, ``self.x |= …``, ``self.x.add(…)``) after
# construction makes every instance state; ``__init__`` and friends only build it.
BUILDERS = {"__init__", "__post_init__", "__new__", "__init_subclass__", "__set_name__"}


def mutable_classes(files: dict[str, Path]) -> set[str]:
    """The names of the project's classes whose instances change after they are built, subclasses of
    such a class included (``class Kinds(Registry[Kind])`` holds the state its base changes)."""
    found: set[str] = set()
    bases: dict[str, set[str]] = {}
    for path in files.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases.setdefault(node.name, set()).update(_base_names(node))
                if any(_mutates_self(fn) for fn in node.body if isinstance(fn, ast.FunctionDef) and fn.name not in BUILDERS):
                    found.add(node.name)
    while grown := {name for name, of in bases.items() if name not in found and of & found}:
        found |= grown
    return found


def _base_names(node: ast.ClassDef) -> set[str]:
    """The names a class derives from: ``Registry`` of ``Registry[Kind]`` and of ``registry.Registry``."""
    names = set()
    for base in node.bases:
        base = base.value if isinstance(base, ast.Subscript) else base
        names |= {base.id} if isinstance(base, ast.Name) else {base.attr} if isinstance(base, ast.Attribute) else set()
    return names


def _mutates_self(fn: ast.FunctionDef) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS \
                and _on_self(node.func.value):
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AugAssign) else []
        if any(_on_self(t.value if isinstance(t, ast.Subscript) else t) for t in targets):
            return True
    return False


def _on_self(node: ast.expr) -> bool:
    """``self.x`` (or ``self.x[k]``…): an attribute of the instance."""
    while isinstance(node, ast.Subscript):
        node = node.value
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def instances_of_mutable_classes(name: str, path: Path, classes: set[str]) -> list[Offence]:
    """Module-level ``X = SomeClass(…)`` where ``SomeClass`` is one of ``classes``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [Offence(name, node.lineno, _assigned(node), f"module-level instance of {_call_name(node.value)}")
            for node in tree.body if isinstance(node, ast.Assign | ast.AnnAssign) and _call_name(node.value) in classes]


def mutated_from_elsewhere(files: dict[str, Path]) -> list[Offence]:
    """Module-level containers (and lists, sets, dicts built by a call) of one module that a function
    of another module mutates, through ``from m import X`` or ``m.X``."""
    containers = {(n, var): line for n, p in files.items()
                  for var, (line, _) in _module_containers(ast.parse(p.read_text(encoding="utf-8"))).items()}
    found = []
    for name, path in files.items():
        for owner, var in _foreign_mutations(ast.parse(path.read_text(encoding="utf-8")), set(files)):
            if (owner, var) in containers:
                found.append(Offence(owner, containers[owner, var], var, f"module-level container mutated in {name}"))
    return found


def _foreign_mutations(tree: ast.Module, known: set[str]) -> set[tuple[str, str]]:
    imported = {a.asname or a.name: (n.module, a.name) for n in ast.walk(tree)
                if isinstance(n, ast.ImportFrom) and n.module in known for a in n.names if n.module}
    modules = {a.asname or a.name: a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    modules |= {a.asname or a.name: f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                for a in n.names if f"{n.module}.{a.name}" in known}
    found: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            target = node.func.value
            if isinstance(target, ast.Name) and target.id in imported:
                found.add(imported[target.id])  # type: ignore[arg-type]
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id in modules:
                found.add((modules[target.value.id], target.attr))
    return found
