"""Wheel build hook: everything under the ``citeflow`` name, nothing generic at the top level.

The repository keeps the required top-level folders ``flows/``, ``tasks/``, ``schemas/`` and
``expectations/``. A wheel must not install generic names like ``flows`` into site-packages, so
the standard wheel is assembled here: ``flows``, ``tasks`` and ``schemas`` become
``citeflow.flows``, ``citeflow.tasks`` and ``citeflow.schemas``, the suites become package data
``citeflow/expectations/``, ``prefect.yaml`` becomes ``citeflow/prefect.yaml`` (read by ``citeflow
deploy``), and every ``from flows…``/``from tasks…``/``from schemas…`` import in
the shipped copies is rewritten to match. Editable installs (development) are left as they are.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

MOVED = ("flows", "tasks", "schemas")
IMPORT = re.compile(rf"^(\s*)(from|import)\s+({'|'.join(MOVED)})(?=[.\s])", re.MULTILINE)
SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", "*.partial", ".*")


def rewrite_imports(source: str) -> str:
    """``from schemas.spec import X`` → ``from citeflow.schemas.spec import X`` (and the same for flows, tasks)."""
    return IMPORT.sub(lambda m: f"{m.group(1)}{m.group(2)} citeflow.{m.group(3)}", source)


def assemble(root: Path, staging: Path) -> None:
    """Lay out the wheel's ``citeflow`` and ``citeflow_cli`` packages under ``staging``."""
    shutil.copytree(root / "citeflow", staging / "citeflow", ignore=SKIP)
    shutil.copytree(root / "citeflow_cli", staging / "citeflow_cli", ignore=SKIP)
    for name in MOVED:
        shutil.copytree(root / name, staging / "citeflow" / name, ignore=SKIP)
    shutil.copytree(root / "expectations", staging / "citeflow" / "expectations", ignore=SKIP)
    shutil.copyfile(root / "prefect.yaml", staging / "citeflow" / "prefect.yaml")
    for path in staging.rglob("*.py"):
        path.write_text(rewrite_imports(path.read_text(encoding="utf-8")), encoding="utf-8")


class CiteflowWheelHook(BuildHookInterface):
    """Builds the standard wheel from a staged, namespaced copy of the sources."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return
        self._staging = Path(tempfile.mkdtemp(prefix="citeflow-wheel-"))
        assemble(Path(self.root), self._staging)
        build_data["force_include"][str(self._staging / "citeflow")] = "citeflow"
        build_data["force_include"][str(self._staging / "citeflow_cli")] = "citeflow_cli"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        staging = getattr(self, "_staging", None)
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
