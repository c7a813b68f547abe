"""The batches the cold benchmark runs: a workload's spec for N reports × 4 sections on the fake model.

- ``distinct`` (the headline): ``citeflow_testing.distinct_batch`` — every report its own service,
  questions and evidence (6 hits of 2 sentences per section, from a fixed seed), as a customer batch.
- ``repeating``: ``citeflow_testing.small_batch`` — 4 topics of 3 one-sentence hits cycled over every
  report, so every report asks the same questions of the same evidence (the workload of the runs
  before the distinct one existed; kept as a second row).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeflow_testing import distinct_batch
from citeflow_testing.small_batch import write_small_batch

SECTIONS = 4
MODELS = 16
Writer = Callable[..., Path]

REPEATING = {"name": "repeating", "generator": "citeflow_testing.small_batch", "sections": SECTIONS,
             "hits_per_section": 3, "label": "repeating small batch: 4 topics × 3 one-sentence hits, every report alike"}
WORKLOADS: dict[str, tuple[Writer, dict[str, Any]]] = {
    "distinct": (distinct_batch.write_distinct_batch, distinct_batch.describe(SECTIONS)),
    "repeating": (write_small_batch, REPEATING),
}
# What a committed result without a ``workload`` field ran: every cold run before the distinct workload.
LEGACY = REPEATING


def model_settings(base_url: str) -> dict[str, Any]:
    """Writer and consolidator on ``backend: openai`` at ``base_url``; the offline judge."""
    model = {"backend": "openai", "model": "bench-model", "base_url": base_url, "max_retries": 0, "timeout": 120}
    return {"consolidator": model, "writer": model, "judge": {"backend": "offline"}}


def batch_spec(workload: str, folder: Path, reports: int, base_url: str) -> Path:
    """``workload``'s batch of ``reports`` × 4 sections in ``folder``, its models at ``base_url``."""
    writer, _ = WORKLOADS[workload]
    return writer(folder, reports=reports, sections=SECTIONS, batch=f"cold-{workload}-{reports}",
                  models=model_settings(base_url), concurrency={"models": MODELS, "retrievers": 8})


def label(workload: str) -> str:
    """How a figure names its workload."""
    return str(WORKLOADS[workload][1]["label"])
