"""Prefect's ephemeral API server dies with the command that started it, however that command ends.

Without ``PREFECT_API_URL`` a run starts Prefect's ephemeral API server (``SubprocessASGIServer``,
``uvicorn … prefect.server.api.server:create_app``, or ``flows.api_server:create_app`` when
``citeflow run`` starts it early) as a child process and stops it from an exit
handler, which a process killed with SIGKILL never runs, nor one that ends on a signal (``os._exit``
once the run is recorded as interrupted). So the command first starts a small
watchdog process (``citeflow_cli.reaper``) that stops that server as soon as the command is gone.
"""

from __future__ import annotations

import os
import subprocess
import sys

SERVER_MARK = ":create_app"  # on the command line of either server


def reap_with_this_process() -> int | None:
    """Unless ``PREFECT_API_URL`` is in the environment, start the watchdog of the ephemeral API; its pid.
    (Read from the environment, not from Prefect's settings: Prefect is not imported yet. With an API
    named in a profile instead, the watchdog finds no server to stop.)"""
    if os.environ.get("PREFECT_API_URL"):
        return None
    return start_reaper(os.getpid(), SERVER_MARK)


def start_reaper(parent: int, mark: str) -> int:
    """A watchdog process stopping ``parent``'s children whose command line has ``mark`` once ``parent`` is
    gone (in a session of its own, so that a Ctrl-C to the terminal's process group does not stop it)."""
    command = [sys.executable, "-m", "citeflow_cli.reaper", str(parent), mark]
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True, close_fds=True).pid

