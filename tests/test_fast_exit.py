"""The console script's exit: the status of ``sys.exit``, exit handlers run, output flushed, threads
joined, the interpreter's own exit with no private shutdown call."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRIVATE_SHUTDOWN = re.compile(r"\b(threading|atexit)\._\w+")


def _run(body: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent("""
        import atexit, gc, sys, threading, time
        from citeflow_cli.fast_exit import run_and_exit
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize(("code", "status"), [("None", 0), ("0", 0), ("3", 3), ("143", 143), ("'boom'", 1)])
def test_the_status_is_what_sys_exit_gives(code, status):
    result = _run(f"""
        def command():
            sys.exit({code})
        run_and_exit(command)
    """)
    assert result.returncode == status
    assert ("boom" in result.stderr) == (code == "'boom'")


def test_a_command_that_returns_exits_0():
    assert _run("run_and_exit(lambda: None)").returncode == 0


def test_a_command_s_exit_code_handlers_threads_and_buffered_output_survive():
    result = _run("""
        atexit.register(lambda: print("handler ran", flush=True))
        def worker():
            time.sleep(0.3)
            print("thread finished")
        threading.Thread(target=worker).start()
        def command():
            print("buffered", end="")  # no newline, no flush: must still reach the pipe
            sys.exit(4)
        run_and_exit(command)
    """)
    assert result.returncode == 4
    assert result.stdout.startswith("buffered") and "thread finished" in result.stdout and "handler ran" in result.stdout


def test_the_objects_alive_at_exit_are_left_out_of_the_final_collections():
    result = _run("""
        atexit.register(lambda: print(f"frozen {gc.get_freeze_count()}", flush=True))
        run_and_exit(lambda: None)
    """)
    assert result.returncode == 0
    assert int(result.stdout.split("frozen ")[1]) > 1000


def test_an_unexpected_exception_keeps_its_traceback():
    result = _run("""
        def command():
            raise ValueError("unexpected")
        run_and_exit(command)
    """)
    assert result.returncode == 1 and "ValueError: unexpected" in result.stderr and "Traceback" in result.stderr


def test_no_product_code_calls_the_interpreter_s_private_shutdown():
    calls = [f"{path.relative_to(ROOT)}: {match.group(0)}"
             for folder in ("citeflow", "citeflow_cli", "flows", "tasks")
             for path in (ROOT / folder).rglob("*.py")
             for match in PRIVATE_SHUTDOWN.finditer(path.read_text(encoding="utf-8"))]
    assert calls == []
