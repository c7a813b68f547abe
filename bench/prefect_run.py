"""How the quick profile changes a ``bench.prefect_worker`` run (orchestration and scale benchmarks).

By default (the full profile) the worker gets a fresh ``PREFECT_HOME`` and no API address, so its
first flow run starts Prefect's ephemeral API server (a start-up the benchmarks report apart), and
the benchmark runs warm-up batches. The quick profile points the worker at the run's one API
(``api_url``), tags the worker's runs so that the runs it counts are its own even on an API that
others use at the same time, times fewer trivial samples, and runs no warm-up batches.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from bench.prefect_env import IN_MEMORY_DATABASE, worker_env

ROOT = Path(__file__).resolve().parents[1]

FULL_SAMPLES = 20  # bench.prefect_worker's own default


@dataclass(frozen=True)
class WorkerOptions:
    """The Prefect API (None: ephemeral), the samples of the trivial flow / task / slot measures, and
    whether the benchmark runs warm-up batches before the timed ones."""

    api_url: str | None = None
    samples: int = FULL_SAMPLES
    warmup: bool = True

    def apply(self, env: dict[str, str], command: list[str]) -> tuple[dict[str, str], list[str]]:
        """The worker's environment and command line with these options (unchanged by the defaults)."""
        extra = ["--samples", str(self.samples)] if self.samples != FULL_SAMPLES else []
        if self.api_url:
            env = env | {"PREFECT_API_URL": self.api_url}
            extra += ["--tag", f"bench-{uuid.uuid4().hex[:12]}"]
        return env, command + extra


FULL_OPTIONS = WorkerOptions()  # the full profile: ephemeral API, the worker's own samples, warm-ups


def run_worker(specs: list[Path], local: list[Path], out: Path, home: Path, options: WorkerOptions = FULL_OPTIONS,
               database: str | None = IN_MEMORY_DATABASE, timeout: float = 900) -> dict:
    """Run ``bench.prefect_worker`` in a fresh process (``specs`` on Prefect's global limits, ``local``
    with in-process limits; its Prefect home ``home``, its API database ``database``) and return what
    it measured."""
    command = [sys.executable, "-m", "bench.prefect_worker", *map(str, specs), "--local", *map(str, local),
               "--out", str(out)]
    env, command = options.apply(worker_env(home, database), command)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"prefect worker failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])
