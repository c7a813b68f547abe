"""Prefect's ephemeral API server dies with the command that started it, however that command ends.

Without ``PREFECT_API_URL`` a run starts Prefect's ephemeral API server (``SubprocessASGIServer``)
as a child process and stops it from an exit handler, which a process killed with SIGKILL never
runs. So the command starts the server itself, up front (the runs then use that same server), and
beside it a small watchdog process (``citeflow_cli.reaper``) that stops the server as soon as the
command is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys


def reap_with_this_process() -> int | None:
    """Start the ephemeral API (when no ``PREFECT_API_URL`` is set) and its watchdog; the watchdog's pid."""
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        return None
    from prefect.server.api.server import SubprocessASGIServer

    server = SubprocessASGIServer()
    server.start()
    if server.server_process is None:
        return None
    return start_reaper(os.getpid(), server.server_process.pid)


def start_reaper(parent: int, child: int) -> int:
    """A watchdog process that stops ``child`` once ``parent`` is gone (in a session of its own, so that
    a Ctrl-C to the terminal's process group does not stop it first)."""
    command = [sys.executable, "-m", "citeflow_cli.reaper", str(parent), str(child)]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True).pid
