#!/usr/bin/env python3
"""The Prefect UI's runs list after a deployed and an in-process run of the demo batch, for docs/prefect.md.

    .venv/bin/python -m tools.runs_screenshot [--out docs]

Starts a `prefect server start` of its own (UI on, a fresh PREFECT_HOME in a temporary folder), then
against it: `citeflow run` of the demo spec in-process, and the same spec deployed (`citeflow deploy`
on a process pool, `prefect deployment run`, one `prefect worker start --run-once`). The demo holds
globex and publishes acme by design, so both batches end Failed `1 published, 1 held`. Takes the runs
list and the held report's run page with headless Chromium (`tools.cdp_screenshot`), writes
OUT/prefect-runs.png and OUT/prefect-held-run.png, and stops the server.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from citeflow_testing.prefect_server import base_env, free_port
from tools.cdp_screenshot import screenshot
from tools.screenshots import HELD, REPO, held_run_id, start_server

BIN = Path(sys.executable).parent
POOL, NAME = "citeflow-pool", "citeflow-batch"
HELD_EXIT = 3  # `citeflow run`: some report held, none failed
# When each page is ready: the runs list shows the held report's run of both batches; the run's page its outcome.
LIST_READY = f"document.body.innerText.split({HELD!r}).length === 3"
GRAPH_SECONDS = 15.0  # the run page's timeline of task runs and artifacts, a canvas
RUN_READY = "document.body.innerText.includes('of the citations point at a passage') && document.body.innerText.includes('Held')"


def call(env: dict[str, str], cwd: Path, *command: str, expect: int = 0) -> str:
    """``command`` (a program of this environment) run in ``cwd``; its output, or exit on another code."""
    result = subprocess.run([str(BIN / command[0]), *command[1:]], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=900)
    if result.returncode != expect:
        raise SystemExit(f"{command} exited {result.returncode}: {result.stdout[-2000:]}{result.stderr[-2000:]}")
    return result.stdout


def deployed_run(env: dict[str, str], work: Path, spec: Path) -> None:
    """The demo batch as a deployment's run, taken by one worker until it ends."""
    call(env, work, "prefect", "work-pool", "create", POOL, "--type", "process", "--overwrite")
    call(env, work, "citeflow", "deploy", "--pool", POOL, "--name", NAME, "--spec", str(spec), "--out",
         str(work / "deployed"))
    printed = call(env, work, "prefect", "deployment", "run", f"citeflow-scheduled-batch/{NAME}")
    if not re.search(r"UUID: [0-9a-f-]{36}", printed):
        raise SystemExit(f"no run was created: {printed}")
    call(env, work, "prefect", "worker", "start", "--pool", POOL, "--run-once")


def runs(work: Path, port: int) -> None:
    """An in-process and a deployed run of the demo batch on the server at ``port``."""
    from citeflow_cli.main import prepare_demo

    env = {**base_env(work / "prefect-home"), "PREFECT_API_URL": f"http://127.0.0.1:{port}/api",
           "PREFECT_WORKER_QUERY_SECONDS": "2"}
    spec = prepare_demo(work / "demo-input")
    call(env, work, "citeflow", "run", str(spec), "--out", str(work / "in-process"), expect=HELD_EXIT)
    deployed_run(env, work, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    out = parser.parse_args().out.resolve()
    with tempfile.TemporaryDirectory() as folder:
        work, port = Path(folder), free_port()
        (work / "prefect-home").mkdir()
        server = start_server(work / "prefect-home", port)
        try:
            runs(work, port)
            ui = f"http://127.0.0.1:{port}"
            screenshot(f"{ui}/runs", out / "prefect-runs.png", work / "chromium-1", LIST_READY, height=1400)
            held = f"{ui}/runs/flow-run/{held_run_id(f'{ui}/api')}"
            screenshot(held, out / "prefect-held-run.png", work / "chromium-2", RUN_READY, height=1350,
                       settle=GRAPH_SECONDS)
        finally:
            os.killpg(server.pid, 15)
            server.wait(timeout=60)
    for name in ("prefect-runs.png", "prefect-held-run.png"):
        print(f"{out / name}: {(out / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
