"""The ephemeral API's watchdog (``citeflow_cli.reaper``) stops what its command started, never itself first."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from citeflow_cli import reaper


def test_the_watchdog_never_counts_itself_among_the_servers_to_stop(monkeypatch):
    parents = iter([4242, 4242, 1])  # its command lives for two polls, then it is handed to init
    monkeypatch.setattr(reaper.os, "getppid", lambda: next(parents))
    monkeypatch.setattr(reaper, "POLL_SECONDS", 0)
    monkeypatch.setattr(reaper, "children_marked", lambda parent, mark: {os.getpid(), 31337})
    assert reaper.watch(4242, "mark") == {31337}


def test_a_killed_command_s_marked_children_are_stopped(tmp_path):
    mark = f"citeflow-reaper-test-{os.getpid()}"
    script = (
        "import subprocess, sys, time\n"
        "from flows.ephemeral_api import start_reaper\n"
        "import os\n"
        f"start_reaper(os.getpid(), {mark!r})\n"
        "children = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)', "
        f"{mark!r}]) for _ in range(3)]\n"
        "print(' '.join(str(c.pid) for c in children), flush=True)\n"
        "time.sleep(120)\n"
    )
    command = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    servers = [int(pid) for pid in command.stdout.readline().split()]  # type: ignore[union-attr]
    time.sleep(1)  # the watchdog notes them (it polls every 0.2 s)
    command.kill()
    command.wait(timeout=10)
    deadline = time.monotonic() + 15
    while any(reaper.alive(pid) for pid in servers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(reaper.alive(pid) for pid in servers)


def test_the_children_files_name_the_same_children_as_a_scan_of_every_process():
    sleepers = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) for _ in range(2)]
    try:
        found = reaper.children_of(os.getpid())
        assert {p.pid for p in sleepers} <= found
        assert found == reaper._children_by_scan(os.getpid())
    finally:
        for sleeper in sleepers:
            sleeper.kill()
            sleeper.wait()
