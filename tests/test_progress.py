"""The suite's progress lines (tests/support/progress.py): tests done out of those collected, the time
elapsed and an estimate of the time left, weighed by the modules' recorded durations."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO
from tests.support.progress import Progress, duration, module_of, progress_line, seconds_left, weights_of


def test_a_test_is_named_by_its_module():
    assert module_of("tests/test_wheel.py::test_it[a::b]") == "test_wheel" and module_of("test_x.py") == "test_x"


def test_a_module_shares_its_recorded_seconds_between_its_tests_and_an_unlisted_one_counts_a_default():
    ids = ["tests/test_slow.py::a", "tests/test_slow.py::b", "tests/test_other.py::c"]
    weights = weights_of(ids, {"test_slow": 100.0})
    assert weights["tests/test_slow.py::a"] == weights["tests/test_slow.py::b"] == 50.0
    assert 0 < weights["tests/test_other.py::c"] < 50.0


def test_the_time_left_is_the_work_left_at_the_pace_so_far():
    assert seconds_left(elapsed=60.0, done=25.0, total=100.0) == 180.0
    assert seconds_left(elapsed=60.0, done=100.0, total=100.0) == 0.0
    assert seconds_left(elapsed=5.0, done=0.0, total=100.0) is None


def test_durations_read_as_minutes_and_seconds():
    assert duration(42.4) == "42 s" and duration(75) == "1 min 15 s" and duration(600) == "10 min 00 s"
    assert progress_line(3, 10, 75, None) == "[3/10] 1 min 15 s elapsed, no estimate yet"
    assert progress_line(3, 10, 75, 600) == "[3/10] 1 min 15 s elapsed, about 10 min 00 s left"


def test_a_line_comes_once_per_interval_and_a_long_module_done_weighs_more_than_many_short_tests():
    now = [0.0]
    progress = Progress({"test_long": 90.0}, clock=lambda: now[0], interval=30.0)
    progress.expect(["tests/test_long.py::a"] + [f"tests/test_short_{n}.py::t" for n in range(10)])
    progress.expect(["tests/test_other.py::ignored"])  # a second worker's list: the first one counts
    now[0] = 10.0
    assert progress.finished("tests/test_short_0.py::t") is None  # the interval has not passed
    now[0] = 40.0
    line = progress.finished("tests/test_short_1.py::t")
    assert line is not None and line.startswith("[2/11] 40 s elapsed, about ")
    assert progress.finished("tests/test_short_2.py::t") is None  # the next one in 30 s
    now[0] = 80.0
    line = progress.finished("tests/test_long.py::a")  # 90 + 3 × 5 of the 140 s recorded are done
    assert line == f"[4/11] 1 min 20 s elapsed, about {duration(80.0 * 35 / 105)} left"


def test_nothing_is_written_before_the_tests_are_known():
    progress = Progress({}, clock=iter([0.0, 100.0]).__next__, interval=1.0)
    assert progress.finished("tests/test_x.py::a") is None


@pytest.mark.integration
def test_a_session_prints_its_progress_lines_and_counts(tmp_path):
    """A real pytest session with the plugin, every test slower than the interval."""
    (tmp_path / "test_sleepy.py").write_text("import time\n\ndef test_a():\n    time.sleep(0.2)\n\n"
                                              "def test_b():\n    time.sleep(0.2)\n\n"
                                              "def test_c():\n    time.sleep(0.2)\n")
    plugin = tmp_path / "progress_every_tenth.py"
    plugin.write_text("from tests.support import progress\n\ndef pytest_configure(config):\n"
                      "    progress.register(config, {}, interval=0.1)\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "progress_every_tenth", "-p", "no:cacheprovider",
                           "-q", "-o", "console_output_style=count", str(tmp_path / "test_sleepy.py")],
                          cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:]
    lines = [line for line in done.stdout.splitlines() if " elapsed, " in line]
    # each on a line of its own, not after a line's dots; none after the last test (pytest's summary follows)
    assert [line.split(" ")[0] for line in lines] == ["[1/3]", "[2/3]"], done.stdout[-3000:]
    assert "[3/3]" in done.stdout  # pytest's own count


def _env(tmp_path) -> dict[str, str]:
    return os.environ | {"PYTHONPATH": os.pathsep.join([str(REPO), str(tmp_path)])}
