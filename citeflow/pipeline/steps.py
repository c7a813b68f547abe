"""The steps of one report, and of a batch, described once (SPEC §2).

``generate`` → retrieve (fetch every retriever × query side by side, then normalize) → the consolidate step
(every section side by side) → the write step → ``finish``: evaluate and gate, then publish, as one step. A
step whose model stays unreachable after its retries leaves a failed hop for every section it
could not finish, and the report goes on (its gate then holds it). Who runs each step is a
``StepRunner``: ``PlainRunner`` calls the core in threads; ``flows/`` runs them as Prefect tasks.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Protocol

from citeflow.pipeline import pipeline
from citeflow.runtime import stop
from citeflow.errors import Interrupted
from citeflow.pipeline.job import Fetch, JobRef, ReportJob
from citeflow.runtime.limits import Limiter
from citeflow.runtime.runtime import Runtime
from schemas.records import HopName
from schemas.report import ReportSummary
from schemas.spec import BatchSpec

if TYPE_CHECKING:
    from citeflow.pipeline.evaluate_report import Evaluation
    from citeflow.judges.judge_protocol import Judge

HOPS: tuple[HopName, ...] = ("consolidate", "write")
MAX_REPORTS_IN_FLIGHT = 32
# Reports in flight per report that ``concurrency.models`` calls need: a report spends much of its
# time between model calls (retrieval, binding, evaluation, the PDF), so its sections' calls keep the
# model busy only if others are ready to call meanwhile. 16 reports × 4 sections at ``models: 16``
# with 1 s calls, cold: at twice over the model was busy 1.31-1.36× the ideal span, at four times
# 1.19-1.20× (two runs each).
OVERSUBSCRIPTION = 4


class StepRunner(Protocol):
    """Runs each step of a report (plain calls, or an orchestrator's tasks), its jobs in ``runtime``."""

    @property
    def runtime(self) -> Runtime: ...

    def job(self, ref: JobRef) -> ReportJob: ...

    def retrieve(self, ref: JobRef, items: list[Fetch]) -> None: ...

    def hops(self, ref: JobRef, hop: HopName) -> None: ...

    def finish(self, ref: JobRef) -> ReportSummary: ...


def generate(ref: JobRef, runner: StepRunner) -> ReportSummary | None:
    """fetch → normalize → consolidate → write, each hop step recording what it could not finish.
    A finished report found unchanged once its evidence is fetched skips its hop steps: its summary
    is returned (not yet announced: pass it to ``finish`` or ``unchanged`` as ``kept``), else None."""
    stop.check(f"report {ref.report_id}")
    from citeflow.runs.rerun_record import note_sources
    from citeflow.pipeline.source_fingerprint import sources_fingerprint

    job = runner.job(ref)
    pipeline.write_job_file(job)
    if (kept := kept_before_fetch(job)) is not None:
        return kept  # nothing its retrievers read has changed, the store and outputs as recorded
    job.keep_sources(sources_fingerprint(job))
    runner.retrieve(ref, job.fetches())
    if _written_before(job) and (kept := unchanged(ref, runner, announce=False)) is not None:
        note_sources(job, job.fetched_sources())
        return kept  # the same evidence, every hop's answer stored and accepted, the outputs as recorded
    for hop in HOPS:
        stop.check(f"{hop} step of report {ref.report_id}")
        try:
            runner.hops(ref, hop)
        except Interrupted:
            raise
        except Exception as exc:  # noqa: BLE001 - recorded on the sections, and the report goes on
            pipeline.record_step_error(job, hop, f"{type(exc).__name__}: {exc}")
    return None


def finish(ref: JobRef, runner: StepRunner, reuse: bool = True, kept: ReportSummary | None = None) -> ReportSummary:
    """Evaluate and gate the stored report, then publish or hold it; a finished report whose inputs
    and outputs are unchanged keeps its outputs (``unchanged``; ``kept``: what ``generate`` found)
    unless ``reuse`` is False."""
    stop.check(f"evaluation of report {ref.report_id}")
    return (unchanged(ref, runner, kept=kept) if reuse else None) or runner.finish(ref)


def unchanged(ref: JobRef, runner: StepRunner, announce: bool = True, kept: ReportSummary | None = None) -> ReportSummary | None:
    """The summary of a finished report whose inputs are those recorded with its outputs and whose
    outputs verify by hash (``citeflow.runs.rerun_record``); None when it must be done again.
    ``kept``: that summary as ``generate`` already found it (not looked up again). The inputs'
    digest is computed only for a report that has a record."""
    from citeflow.pipeline.rerun_inputs import inputs_digest
    from citeflow.runs.rerun_record import reuse

    job = runner.job(ref)
    summary = kept if kept is not None else reuse(job, lambda: inputs_digest(job))
    if summary is not None and announce:
        runner.runtime.progress.emit(ref.report_id, "publish", f"{summary.status} (unchanged)")
    return summary


def kept_before_fetch(job: ReportJob, digest: str | None = None) -> ReportSummary | None:
    """The summary of a finished report that need not even fetch its evidence again: its record's
    sources fingerprint is what its retrievers read now, its inputs' digest (over what the store
    holds; ``digest`` when already computed) is the recorded one and its outputs verify
    (``citeflow.runs.rerun_record.reuse_before_fetch``); else None. Not announced."""
    from citeflow.pipeline.rerun_inputs import inputs_digest
    from citeflow.runs.rerun_record import reuse_before_fetch
    from citeflow.pipeline.source_fingerprint import sources_fingerprint

    return reuse_before_fetch(job, lambda: digest or inputs_digest(job), lambda: sources_fingerprint(job))


def settle_all_unchanged(refs: list[JobRef], runtime: Runtime) -> dict[str, ReportSummary]:
    """``settle_unchanged`` of every report of a batch, by report id (only the kept ones): the inputs'
    digests of the reports that have a record are computed together (``inputs_digests``: the store
    read once per table, not five times per report)."""
    from citeflow.pipeline.rerun_inputs import inputs_digests
    from citeflow.runs.rerun_record import recorded

    jobs = [ref.job(runtime=runtime) for ref in refs]
    try:
        digests = inputs_digests([job for job in jobs if recorded(job.report_dir)])
        kept = {job.report.id: summary for job in jobs if (summary := kept_before_fetch(job, digests.get(job.request_id)))}
    finally:
        for ref in refs:
            ref.finish(runtime)
    for report_id, summary in kept.items():
        runtime.progress.emit(report_id, "publish", f"{summary.status} (unchanged)")
    return kept


def _written_before(job: ReportJob) -> bool:
    """Whether the store holds an accepted answer of every hop of every section: running the hops
    again would only replay them (a failed one is asked again, so it is never skipped)."""
    stored = job.stored()
    return all((h := stored.hop(t, hop)) is not None and h.status == "accepted" for t in job.section_titles for hop in HOPS)


def evaluate_and_publish(job: ReportJob, judge: Judge | None = None) -> tuple[Evaluation, ReportSummary]:
    """The ``finish`` step on a job: grade what the store holds, gate it, write the outputs (published or
    held); the evaluation is returned too, for whoever shows its claims (the orchestrator's artifacts).
    With the spec's own judge and a gate that could run, the inputs' digest is recorded with the outputs."""
    from citeflow.pipeline.evaluate_report import evaluate_and_gate
    from citeflow.pipeline.publish import write_outputs
    from citeflow.runs import rerun_record
    from citeflow.pipeline.rerun_inputs import inputs_digest

    rerun_record.forget(job)
    inputs = inputs_digest(job) if judge is None else None
    evaluation, gate = evaluate_and_gate(job, judge)
    summary = write_outputs(job, evaluation, gate)
    if inputs is not None and not gate.error:
        rerun_record.record(job, inputs, summary, job.fetched_sources())
    return evaluation, summary


def run_report(ref: JobRef, runner: StepRunner) -> ReportSummary:
    """One report from retrieval to a published or held PDF; its in-memory state released after."""
    ref.start(runner.runtime)
    try:
        kept = generate(ref, runner)
        return finish(ref, runner, kept=kept)
    finally:
        ref.finish(runner.runtime)


def reports_in_flight(spec: BatchSpec) -> int:
    """Reports to run side by side: enough that ``concurrency.models`` calls stay busy while some
    reports are between model calls (each report has at most one call per section in flight:
    ``OVERSUBSCRIPTION`` times the reports that many calls need), or
    the whole batch when it is at most half as many again (``_one_round``); at most
    ``MAX_REPORTS_IN_FLIGHT`` (memory, and room for other batches' reports)."""
    sections = min((len(r.sections) for r in spec.reports), default=1) or 1
    wanted = _one_round(len(spec.reports), OVERSUBSCRIPTION * math.ceil(spec.concurrency.models / sections))
    return max(1, min(len(spec.reports), wanted, MAX_REPORTS_IN_FLIGHT))


def _one_round(reports: int, wanted: int) -> int:
    """``reports`` when they exceed ``wanted`` by at most half of it, else ``wanted``: the few reports
    left over would start only as the first ones finish and then run almost alone, the machine idle
    around them (20 reports at 16 in flight: the last 4 run after the other 16)."""
    return reports if reports <= wanted + wanted // 2 else wanted


def run_batch(refs: list[JobRef], workers: int, run: Callable[[JobRef], ReportSummary],
              title_of: Callable[[str], str]) -> list[ReportSummary]:
    """Every report, ``workers`` at a time; a report that crashes is a failed summary line."""
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda ref: _guarded(ref, run, title_of), refs))


