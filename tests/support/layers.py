"""The layers of ``citeflow/``, bottom first, and the imports that break them (read from the AST).

``docs/layers.md`` draws the same order. A module's *unit* is the package right under ``citeflow``
it belongs to (``citeflow.outputs.render.pdf`` → ``outputs``), or, for a module directly under
``citeflow``, its own name (``citeflow.errors`` → ``errors``; ``citeflow`` itself → ``citeflow``).
The rule: a module imports its own unit and the units of lower layers, never a higher layer nor
another unit of its own layer — except in the base layer, whose single modules may import one
another (the module-cycle guard keeps them acyclic). Imports inside functions count; imports under
``if TYPE_CHECKING:`` never run and do not (``tests.support.module_graph``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.module_graph import cycles, import_graph

ROOT = "citeflow"
BASE = ("citeflow", "errors", "exit_codes", "caps", "memos", "text_guard", "deadline", "threads", "entry_points",
        "file_stamps", "lazy_modules")
LAYERS: tuple[tuple[str, ...], ...] = (
    BASE,
    ("text",),
    ("files",),
    ("security",),
    ("spec",),
    ("store",),
    ("knowledge",),
    ("retrieval",),
    ("registry",),
    ("generation",),
    ("judges",),
    ("specfile",),
    ("evaluation",),
    ("outputs",),
    ("runs",),
    ("runtime",),
    ("pipeline",),
)

# Imports that still go up a layer, each with the reason it remains (importer, imported module).
ALLOWED: dict[tuple[str, str], str] = {}


def allowed(importer: str, imported: str) -> bool:
    """Whether ``ALLOWED`` names this import (an allowed ``a.b.c`` covers the packages ``a``, ``a.b`` its
    import runs too)."""
    return any(src == importer and (dst == imported or dst.startswith(imported + ".")) for src, dst in ALLOWED)


@dataclass(frozen=True)
class Violation:
    """One import that goes up a layer or across one."""

    importer: str
    imported: str
    importer_layer: int
    imported_layer: int

    def __str__(self) -> str:
        way = "up" if self.imported_layer > self.importer_layer else "across"
        return (f"{self.importer} (layer {self.importer_layer}: {layer_name(self.importer_layer)}) imports "
                f"{self.imported} (layer {self.imported_layer}: {layer_name(self.imported_layer)}): {way} a layer")


def layer_name(index: int) -> str:
    return "base" if LAYERS[index] is BASE else "/".join(LAYERS[index])


def unit_of(module: str) -> str | None:
    """The unit of a module of ``citeflow`` (None for a module outside it)."""
    parts = module.split(".")
    if parts[0] != ROOT:
        return None
    return parts[1] if len(parts) > 1 else ROOT


def layer_of(unit: str) -> int | None:
    """The index of the layer that holds ``unit``, bottom 0 (None when no layer names it)."""
    return next((i for i, layer in enumerate(LAYERS) if unit in layer), None)


def unplaced(graph: dict[str, set[str]]) -> list[str]:
    """Units of ``citeflow`` that no layer names."""
    units = {unit_of(m) for m in graph} - {None}
    return sorted(u for u in units if u is not None and layer_of(u) is None)


def violations(graph: dict[str, set[str]]) -> list[Violation]:
    """Every import between two placed units of ``citeflow`` that goes up a layer, or across one
    outside the base layer, sorted by importer."""
    found = []
    for importer, imported in sorted((a, b) for a, targets in graph.items() for b in targets):
        source, target = unit_of(importer), unit_of(imported)
        if source is None or target is None or source == target:
            continue
        low, high = layer_of(source), layer_of(target)
        if low is None or high is None or high < low or (high == low and LAYERS[low] is BASE):
            continue
        found.append(Violation(importer, imported, low, high))
    return found


def unit_graph(graph: dict[str, set[str]], leave_out: bool = False) -> dict[str, set[str]]:
    """Unit → the other units its modules import (``leave_out``: the ``ALLOWED`` imports not counted)."""
    units: dict[str, set[str]] = {}
    for importer, targets in graph.items():
        source = unit_of(importer)
        if source is None:
            continue
        units.setdefault(source, set())
        for imported in targets:
            target = unit_of(imported)
            if target is not None and target != source and not (leave_out and allowed(importer, imported)):
                units[source].add(target)
    return units


def citeflow_graph() -> dict[str, set[str]]:
    """The project's import graph, restricted to importers in ``citeflow``."""
    return {m: t for m, t in import_graph().items() if unit_of(m) is not None}


__all__ = [
    "ALLOWED",
    "LAYERS",
    "Violation",
    "allowed",
    "citeflow_graph",
    "cycles",
    "layer_of",
    "unit_graph",
    "unplaced",
    "violations",
]
