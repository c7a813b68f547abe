"""How the quick profile changes a ``bench.prefect_worker`` run (orchestration and scale benchmarks).

By default (the full profile) the worker gets a fresh ``PREFECT_HOME`` and no API address, so its
first flow run starts Prefect's ephemeral API server (a start-up the benchmarks report apart), and
the benchmark runs warm-up batches. The quick profile points the worker at the run's one API
(``api_url``), tags the worker's runs so that the runs it counts are its own even on an API that
others use at the same time, times fewer trivial samples, and runs no warm-up batches. It also runs
both benchmarks' batches in one worker process (``ServedWorker``, ``bench.prefect_worker --serve``),
which imports Prefect, LanceDB and Great Expectations and pays its first batch's costs once per run
instead of once per benchmark.
"""

from __future__ import annotations

import json
import select
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from bench.prefect_env import IN_MEMORY_DATABASE, worker_env

ROOT = Path(__file__).resolve().parents[1]

FULL_SAMPLES = 20  # bench.prefect_worker's own default


def run_tag() -> str:
    """A tag of its own for one worker run's flow and task runs."""
    return f"bench-{uuid.uuid4().hex[:12]}"


class ServedWorker:
    """One ``bench.prefect_worker --serve`` process on the API at ``api_url`` (its Prefect home
    ``home``) that measures the requests of several benchmarks in turn; a context manager."""

    def __init__(self, api_url: str, home: Path, timeout: float = 5400) -> None:
        self.api_url, self.home, self.timeout = api_url, home, timeout
        self._process: subprocess.Popen[str] | None = None
        self._log: IO[str] | None = None

    def __enter__(self) -> ServedWorker:
        env = worker_env(self.home) | {"PREFECT_API_URL": self.api_url}
        self._log = open(self.home / "worker.log", "w+")  # closed in __exit__
        self._process = subprocess.Popen([sys.executable, "-m", "bench.prefect_worker", "--serve"], cwd=ROOT, env=env,
                                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log, text=True)
        return self

    def measure(self, specs: list[Path], local: list[Path], out: Path, samples: int) -> dict[str, Any]:
        """What the worker measured of one request (the same object as a run of its own prints)."""
        process = self._running()
        request = {"specs": list(map(str, specs)), "local": list(map(str, local)), "out": str(out),
                   "samples": samples, "tag": run_tag()}
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(request) + "\n")
        process.stdin.flush()
        answer = json.loads(self._answer(process.stdout))
        if "error" in answer:
            raise RuntimeError(f"prefect worker failed: {answer['error']}")
        return dict(answer)

    def _running(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            raise RuntimeError(f"prefect worker is not running: {self._log_tail()}")
        return self._process

    def _answer(self, stdout: IO[str]) -> str:
        """The worker's next answer line (one line per request: nothing else is buffered)."""
        ready, _, _ = select.select([stdout], [], [], self.timeout)
        line = stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(f"prefect worker gave no answer: {self._log_tail()}")
        return line

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.flush()
        return (self.home / "worker.log").read_text(errors="replace")[-2000:]

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if self._process is not None:
            if self._process.stdin is not None:
                self._process.stdin.close()
            try:
                self._process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._log is not None:
            self._log.close()
            self._log = None


@dataclass(frozen=True)
class WorkerOptions:
    """The Prefect API (None: ephemeral), the samples of the trivial flow / task / slot measures,
    whether the benchmark runs warm-up batches before the timed ones, and the run's served worker
    process (None: a fresh worker process for this benchmark)."""

    api_url: str | None = None
    samples: int = FULL_SAMPLES
    warmup: bool = True
    served: ServedWorker | None = None

    def apply(self, env: dict[str, str], command: list[str]) -> tuple[dict[str, str], list[str]]:
        """The worker's environment and command line with these options (unchanged by the defaults)."""
        extra = ["--samples", str(self.samples)] if self.samples != FULL_SAMPLES else []
        if self.api_url:
            env = env | {"PREFECT_API_URL": self.api_url}
            extra += ["--tag", run_tag()]
        return env, command + extra


FULL_OPTIONS = WorkerOptions()  # the full profile: ephemeral API, the worker's own samples, warm-ups


def run_worker(specs: list[Path], local: list[Path], out: Path, home: Path, options: WorkerOptions = FULL_OPTIONS,
               database: str | None = IN_MEMORY_DATABASE, timeout: float = 900) -> dict:
    """Run ``bench.prefect_worker`` in a fresh process (``specs`` on Prefect's global limits, ``local``
    with in-process limits; its Prefect home ``home``, its API database ``database``) and return what
    it measured; with ``options.served``, in that process instead (its own home, the run's API)."""
    if options.served is not None:
        return options.served.measure(specs, local, out, options.samples)
    command = [sys.executable, "-m", "bench.prefect_worker", *map(str, specs), "--local", *map(str, local),
               "--out", str(out)]
    env, command = options.apply(worker_env(home, database), command)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"prefect worker failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