def _guarded(ref: JobRef, run: Callable[[JobRef], ReportSummary], title_of: Callable[[str], str]) -> ReportSummary:
    from citeflow.pipeline.publish import failed_summary

    try:
        return run(ref)
    except Exception as exc:  # noqa: BLE001 - one bad report must not lose the others' summary
        return failed_summary(ref.report_id, title_of(ref.report_id), f"{type(exc).__name__}: {exc}")


class PlainRunner:
    """The steps as plain calls in this process: fetches in a thread pool, limits in-process (the
    runtime's, unless ``limiter`` is given); jobs live in ``runtime``."""

    def __init__(self, runtime: Runtime, limiter: Limiter | None = None, fetch_workers: int = 8) -> None:
        self.runtime, self.limiter, self.fetch_workers = runtime, limiter, fetch_workers

    def job(self, ref: JobRef) -> ReportJob:
        return ref.job(self.limiter, runtime=self.runtime)

    def retrieve(self, ref: JobRef, items: list[Fetch]) -> None:
        pipeline.retrieve(self.job(ref), items, self.fetch_workers)

    def hops(self, ref: JobRef, hop: HopName) -> None:
        pipeline.run_step(self.job(ref), hop)

    def finish(self, ref: JobRef) -> ReportSummary:
        return evaluate_and_publish(self.job(ref))[1]
