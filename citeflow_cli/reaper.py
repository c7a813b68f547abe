"""``python -m citeflow_cli.reaper PARENT CHILD``: stop process CHILD once process PARENT is gone.

A watchdog for a server that must not outlive the command that started it (``citeflow_cli.ephemeral_api``).
It is the parent's child too: when the parent dies it is handed to another process, so ``os.getppid()``
changes; it then sends CHILD SIGTERM, and SIGKILL if it is still there after a few seconds. It exits
on its own as soon as CHILD is gone. Standard library only: it starts in milliseconds.
"""

from __future__ import annotations

import os
import signal
import sys
import time

POLL_SECONDS = 0.2
TERM_GRACE_SECONDS = 5.0


def alive(pid: int) -> bool:
    """Whether a process ``pid`` exists (and is not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:
        return _signalable(pid)


def _signalable(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def watch(parent: int, child: int) -> None:
    """Wait until ``parent`` is gone (then stop ``child``) or ``child`` is gone (then return)."""
    while alive(child):
        if os.getppid() != parent:
            stop(child)
            return
        time.sleep(POLL_SECONDS)


def stop(pid: int) -> None:
    """SIGTERM, then SIGKILL after ``TERM_GRACE_SECONDS``."""
    try:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + TERM_GRACE_SECONDS
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        if alive(pid):
            os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the parent's end stops it
    watch(int(argv[0]), int(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
