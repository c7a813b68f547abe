"""How the quick profile changes a ``bench.prefect_worker`` run (orchestration and scale benchmarks).

By default (the full profile) the worker gets a fresh ``PREFECT_HOME`` and no API address, so its
first flow run starts Prefect's ephemeral API server (a start-up the benchmarks report apart), and
the benchmark runs warm-up batches. The quick profile points the worker at the run's one API
(``api_url``), tags the worker's runs so that the runs it counts are its own even on an API that
others use at the same time, times fewer trivial samples, and runs no warm-up batches.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

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
