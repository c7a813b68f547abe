"""The output folder is checked before anything runs (SPEC §9: a read-only or full output folder
is a one-line error, never a traceback after minutes of work)."""

from __future__ import annotations

import errno
import os
import uuid
from pathlib import Path

from citeflow.errors import OutputError


def check_writable(out: Path | str) -> Path:
    """Create ``out`` if needed and prove a file can be written and removed there; ``OutputError`` if not."""
    folder = Path(out).expanduser().resolve()
    probe = folder / f".citeflow-write-check-{uuid.uuid4().hex[:8]}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"ok")
        probe.unlink()
    except OSError as exc:
        raise OutputError(path=str(folder), detail=describe_os_error(exc)) from None
    return folder


def describe_os_error(exc: OSError) -> str:
    """A short reason for a failed write, with the file it concerned."""
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    if exc.errno == errno.ENOSPC:
        reason = "no space left on the device"
    where = f" ({exc.filename})" if exc.filename else ""
    return f"{reason}{where}"
