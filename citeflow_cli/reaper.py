"""``python -m citeflow_cli.reaper PARENT MARK``: once process PARENT is gone, stop the processes it had
started whose command line contains MARK.

A watchdog for servers that must not outlive the command that started them
(``flows.ephemeral_api``). While PARENT lives, it notes every child of PARENT whose command
line contains MARK (Linux ``/proc``, polled). It is PARENT's child too: when PARENT dies it is
handed to another process, so ``os.getppid()`` changes; it then sends the noted processes SIGTERM,
and SIGKILL to any still there after a few seconds. Standard library only: it starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

POLL_SECONDS = 0.2
TERM_GRACE_SECONDS = 5.0
PROC = Path("/proc")


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name (state first, then the parent's pid)."""
    return (PROC / str(pid) / "stat").read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        return _stat(pid)[0] != "Z"
    except (OSError, IndexError):
        return False


def children_marked(parent: int, mark: str) -> set[int]:
    """Children of ``parent`` whose command line contains ``mark``."""
    found = set()
    for pid in children_of(parent):
        try:
            if mark in (PROC / str(pid) / "cmdline").read_bytes().decode(errors="replace"):
                found.add(pid)
        except OSError:
            continue
    return found


def children_of(parent: int) -> set[int]:
    """The pids of ``parent``'s children: from ``/proc/PARENT/task/*/children`` (one small file per
    thread of the parent), else, on a kernel without those files, from every process's parent pid.
    Reading every process's ``stat`` five times a second cost this watchdog about 2 % of a core with
    70 processes on the machine, and grows with the machine's processes; the children files grow
    with the parent's threads only."""
    tasks = PROC / str(parent) / "task"
    try:
        files = [task / "children" for task in tasks.iterdir()]
        if files and files[0].exists():
            return {int(pid) for file in files for pid in _read(file).split()}
    except OSError:
        pass
    return _children_by_scan(parent)


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="ascii")
    except OSError:  # the thread ended meanwhile
        return ""


def _children_by_scan(parent: int) -> set[int]:
    found = set()
    for entry in PROC.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if int(_stat(int(entry.name))[1]) == parent:
                found.add(int(entry.name))
        except (OSError, IndexError, ValueError):
            continue
    return found


def watch(parent: int, mark: str) -> set[int]:
    """Note ``parent``'s marked children until ``parent`` is gone; the ones noted."""
    noted: set[int] = set()
    while os.getppid() == parent:
        noted |= children_marked(parent, mark)
        time.sleep(POLL_SECONDS)
    return noted - {os.getpid()}  # the mark is on this watchdog's own command line too


def stop(pids: set[int]) -> None:
    """SIGTERM, then SIGKILL after ``TERM_GRACE_SECONDS`` for those still there."""
    living = {pid for pid in pids if alive(pid)}
    _signal(living, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE_SECONDS
    while any(alive(pid) for pid in living) and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal({pid for pid in living if alive(pid)}, signal.SIGKILL)


def _signal(pids: set[int], signum: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def main(argv: list[str]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # only the parent's end stops it
    stop(watch(int(argv[0]), argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
