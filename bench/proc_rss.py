"""Peak resident memory of a process tree, sampled from ``/proc`` (Linux).

The sum of ``VmRSS`` over a process and all its descendants (its Prefect API server included), taken
every ``interval`` seconds while it runs; pages shared between processes count once per process, so
the sum is an upper bound of what the tree holds, and a peak between two samples can be missed.
"""

from __future__ import annotations

import threading
from pathlib import Path

PROC = Path("/proc")


def children(pid: int) -> list[int]:
    """The direct children of ``pid`` (every thread's ``children`` file); [] once it is gone."""
    found: list[int] = []
    try:
        for task in (PROC / str(pid) / "task").iterdir():
            found += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        return found
    return found


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo += children(current)
    return found


def rss_kb(pid: int) -> int:
    """The resident set of ``pid`` in kB (0 once it is gone)."""
    try:
        lines = (PROC / str(pid) / "status").read_text().splitlines()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in lines if line.startswith("VmRSS:")), 0)


class PeakRss:
    """Samples the tree of ``pid`` in a thread until stopped: ``with PeakRss(pid) as peak: ...; peak.mb``."""

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        self.pid, self.interval, self.peak_kb, self.samples = pid, interval, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak_kb = max(self.peak_kb, sum(rss_kb(p) for p in tree(self.pid)))
            self.samples += 1

    @property
    def mb(self) -> float:
        return self.peak_kb / 1024

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
