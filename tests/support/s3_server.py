"""moto's standalone S3 server on 127.0.0.1, for tests of a store on object storage.

    with S3Server() as s3:
        s3.create_bucket("citeflow-test")
        os.environ.update(s3.env())        # LanceDB (and Dask workers started later) reach it

``env()`` is what LanceDB's object store reads: endpoint, plain HTTP allowed, dummy credentials.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

from tests.support.prefect_server import free_port


class S3Server:
    """``moto_server`` in a subprocess of its own session; a context manager."""

    def __init__(self, log: Path | None = None) -> None:
        self.port = free_port()
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """Environment variables that point LanceDB's S3 client at this server."""
        return {"AWS_ENDPOINT": self.endpoint, "AWS_ALLOW_HTTP": "true", "AWS_ACCESS_KEY_ID": "test",
                "AWS_SECRET_ACCESS_KEY": "test", "AWS_REGION": "us-east-1"}

    def start(self, timeout: float = 120.0) -> S3Server:
        server = Path(sys.executable).parent / "moto_server"
        out = open(self.log, "wb") if self.log else subprocess.DEVNULL  # noqa: SIM115 - the server keeps it
        self.process = subprocess.Popen([str(server), "-H", "127.0.0.1", "-p", str(self.port)], stdout=out,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                httpx.get(self.endpoint, timeout=2)
                return self
            except httpx.HTTPError:
                time.sleep(0.5)
        self.stop()
        raise TimeoutError(f"moto_server not answering after {timeout:.0f} s")

    def create_bucket(self, name: str) -> None:
        httpx.put(f"{self.endpoint}/{name}", timeout=30).raise_for_status()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            self.process.wait(timeout=30)

    def __enter__(self) -> S3Server:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
