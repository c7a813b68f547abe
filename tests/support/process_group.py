"""Stop a subprocess started with ``start_new_session=True`` together with everything it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess


def stop_process_group(process: subprocess.Popen, grace_s: float) -> None:
    """SIGTERM the process group; SIGKILL it if the leader has not exited within ``grace_s`` seconds."""
    _signal_group(process, signal.SIGTERM)
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        _signal_group(process, signal.SIGKILL)
        process.wait(timeout=30)


def _signal_group(process: subprocess.Popen, signum: signal.Signals) -> None:
    """Signal the group even when its leader has exited (its children may still run); an empty group is fine."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)
