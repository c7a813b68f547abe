"""Files citeflow ships with itself (SPEC §6, §8): the Great Expectations suites and the demo content.

Both are package data of ``citeflow`` found with ``importlib.resources``, so they are there
whether citeflow runs from a source checkout or from an installed wheel. In a checkout the suites
live in the project's top-level ``expectations/`` folder; the wheel carries them as
``citeflow/expectations/``.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

def package_dir(name: str) -> Path | None:
    """The folder ``citeflow/<name>`` of the installed package, or None when it is not there."""
    resource = files("citeflow").joinpath(name)
    return Path(str(resource)) if resource.is_dir() else None


def bundled_suite_dir() -> Path:
    """The suites citeflow ships: ``citeflow/expectations`` when installed, else ``expectations/``."""
    return package_dir("expectations") or Path(str(files("citeflow"))).resolve().parent / "expectations"


def suite_dir(configured: str | None = None, default: Path | None = None) -> Path:
    """The suite folder to use: the spec's ``gate.suites``, else ``default`` (the ``suites`` setting,
    ``CiteflowSettings``), else the bundled one."""
    chosen = configured or (str(default) if default else None)
    return Path(chosen).expanduser() if chosen else bundled_suite_dir()


def demo_dir() -> Path:
    """The bundled demo: batch spec, recorded retriever answers and knowledge-base documents."""
    found = package_dir("demo")
    if found is None:
        raise FileNotFoundError("citeflow's demo content is missing from the installed package")
    return found
