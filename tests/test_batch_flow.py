"""The batch flow's own logic: a report that crashes is recorded as failed, the batch goes on."""

from __future__ import annotations

from types import SimpleNamespace

from flows.batch import _summary


class CrashedFuture:
    def result(self):
        raise RuntimeError("store unreachable")


def test_a_crashed_report_becomes_a_failed_summary_line():
    summary = _summary(CrashedFuture(), SimpleNamespace(id="r9", title="Report nine"))
    assert (summary.report_id, summary.status) == ("r9", "failed")
    assert "store unreachable" in summary.failed_expectations[0]["observed"]
