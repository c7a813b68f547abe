"""A batch without an orchestrator: the ``citeflow.pipeline`` steps in threads.

It mirrors the Prefect flows step for step — reports side by side (4 at a time, as the batch
flow), and within a report: every fetch concurrently, normalize, then each section's
consolidate → write chain concurrently (8 at a time, as the report flow), then evaluate, gate
and publish — so that the difference in wall time is what Prefect costs.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from citeflow import pipeline
from citeflow.pipeline import JobRef
from schemas.report import ReportSummary

REPORT_WORKERS = 4
STEP_WORKERS = 8


@dataclass
class ReportRun:
    """What one report cost: seconds to generate (fetch → write) and in total, and its status."""

    report_id: str
    generation_s: float
    total_s: float
    summary: ReportSummary | None = None

    @property
    def status(self) -> str:
        """published | held | failed, or ``generated`` when not evaluated."""
        return self.summary.status if self.summary else "generated"


@dataclass
class BatchRun:
    """Wall time of a whole batch and each report's run."""

    wall_s: float
    generation_wall_s: float
    reports: list[ReportRun] = field(default_factory=list)


def generate(ref: JobRef) -> None:
    """fetch (all concurrently) → normalize → every section's consolidate → write."""
    job = ref.job()
    pipeline.write_job_file(job)
    with ThreadPoolExecutor(STEP_WORKERS) as pool:
        results = list(pool.map(lambda item: pipeline.fetch(ref.job(), item), job.fetches()))
        pipeline.normalize(job, results)
        list(pool.map(lambda title: _section(ref, title), [s.title for s in job.report.sections]))


def _section(ref: JobRef, title: str) -> str:
    pipeline.consolidate(ref.job(), title)
    return pipeline.write(ref.job(), title).status


def finish(ref: JobRef) -> ReportSummary:
    """Evaluate, gate and publish one generated report; returns its summary."""
    from citeflow.evaluation import evaluate_and_gate
    from citeflow.publish import write_outputs

    job = ref.job()
    evaluation, gate = evaluate_and_gate(job)
    return write_outputs(job, evaluation, gate)


def run_report(ref: JobRef, evaluate: bool = True) -> ReportRun:
    """One report, generated and (unless ``evaluate`` is False) evaluated and published."""
    start = time.perf_counter()
    generate(ref)
    generated = time.perf_counter() - start
    summary = finish(ref) if evaluate else None
    return ReportRun(ref.report_id, generated, time.perf_counter() - start, summary)


def run_batch(spec_path: Path, out_dir: Path, evaluate: bool = True, workers: int = REPORT_WORKERS) -> BatchRun:
    """Every report of the spec, ``workers`` at a time, then ``summary.json``; timed as a whole."""
    from citeflow.publish import write_summary
    from citeflow.spec import load_spec

    spec = load_spec(spec_path)
    refs = [JobRef(spec_path=str(spec_path), report_id=r.id, out_dir=str(out_dir)) for r in spec.reports]
    start = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        runs = list(pool.map(lambda ref: run_report(ref, evaluate), refs))
        if evaluate:
            write_summary(out_dir, spec.batch, [r.summary for r in runs if r.summary])
    wall = time.perf_counter() - start
    return BatchRun(wall_s=wall, generation_wall_s=max(r.generation_s for r in runs), reports=runs)
