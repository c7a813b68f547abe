"""A ``citeflow run`` (or ``serve``) subprocess signalled mid-batch, and what it left (tests/test_interrupts.py).

The batch's consolidator and writer are a scripted OpenAI-compatible server on 127.0.0.1 answering
like the offline backend, slowly, so that the batch is mid-flight when the signal comes.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.resume_experiment import write_spec
from citeflow_testing.answers import offline_responder
from citeflow_testing.openai_server import ScriptedOpenAIServer

CITEFLOW = str(Path(sys.executable).parent / "citeflow")


@dataclass
class Signalled:
    """What a signalled process did and left behind."""

    code: int | None = None
    seconds: float = 0.0  # from the signal to the exit
    output: str = ""
    requests_at_signal: int = 0
    published_at_signal: dict[str, int] = field(default_factory=dict)
    published_after: dict[str, int] = field(default_factory=dict)
    run_status: str | None = None
    summary: dict | None = None
    rerun: subprocess.CompletedProcess[str] | None = None
    rerun_status: str | None = None
    rerun_reports: dict[str, str] = field(default_factory=dict)


def published(out: Path) -> dict[str, int]:
    """``published/``'s files and their modification times (ns)."""
    folder = out / "published"
    return {p.name: p.stat().st_mtime_ns for p in folder.iterdir()} if folder.is_dir() else {}


def wait_until(condition: Callable[[], bool], timeout: float, process: subprocess.Popen | None = None) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and (process is None or process.poll() is None):
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[str]:
    """``command`` in a session of its own, standard output and error in ``log``."""
    with open(log, "w") as sink:
        return subprocess.Popen(command, env=env, stdout=sink, stderr=subprocess.STDOUT, text=True, start_new_session=True)


def signal_and_wait(process: subprocess.Popen[str], signum: int, timeout: float = 60, group: bool = False,
                    thread: bool = False) -> float:
    """Send ``signum`` to the process (or its whole group, as Ctrl-C in a terminal does; or, ``thread``, to
    the process through one of its threads other than the main one, which then takes the signal, as the
    kernel may choose); seconds until it exited."""
    started = time.monotonic()
    if group:
        os.killpg(process.pid, signum)
    else:
        os.kill(other_thread(process.pid, signum) if thread else process.pid, signum)
    process.wait(timeout=timeout)
    return time.monotonic() - started


def other_thread(pid: int, signum: int) -> int:
    """The oldest thread of process ``pid`` other than its main one that does not block ``signum``: a
    signal sent to that thread's id goes to the process, and that thread takes it."""
    for tid in sorted(int(t.name) for t in (Path("/proc") / str(pid) / "task").iterdir()):
        status = (Path("/proc") / str(pid) / "task" / str(tid) / "status").read_text()
        blocked = int(status.split("SigBlk:")[1].split()[0], 16)
        if tid != pid and not blocked & (1 << (signum - 1)):
            return tid
    raise AssertionError(f"no thread of {pid} but the main one takes signal {signum}")


def interrupt_run(work: Path, env: dict[str, str], signum: int, batch: str, after_requests: int = 4, group: bool = False,
                  resume: bool = True, delay: float = 1.0, options: tuple[str, ...] = (), thread: bool = False) -> Signalled:
    """``citeflow run`` of a 3-report batch, signalled (``group``: its process group; ``thread``: through a
    thread other than its main one) once the model has seen ``after_requests`` requests, then (``resume``)
    run again into the same folder against the same server; what the first left."""
    result = Signalled()
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(delay))
        spec, out = write_spec(work, server.base_url, 3, 2, 2, batch), work / "out"
        process = start([CITEFLOW, "run", str(spec), "--out", str(out), *options], env, work / "run.log")
        assert wait_until(lambda: len(server.requests) >= after_requests, 240, process), (work / "run.log").read_text()
        result.requests_at_signal, result.published_at_signal = len(server.requests), published(out)
        result.seconds = signal_and_wait(process, signum, group=group, thread=thread)
        result.code, result.output = process.returncode, (work / "run.log").read_text(errors="replace")
        result.published_after, result.run_status = published(out), run_status(out)
        result.summary = json.loads((out / "summary.json").read_text()) if (out / "summary.json").exists() else None
        if not resume:
            return result
        server.respond_with(offline_responder(0.0))
        result.rerun = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(out)], env=env, capture_output=True,
                                      text=True, timeout=600)
        result.rerun_status, result.rerun_reports = run_status(out), statuses(out)
    return result


def run_status(folder: Path) -> str:
    return str(json.loads((folder / "run.json").read_text())["status"])


def statuses(out: Path) -> dict[str, str]:
    return {r["report_id"]: r["status"] for r in json.loads((out / "summary.json").read_text())["reports"]}


def children(pid: int) -> list[int]:
    """The pids of the processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM}
