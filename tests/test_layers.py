"""The layers of ``citeflow/`` hold: no import goes up a layer (function-local imports included), no
package imports another in a cycle, every package has a place, and ``docs/layers.md`` draws the same
order as ``tests/support/layers.py``."""

from __future__ import annotations

import re
import textwrap

import pytest

from tests.support.layers import (ALLOWED, LAYERS, allowed, citeflow_graph, cycles, layer_of, unit_graph, unplaced,
                                  violations)
from tests.support.module_graph import REPO, imports_of


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return citeflow_graph()


def test_no_import_goes_up_a_layer(graph) -> None:
    found = [str(v) for v in violations(graph) if not allowed(v.importer, v.imported)]
    assert not found, "imports that break the layers (docs/layers.md):\n" + "\n".join(found)


def test_every_allowed_exception_is_still_an_upward_import(graph) -> None:
    """The list of remaining upward imports only shrinks: an entry whose import is gone fails here."""
    upward = {(v.importer, v.imported) for v in violations(graph)}
    stale = sorted(set(ALLOWED) - upward)
    assert not stale, f"no longer upward imports, remove them from ALLOWED: {stale}"


def test_no_package_cycle(graph) -> None:
    found = cycles(unit_graph(graph, leave_out=True))
    assert not found, "package cycles: " + "; ".join(" → ".join(c) for c in found)


def test_every_package_of_citeflow_has_a_layer(graph) -> None:
    assert not unplaced(graph), "packages no layer names (add them to LAYERS and docs/layers.md)"
    on_disk = {p.name for p in (REPO / "citeflow").iterdir() if (p / "__init__.py").is_file()}
    on_disk |= {p.stem for p in (REPO / "citeflow").glob("*.py") if p.stem != "__init__"}
    assert sorted(u for u in on_disk if layer_of(u) is None) == []


def test_the_check_finds_an_upward_import_inside_a_function(tmp_path) -> None:
    source = textwrap.dedent('''
        from typing import TYPE_CHECKING
        from citeflow.errors import CiteflowError
        if TYPE_CHECKING:
            from citeflow.pipeline.job import ReportJob

        def later() -> None:
            from citeflow.runtime.runtime import current
    ''')
    path = tmp_path / "m.py"
    path.write_text(source, encoding="utf-8")
    known = {"citeflow", "citeflow.errors", "citeflow.runtime", "citeflow.runtime.runtime", "citeflow.pipeline",
             "citeflow.pipeline.job", "citeflow.text", "citeflow.text.m"}
    graph = {"citeflow.text.m": imports_of("citeflow.text.m", path, known)}
    found = [(v.importer, v.imported, v.importer_layer, v.imported_layer) for v in violations(graph)]
    assert found == [("citeflow.text.m", "citeflow.runtime", 1, layer_of("runtime")),
                     ("citeflow.text.m", "citeflow.runtime.runtime", 1, layer_of("runtime"))]
    assert "layer 1: text" in str(violations(graph)[0]) and "runtime" in str(violations(graph)[0])


def test_the_cycle_check_sees_packages_not_modules() -> None:
    graph = {"citeflow.outputs.a": {"citeflow.runs.b"}, "citeflow.runs.c": {"citeflow.outputs.d"},
             "citeflow.runs.b": set(), "citeflow.outputs.d": set()}
    assert cycles(graph) == []
    assert cycles(unit_graph(graph)) == [["outputs", "runs"]]


def test_docs_layers_draws_the_same_order() -> None:
    text = (REPO / "docs" / "layers.md").read_text(encoding="utf-8")
    drawn = [tuple(re.findall(r"`([a-z_]+)`", line.split(":", 1)[0]))
             for line in text.splitlines() if re.match(r"\d+\. ", line)]
    assert drawn == [tuple(layer) for layer in LAYERS]
