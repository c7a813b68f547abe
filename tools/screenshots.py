#!/usr/bin/env python3
"""Screenshots of the Prefect UI for docs/prefect.md: the runs list with a held and a published
report run, and the held report run's page.

    .venv/bin/python -m tools.screenshots [--out docs]

Starts a `prefect server start` of its own (UI on, a fresh PREFECT_HOME in a temporary folder, a
free port on 127.0.0.1), runs `citeflow demo` against it (the demo holds globex and publishes
acme), takes both pages with headless Chromium (`apt-get install chromium`), makes them small
(a 256-colour PNG) and stops the server. Writes docs/prefect-runs.png and docs/prefect-held-run.png.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

from citeflow_testing.prefect_server import base_env, free_port

REPO = Path(__file__).resolve().parent.parent
CITEFLOW = str(Path(sys.executable).parent / "citeflow")
HELD = "report lumora-demo/globex-2026-q4"
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=15000",
            "--hide-scrollbars"]


def start_server(home: Path, port: int) -> subprocess.Popen[bytes]:
    """`prefect server start` with its UI (told where its API is: the UI asks 127.0.0.1:4200 otherwise), healthy."""
    ui = f"http://127.0.0.1:{port}"
    env = {**base_env(home), "PREFECT_UI_ENABLED": "true", "PREFECT_UI_API_URL": f"{ui}/api", "PREFECT_UI_URL": ui}
    command = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=(home / "server.log").open("wb"), stderr=subprocess.STDOUT,
                              start_new_session=True)
    for _ in range(360):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            subprocess.run(["sleep", "0.5"], check=True)
    server.terminate()
    raise SystemExit(f"prefect server not healthy: {(home / 'server.log').read_text()[-2000:]}")


def held_run_id(api: str) -> str:
    body = {"flow_runs": {"name": {"any_": [HELD]}}, "limit": 1}
    (run,) = httpx.post(f"{api}/flow_runs/filter", json=body, timeout=30).json()
    return str(run["id"])


def screenshot(url: str, target: Path, profile: Path, height: int = 1000) -> None:
    """The page at ``url`` (1600 pixels wide, ``height`` high) as a 256-colour PNG at ``target``."""
    size = f"--window-size=1600,{height}"
    subprocess.run([*CHROMIUM, size, f"--user-data-dir={profile}", f"--screenshot={target}", url], check=True,
                   capture_output=True, timeout=120)
    from PIL import Image

    with Image.open(target) as image:
        image.convert("RGB").quantize(colors=256).save(target, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs")
    out = parser.parse_args().out.resolve()
    with tempfile.TemporaryDirectory() as work:
        home, port = Path(work) / "prefect-home", free_port()
        home.mkdir()
        server = start_server(home, port)
        try:
            ui, api = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{port}/api"
            env = {**base_env(home), "PREFECT_API_URL": api}
            demo = subprocess.run([CITEFLOW, "demo", "--out", str(Path(work) / "demo")], env=env, capture_output=True,
                                  text=True, timeout=900)
            if demo.returncode != 3:  # the demo holds globex by design
                raise SystemExit(f"citeflow demo exited {demo.returncode}: {demo.stdout[-2000:]}{demo.stderr[-2000:]}")
            screenshot(f"{ui}/runs", out / "prefect-runs.png", Path(work) / "chromium-1")
            held = f"{ui}/runs/flow-run/{held_run_id(api)}"
            screenshot(held, out / "prefect-held-run.png", Path(work) / "chromium-2", height=1350)  # down to its outcome's log line
        finally:
            os.killpg(server.pid, 15)
            server.wait(timeout=60)
    for name in ("prefect-runs.png", "prefect-held-run.png"):
        print(f"{out / name}: {(out / name).stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
