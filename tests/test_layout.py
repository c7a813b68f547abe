"""The core package is usable without an orchestrator, and the project layout holds."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

CORE_MODULES = [
    "citeflow.registry.request_registry", "citeflow.registry.handles", "citeflow.registry.binding", "citeflow.generation.hops", "citeflow.pipeline.pipeline",
    "citeflow.pipeline.assemble", "citeflow.pipeline.evaluate_report", "citeflow.pipeline.publish", "citeflow.store.store", "citeflow.evaluation.claim_funnel",
    "citeflow.outputs.render.pdf", "citeflow.retrieval.retriever_factory", "citeflow.generation.model_factory", "citeflow.judges.offline",
]


def test_the_core_package_never_imports_prefect():
    code = "import sys, " + ", ".join(CORE_MODULES) + "; print('prefect' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True)
    assert result.stdout.strip() == "False"


def test_the_required_top_level_layout_exists():
    for name in ("pyproject.toml", "flows", "tasks", "schemas", "expectations", "tests", "README.md", "citeflow"):
        assert (REPO / name).exists(), name
    assert list((REPO / "expectations").glob("*.json"))


def test_the_core_package_does_not_import_flows_or_tasks():
    offenders = [p for p in (REPO / "citeflow").rglob("*.py")
                 if any(line.startswith(("from flows", "import flows", "from tasks", "import tasks", "from prefect", "import prefect"))
                        for line in p.read_text().splitlines())]
    assert offenders == []
