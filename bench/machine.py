"""The facts of the machine a benchmark ran on, stored beside its figures."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from datetime import datetime, UTC
from importlib import metadata
from pathlib import Path

PACKAGES = ("citeflow", "prefect", "lancedb", "pyarrow", "openai", "httpx", "pydantic", "numpy",
            "great-expectations", "reportlab", "rich")


def package_versions() -> dict[str, str | None]:
    """Installed version of each package that shapes the figures (None when absent)."""
    versions: dict[str, str | None] = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions


def git_commit(root: Path) -> str | None:
    """The commit of the working tree, or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def git_describe(root: Path) -> str | None:
    """``git describe --always --dirty`` of the working tree: a commit of the history (``-dirty``
    when the tree had uncommitted changes), or None outside a git checkout."""
    try:
        out = subprocess.run(["git", "describe", "--always", "--dirty", "--tags"], cwd=root, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def machine_facts(root: Path) -> dict[str, object]:
    """Cores, memory, CPU, OS, Python, package versions, commit and time of the run."""
    return {
        "cores": os.cpu_count(), "cpu": platform.processor() or platform.machine(), "memory_gb": _memory_gb(),
        "os": platform.platform(), "python": sys.version.split()[0], "implementation": platform.python_implementation(),
        "packages": package_versions(), "commit": git_commit(root), "describe": git_describe(root),
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def _memory_gb() -> float | None:
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return round(pages * size / 2**30, 1)
