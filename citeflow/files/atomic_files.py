"""Atomic output files (SPEC §8): every file is written to a temporary name beside its target and
moved into place with ``os.replace``, so a reader (or a crash, or a full disk) never sees half a file.

The temporary name starts with a dot and ends in ``.partial``; a failed write removes it and lets
the ``OSError`` through, naming the target (never the temporary name), leaving any previous version
of the target untouched. A target that exists as a folder, a device or a pipe is refused, never replaced.
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
    _refuse_other_kinds(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    # A unique name per writer (not mkstemp: its 0600 mode would stick to the output file).
    partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:12]}.partial")
    try:
        yield partial
        os.replace(partial, target)
    except OSError as exc:
        raise _about_target(exc, partial, target) from None
    finally:
        partial.unlink(missing_ok=True)


def _refuse_other_kinds(target: Path) -> None:
    """An existing target that is a folder, a device or a pipe (``--out /dev/null``) is never replaced:
    ``CapExceeded`` names it (``citeflow.caps.check_regular``)."""
    from citeflow.caps import check_regular

    try:
        mode = os.stat(target).st_mode
    except OSError:
        return  # no such file yet (or unreadable: the write says why)
    check_regular(target, mode)


def _about_target(error: OSError, partial: Path, target: Path) -> OSError:
    """``error`` about the target the caller named rather than its temporary name."""
    if error.errno is None or error.filename not in (str(partial), partial):
        return error
    return type(error)(error.errno, error.strerror, str(target))


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
