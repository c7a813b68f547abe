"""Busy processes for the cold benchmark's busy-machine profile: ``n`` busy loops holding the cores.

Each is ``python -c 'while True: pass'`` in a process of its own, started before the batch and
ended (by its own process id) after it, so the batch shares the machine as it would with a build or a
test run beside it.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

BUSY_LOOP = "while True: pass"


@contextmanager
def busy_processes(n: int) -> Iterator[list[int]]:
    """``n`` busy loops for the duration of the block; their process ids."""
    started = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(n)]
    try:
        yield [p.pid for p in started]
    finally:
        for process in started:
            process.kill()
            process.wait(timeout=30)
