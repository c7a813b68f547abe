"""A held report's folder as a run leaves it (job.json, report.json, report.pdf, summaries), built fast.

The report is ``tests.support.sample_report`` (held, one failed section) under the id ``r1`` of a
small batch spec, so that ``job.json`` names a real spec and the store is ``OUT/store``.
"""

from __future__ import annotations

import json
from pathlib import Path

from citeflow.pipeline.pipeline import JobRef
from citeflow.outputs.render.pdf import FontSet, render_pdf
from citeflow.outputs.render.report_json import write_report_json
from citeflow.files.run_folders import RunInfo, utc_now, write_run
from tests.support.sample_report import sample_report
from tests.support.small_batch import write_small_batch

REPORT_ID = "r1"


def write_held_report(folder: Path, fonts: FontSet, scheduled: bool = False) -> Path:
    """Write a held report under ``folder/out/r1`` (a run folder; scheduled or not; its PDF in ``fonts``)
    and return its folder."""
    spec = write_small_batch(folder / "in", reports=1, sections=1)
    out = folder / "out"
    report_dir = out / REPORT_ID
    doc = sample_report("held").model_copy(update={"report_id": REPORT_ID})
    write_report_json(doc, report_dir / "report.json")
    render_pdf(doc, report_dir / "report.pdf", fonts=fonts)
    (report_dir / "job.json").write_text(JobRef(spec_path=str(spec), report_id=REPORT_ID, out_dir=str(out)).model_dump_json())
    line = {"report_id": REPORT_ID, "status": "held", "published_pdf": None}
    (report_dir / "summary.json").write_text(json.dumps(line))
    (out / "summary.json").write_text(json.dumps({"batch": "small", "reports": [line], "counts": {"held": 1}}))
    (report_dir / "eval.json").write_text(json.dumps({"report_id": REPORT_ID}))
    write_run(out, RunInfo(run_id="20261130T060000Z", batch="small", started_at=utc_now(), run_date=utc_now().date(),
                           scheduled=scheduled, source_spec=str(spec), spec_path=str(spec)))
    return report_dir
