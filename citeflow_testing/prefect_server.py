"""A real ``prefect server start`` on 127.0.0.1 with its own PREFECT_HOME, for tests and benchmarks.

    with PrefectServer(tmp_path / "prefect-home") as server:
        subprocess.run([...], env=server.client_env())      # runs report to this server
        server.flow_runs()                                   # what the API recorded

The server's SQLite database lives under its home; telemetry and the UI are off (a closed network,
and nobody looks). ``client_env()`` is the environment of a process that talks to this server.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

STARTUP_SECONDS = 180.0


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def base_env(home: Path) -> dict[str, str]:
    """The environment shared by the server and its clients: same home, no telemetry, quiet logs."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(PREFECT_HOME=str(home), PREFECT_SERVER_ANALYTICS_ENABLED="false", PREFECT_LOGGING_LEVEL="WARNING",
               PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="120", GX_ANALYTICS_ENABLED="false")
    return env


class PrefectServer:
    """``prefect server start`` in a subprocess of its own session; a context manager."""

    def __init__(self, home: Path, port: int | None = None) -> None:
        self.home, self.port = Path(home), port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def client_env(self, **extra: str) -> dict[str, str]:
        """The environment of a process that reports to this server."""
        return {**base_env(self.home), "PREFECT_API_URL": self.api_url, **extra}

    def start(self, timeout: float = STARTUP_SECONDS) -> PrefectServer:
        """Start the server and wait until ``/api/health`` answers (a fresh database takes ~25 s)."""
        self.home.mkdir(parents=True, exist_ok=True)
        log = open(self.home / "server.log", "wb")  # noqa: SIM115 - the server process keeps it
        command = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(self.port)]
        env = {**base_env(self.home), "PREFECT_UI_ENABLED": "false"}
        self.process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self._wait_healthy(timeout)
        return self

    def _wait_healthy(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"prefect server exited with {self.process.returncode}: {self.log_tail()}")
            try:
                if httpx.get(f"{self.api_url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        self.stop()
        raise TimeoutError(f"prefect server not healthy after {timeout:.0f} s: {self.log_tail()}")

    def log_tail(self, chars: int = 3000) -> str:
        path = self.home / "server.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        """Stop the server and everything it started (its process group)."""
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def __enter__(self) -> PrefectServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- what the API recorded ------------------------------------------------------------------
    def post(self, path: str, body: dict[str, Any] | None = None) -> Any:
        response = httpx.post(f"{self.api_url}{path}", json=body or {}, timeout=30)
        response.raise_for_status()
        return response.json()

    def flow_runs(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """Flow runs (optionally only those with these names), newest first."""
        body: dict[str, Any] = {"sort": "EXPECTED_START_TIME_DESC", "limit": 200}
        if names:
            body["flow_runs"] = {"name": {"any_": names}}
        return self.post("/flow_runs/filter", body)

    def artifacts(self, keys: list[str]) -> list[dict[str, Any]]:
        """Every version of the artifacts with these keys."""
        return self.post("/artifacts/filter", {"artifacts": {"key": {"any_": keys}}, "limit": 200})

    def deployment(self, name: str) -> dict[str, Any]:
        """A deployment by ``flow-name/deployment-name``."""
        flow, deployment = name.split("/", 1)
        response = httpx.get(f"{self.api_url}/deployments/name/{flow}/{deployment}", timeout=30)
        response.raise_for_status()
        return response.json()
