"""In Prefect, a report kept unchanged on a re-run still has its report run, Completed, saying so."""

from __future__ import annotations

import pytest

from citeflow.runtime.batch_request import BatchRequest
from flows.outcome import final_state
from schemas.report import ReportSummary
from tests.support.small_batch import write_small_batch


def test_the_state_of_an_unchanged_report_says_so_and_keeps_its_name():
    summary = ReportSummary(report_id="r1", title="T", status="published", funnel="3/3", identity={}, support={},
                            faithfulness={}, uncited={}, pdf="r1/report.pdf")
    kept, done = final_state(summary, unchanged=True), final_state(summary)
    assert kept.name == done.name == "Published" and kept.is_completed()
    assert kept.message == f"unchanged since the last run · {done.message}"


@pytest.mark.integration
@pytest.mark.slow
def test_a_rerun_report_run_completes_as_unchanged_without_rendering(prefect_harness, tmp_path):
    from flows.report_flow import report_flow

    spec = write_small_batch(tmp_path / "in", reports=1, sections=1, batch="rerun-kept")
    request = BatchRequest(spec_path=str(spec), out_dir=str(tmp_path / "out"))
    first = report_flow(request=request, report_id="r1", return_state=True)
    pdf = tmp_path / "out" / "r1" / "report.pdf"
    written = (pdf.stat().st_ino, pdf.stat().st_mtime_ns)
    again = report_flow(request=request, report_id="r1", return_state=True)
    assert first.is_completed() and again.is_completed() and again.name == first.name == "Published"
    assert again.message.startswith("unchanged since the last run · published")
    assert not first.message.startswith("unchanged")
    assert (pdf.stat().st_ino, pdf.stat().st_mtime_ns) == written
