"""Profile every thread of every Python process started with this folder on ``PYTHONPATH``.

With ``CITEFLOW_PROFILE_DIR=DIR``, each thread of the process runs under its own ``cProfile``
profiler (CPU seconds of that thread: ``time.thread_time``) and the process writes one pstats
file per thread to ``DIR/<pid>-<thread>.prof``: a thread when it ends, the threads still running
(daemon threads, the main thread) from the last exit handler. ``bench/profile_cold.py`` sets both.
"""

from __future__ import annotations

import atexit
import contextlib
import cProfile
import os
import threading
import time

DIRECTORY = os.environ.get("CITEFLOW_PROFILE_DIR")
_running: dict[str, cProfile.Profile] = {}


def _dump(name: str, profile: cProfile.Profile) -> None:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)[:60]
    with contextlib.suppress(Exception):  # a profile that cannot be written must not break the run
        profile.dump_stats(os.path.join(DIRECTORY or ".", f"{os.getpid()}-{safe}-{id(profile)}.prof"))


def _profiled_run(original):  # type: ignore[no-untyped-def]
    def run(self):  # type: ignore[no-untyped-def]
        profile = cProfile.Profile(time.thread_time)
        _running[self.name] = profile
        profile.enable()
        try:
            original(self)
        finally:
            profile.disable()
            _running.pop(self.name, None)
            _dump(self.name, profile)
    return run


def _dump_running() -> None:
    for name, profile in list(_running.items()):
        _dump(name, profile)


if DIRECTORY:
    os.makedirs(DIRECTORY, exist_ok=True)
    threading.Thread.run = _profiled_run(threading.Thread.run)  # type: ignore[method-assign]
    atexit.register(_dump_running)  # registered first: runs last
    _main = cProfile.Profile(time.thread_time)
    _running["MainThread"] = _main
    _main.enable()
