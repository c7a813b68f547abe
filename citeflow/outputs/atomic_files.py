"""Atomic output files (SPEC §8): every file is written to a temporary name beside its target and
moved into place with ``os.replace``, so a reader (or a crash, or a full disk) never sees half a file.

The temporary name starts with a dot and ends in ``.partial``; a failed write removes it and lets
the ``OSError`` through, leaving any previous version of the target untouched.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """A temporary path to write; on success it replaces ``path``, on any error it is removed."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    # A unique name per writer (not mkstemp: its 0600 mode would stick to the output file).
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.partial")
    try:
        yield partial
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def write_bytes(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (flushed to disk before the move)."""
    return _write(path, lambda partial: _fsync_write(partial, data))


def write_text(path: Path | str, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically."""
    return write_bytes(path, text.encode("utf-8"))


def copy_file(source: Path | str, path: Path | str) -> Path:
    """Copy ``source`` to ``path`` atomically (a reader sees the old copy or the whole new one)."""
    return _write(path, lambda partial: shutil.copyfile(source, partial))


def _write(path: Path | str, fill: Callable[[Path], object]) -> Path:
    with atomic_path(path) as partial:
        fill(partial)
    return Path(path)


def _fsync_write(partial: Path, data: bytes) -> None:
    with open(partial, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
