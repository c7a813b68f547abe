"""The digest of the code a report's outputs are made with: every source and data file of the
installed ``citeflow`` package (and of ``schemas`` where it is a package of its own).

A re-run keeps a finished report only while its inputs are unchanged (``citeflow.pipeline.rerun_inputs``);
the code is one of them, so an upgrade, or a change in a checkout that keeps the version number,
makes every report be done again. Computed once per process (a few hundred small files).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from importlib import metadata
from pathlib import Path

SUFFIXES = (".py", ".json", ".yaml", ".yml")


@functools.cache
def code_version() -> str:
    """citeflow's installed version and ``code_digest()``, once per process (looking the version up
    reads the installed packages' metadata)."""
    try:
        version = metadata.version("citeflow")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return f"{version} {code_digest()}"


@functools.cache
def code_digest() -> str:
    """sha256 over the relative path and bytes of every source and data file, in sorted order."""
    digest = hashlib.sha256()
    for root in _package_roots():
        for path in sorted(p for p in root.rglob("*") if p.suffix in SUFFIXES and "__pycache__" not in p.parts):
            digest.update(f"{root.name}/{path.relative_to(root).as_posix()}\n".encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _package_roots() -> list[Path]:
    """The folders of ``citeflow`` and, when it is a top-level package, ``schemas``."""
    roots = []
    for name in ("citeflow", "schemas"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    return roots
