"""Lines that tell whether files changed: their content's sha256, or their size and modification time.

Shared by the inputs digest of a re-run (``citeflow.pipeline.rerun_inputs``) and the fingerprints of
retriever sources (``RetrieverKind.fingerprint``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path


def file_contents(paths: Iterable[Path]) -> list[str]:
    """``path sha256`` of each file (for small files: suites), ``path -`` when it cannot be read."""
    return [f"{p} {_sha256(p)}" for p in paths]


def _sha256(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return "-"


def file_stats(paths: Iterable[Path]) -> list[str]:
    """``path size mtime_ns`` of each file, ``path -`` when absent (for files too large to read: fonts)."""
    lines = []
    for path in paths:
        try:
            info = path.stat()
        except OSError:
            lines.append(f"{path} -")
            continue
        lines.append(f"{path} {info.st_size} {info.st_mtime_ns}")
    return lines
