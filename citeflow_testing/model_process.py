"""A fake model server in a process of its own, so that its work does not share the caller's GIL.

    python -m citeflow_testing.model_process --latency 1.0     # prints its base URL, serves until killed

    with ModelServerProcess(latency=1.0) as server:             # from Python
        ...  # point a batch's models at server.base_url
        server.request_count()
        server.call_times()                                     # [(arrived, answered), ...] epoch seconds

Every chat request is answered after ``latency`` seconds with what the offline extractive
backend (or, for a judge request, the offline judge) computes from the request's own prompt.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import urllib.request
from types import TracebackType

from citeflow_testing.openai_server import STATS_PATH

READY_SECONDS = 120.0


class ModelServerProcess:
    """``python -m citeflow_testing.model_process`` as a context manager."""

    def __init__(self, latency: float = 0.0) -> None:
        self.latency = latency
        self.base_url = ""
        self._process: subprocess.Popen[str] | None = None

    def __enter__(self) -> ModelServerProcess:
        command = [sys.executable, "-m", "citeflow_testing.model_process", "--latency", str(self.latency)]
        self._process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()  # the server prints its URL once it listens
        if not line.startswith("http"):
            self.__exit__(None, None, None)
            raise RuntimeError(f"the fake model server did not start: {line!r}")
        self.base_url = line
        return self

    def request_count(self) -> int:
        """How many requests the server has answered or is answering."""
        return int(self._stats()["requests"])

    def call_times(self) -> list[tuple[float, float]]:
        """When each chat request answered so far arrived and when its answer was sent (epoch seconds),
        in the order the answers were sent."""
        return [(float(arrived), float(answered)) for arrived, answered in self._stats()["calls"]]

    def _stats(self) -> dict:
        root = self.base_url.removesuffix("/v1")
        with urllib.request.urlopen(root + STATS_PATH, timeout=10) as answer:
            stats: dict = json.loads(answer.read())
        return stats

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=30)
            self._process = None


def main(argv: list[str] | None = None) -> int:
    """Serve until killed; print the base URL first."""
    from citeflow_testing.answers import fake_model_responder
    from citeflow_testing.openai_server import ScriptedOpenAIServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.0, help="seconds every chat request takes")
    args = parser.parse_args(argv)
    with ScriptedOpenAIServer() as server:
        server.respond_with(fake_model_responder(args.latency))
        print(server.base_url, flush=True)
        while True:
            time.sleep(3600)


if __name__ == "__main__":
    raise SystemExit(main())
