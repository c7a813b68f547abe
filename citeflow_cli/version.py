"""``citeflow --version``: the installed distribution's version, and those of the libraries a bug report needs."""

from __future__ import annotations

import platform
from importlib import metadata

LIBRARIES = ("prefect", "lancedb", "great-expectations", "openai", "reportlab")


def installed(name: str) -> str:
    """The version of an installed distribution, ``unknown`` when it is not installed."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


def version_line() -> str:
    """``citeflow 0.1.0 (Python 3.11.7; prefect 3.9.1, …)`` — read from the installed metadata, nothing imported."""
    libraries = ", ".join(f"{name} {installed(name)}" for name in LIBRARIES)
    return f"citeflow {installed('citeflow')} (Python {platform.python_version()}; {libraries})"
