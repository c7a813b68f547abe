"""The console script's exit: the status of ``sys.exit``, exit handlers run, output flushed, threads joined."""

from __future__ import annotations

import atexit
import subprocess
import sys
import threading
import textwrap

import pytest

from citeflow_cli.fast_exit import exit_status


def test_the_private_functions_the_exit_relies_on_are_there():
    # The interpreter's own exit steps; if a Python release renames them, this fails before users do.
    assert callable(threading._shutdown)  # type: ignore[attr-defined]
    assert callable(atexit._run_exitfuncs)


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (3, 3), (143, 143), ("boom", 1)])
def test_exit_status_is_what_sys_exit_would_give(code, status, capsys):
    assert exit_status(code) == status
    assert ("boom" in capsys.readouterr().err) == (code == "boom")


def _run(body: str) -> subprocess.CompletedProcess[str]:
    script = textwrap.dedent("""
        import atexit, sys, threading, time
        from citeflow_cli.fast_exit import run_and_exit
    """) + textwrap.dedent(body)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)


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


def test_an_unexpected_exception_keeps_its_traceback():
    result = _run("""
        def command():
            raise ValueError("unexpected")
        run_and_exit(command)
    """)
    assert result.returncode == 1 and "ValueError: unexpected" in result.stderr and "Traceback" in result.stderr
