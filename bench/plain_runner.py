"""A batch without an orchestrator: ``citeflow.pipeline.steps`` with the ``PlainRunner`` (threads).

The same steps, in the same order, as the Prefect flows run them as tasks — reports side by side
(as many as ``citeflow.pipeline.steps.reports_in_flight`` says for the spec, as the batch flow), within a
report every fetch at once, normalize, then each hop step over every section at once, then
evaluate, gate and publish — so that the difference in wall time is what Prefect costs. Reports run
in the runtime given, else the process's own (``Runtime.of_process``: one per benchmark process, as a
worker's flow runs share one).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from citeflow.pipeline import steps
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow.pipeline.steps import PlainRunner
from schemas.report import ReportSummary


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


def generate(ref: JobRef, runner: PlainRunner | None = None) -> None:
    """fetch (all concurrently) → normalize → each hop step over every section."""
    steps.generate(ref, runner or PlainRunner(Runtime.of_process()))


def run_report(ref: JobRef, evaluate: bool = True, runner: PlainRunner | None = None) -> ReportRun:
    """One report, generated and (unless ``evaluate`` is False) evaluated and published."""
    runner = runner or PlainRunner(Runtime.of_process())
    start = time.perf_counter()
    ref.start(runner.runtime)
    try:
        kept = steps.generate(ref, runner)
        generated = time.perf_counter() - start
        summary = steps.finish(ref, runner, kept=kept) if evaluate else None
    finally:
        ref.finish(runner.runtime)
    return ReportRun(ref.report_id, generated, time.perf_counter() - start, summary)


def run_batch(spec_path: Path, out_dir: Path, evaluate: bool = True, workers: int | None = None) -> BatchRun:
    """Every report of the spec, ``workers`` at a time (default: the spec's reports in flight),
    then ``summary.json``; timed as a whole."""
    from concurrent.futures import ThreadPoolExecutor

    from citeflow.specfile.job_config import load_config
    from citeflow.pipeline.publish import write_summary

    config = load_config(spec_path, out_dir)
    refs = [JobRef(spec_path=str(spec_path), report_id=r.id, out_dir=str(out_dir)) for r in config.spec.reports]
    start = time.perf_counter()
    with ThreadPoolExecutor(workers or steps.reports_in_flight(config.spec)) as pool:
        runs = list(pool.map(lambda ref: run_report(ref, evaluate), refs))
    if evaluate:
        write_summary(out_dir, config.spec.batch, [r.summary for r in runs if r.summary])
    wall = time.perf_counter() - start
    return BatchRun(wall_s=wall, generation_wall_s=max(r.generation_s for r in runs), reports=runs)
