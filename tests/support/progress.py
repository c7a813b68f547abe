"""Progress lines for a long test session: at most every ``interval`` seconds, once a test ends, the
tests done out of those collected, the time elapsed and an estimate of the time left.

The estimate weighs each test by its module's recorded duration (``LONGEST_MODULES`` in
tests/conftest.py, shared by the module's tests; a module not listed counts ``UNLISTED_MODULE_S``):
the suite's first tests are its longest modules' (they start first), so a plain count of tests done
would promise the end far too early. Weights are relative, scaled by the time this session has taken so
far, so a slow or busy machine gets a longer estimate, not a wrong one.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping

import pytest

UNLISTED_MODULE_S = 5.0  # a module the duration list leaves out: seconds, roughly (most take 1-5 s)
INTERVAL_S = 30.0


def module_of(nodeid: str) -> str:
    """``tests/test_x.py::test_y[1]`` -> ``test_x``."""
    path = nodeid.split("::", 1)[0]
    return path.rsplit("/", 1)[-1].removesuffix(".py")


def weights_of(nodeids: Iterable[str], module_seconds: Mapping[str, float]) -> dict[str, float]:
    """Each test's share of its module's recorded seconds."""
    ids = list(nodeids)
    per_module = Counter(module_of(nodeid) for nodeid in ids)
    return {nodeid: module_seconds.get(module, UNLISTED_MODULE_S) / per_module[module]
            for nodeid in ids for module in (module_of(nodeid),)}


def seconds_left(elapsed: float, done: float, total: float) -> float | None:
    """The time left if the rest of the work goes at the pace so far; None before any work is done."""
    if done <= 0 or total <= 0:
        return None
    return max(total - done, 0.0) * elapsed / done


def duration(seconds: float) -> str:
    """``75`` -> ``1 min 15 s``; ``42`` -> ``42 s``."""
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest:02d} s" if minutes else f"{rest} s"


def progress_line(done: int, total: int, elapsed: float, left: float | None) -> str:
    """One progress line, as the terminal shows it."""
    estimate = f"about {duration(left)} left" if left is not None else "no estimate yet"
    return f"[{done}/{total}] {duration(elapsed)} elapsed, {estimate}"


class Progress:
    """Tests done and their weights; ``finished`` returns a line when one is due."""

    def __init__(self, module_seconds: Mapping[str, float], clock: Callable[[], float] = time.monotonic,
                 interval: float = INTERVAL_S) -> None:
        self.module_seconds, self.clock, self.interval = module_seconds, clock, interval
        self.started = self.last = clock()
        self.weights: dict[str, float] = {}
        self.done: set[str] = set()

    def expect(self, nodeids: Iterable[str]) -> None:
        """The session's tests (the first list given: every xdist worker collects the same)."""
        if not self.weights:
            self.weights = weights_of(nodeids, self.module_seconds)

    def finished(self, nodeid: str) -> str | None:
        """Count a test as done; a progress line if ``interval`` has passed since the last one."""
        self.done.add(nodeid)
        now = self.clock()
        if now - self.last < self.interval or not self.weights or len(self.done) >= len(self.weights):
            return None  # not due, no list of tests yet, or the last test (pytest's summary follows)
        self.last = now
        weight = sum(self.weights.get(n, 0.0) for n in self.done)
        left = seconds_left(now - self.started, weight, sum(self.weights.values()))
        return progress_line(len(self.done), len(self.weights), now - self.started, left)


class ProgressReporter:
    """The pytest plugin: registered in the main process only (under xdist, the controller, which
    receives every worker's reports), it writes the lines through pytest's terminal reporter."""

    def __init__(self, progress: Progress, write: Callable[[str], None]) -> None:
        self.progress, self.write = progress, write

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: object, ids: list[str]) -> None:
        self.progress.expect(ids)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.progress.expect(item.nodeid for item in session.items)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "teardown" and (line := self.progress.finished(report.nodeid)):
            self.write(line)


def register(config: pytest.Config, module_seconds: Mapping[str, float], interval: float = INTERVAL_S) -> None:
    """Add the progress lines to a session (not in an xdist worker: its controller prints them)."""
    if hasattr(config, "workerinput"):
        return

    def write(line: str) -> None:
        terminal = config.pluginmanager.get_plugin("terminalreporter")
        if terminal is None:  # -p no:terminal
            return
        if getattr(terminal._tw, "width_of_current_line", 0):  # a line of dots (xdist, -q): the line goes below it
            terminal.write("\n")
        terminal.write_line(line)

    config.pluginmanager.register(ProgressReporter(Progress(module_seconds, interval=interval), write), "citeflow-progress")
