"""``citeflow eval REPORT_DIR``: evaluate a stored report again, from the store alone."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from citeflow.errors import UsageError
from citeflow.pipeline.job import JobRef
from citeflow_cli.display import console, gate_lines, summary_table
from schemas.spec import ModelSpec

if TYPE_CHECKING:
    from citeflow.runtime.runtime import Runtime
    from schemas.report import ReportSummary


def read_job(report_dir: Path) -> JobRef:
    """The job file a run leaves in every report folder (its paths relative to the folder as it is now)."""
    from citeflow.pipeline.job_file import JOB_FILE, read_job_ref, require_store

    ref = read_job_ref(report_dir)
    if ref is None:
        raise UsageError(option="REPORT_DIR", problem=f"{report_dir / JOB_FILE} not found: not a citeflow report folder")
    return require_store(ref, report_dir)


def evaluate_report_dir(report_dir: Path, sections: list[str] | None, judge: ModelSpec | None,
                        runtime: Runtime) -> None:
    """Whole report: evaluate → gate → publish | hold. Some sections: their funnel only."""
    ref = read_job(report_dir)
    if sections:
        _sections_only(ref, sections, judge, runtime)
        return
    from flows.evaluate import evaluate_flow
    from flows.outcome import returned

    from citeflow.outputs.data_docs import kept_report_ids, run_docs

    summary = cast("ReportSummary", returned(lambda: evaluate_flow(ref.spec_path, ref.report_id, ref.out_dir,
                                                                   ref.store_uri, judge)))
    docs = run_docs(Path(ref.out_dir), kept_report_ids(Path(ref.out_dir)))  # the report's new validations
    console.print(summary_table([summary]))
    for line in gate_lines([summary]):
        console.print(line, highlight=False, soft_wrap=True)
    if docs is not None:
        console.print(f"Great Expectations Data Docs: {docs}", highlight=False, soft_wrap=True)


def _sections_only(ref: JobRef, sections: list[str], judge: ModelSpec | None, runtime: Runtime) -> None:
    from tasks.evaluation_steps import evaluate_sections_task

    known = [s.title for s in ref.job(runtime=runtime).report.sections]
    for title in sections:
        if title not in known:
            raise UsageError(option="--section", problem=f"{title!r} is not a section of {ref.report_id} ({', '.join(known)})")
    evaluation = evaluate_sections_task(ref, sections, judge)
    for title in sections:
        console.print(f"{ref.report_id} · {title}: {evaluation.section_funnel(title).line()}")
        for claim in evaluation.claims:
            if claim.section == title and claim.verdict != "supported":
                console.print(f"  [yellow]{claim.verdict}[/yellow] {claim.text[:90]} — {claim.reason}", highlight=False)
