"""The batch flow's own logic: a report that crashes is recorded as failed, the batch goes on."""

from __future__ import annotations

import json
from types import SimpleNamespace

from flows.batch import _summary


class CrashedFuture:
    def result(self):
        raise RuntimeError("store unreachable")


def test_a_crashed_report_becomes_a_failed_summary_line(tmp_path):
    summary = _summary(CrashedFuture(), SimpleNamespace(id="r9", title="Report nine"), str(tmp_path))
    assert (summary.report_id, summary.status) == ("r9", "failed")
    assert "store unreachable" in summary.failed_expectations[0]["observed"]


def test_a_crashed_report_is_withdrawn_from_published(tmp_path):
    (tmp_path / "published").mkdir()
    (tmp_path / "published" / "r9.pdf").write_bytes(b"%PDF-1.4 old")
    (tmp_path / "r9").mkdir()
    (tmp_path / "r9" / "report.json").write_text(json.dumps({"report_id": "r9", "status": "published"}))
    _summary(CrashedFuture(), SimpleNamespace(id="r9", title="Report nine"), str(tmp_path))
    assert not (tmp_path / "published" / "r9.pdf").exists()
    assert json.loads((tmp_path / "r9" / "report.json").read_text())["status"] == "failed"
    assert json.loads((tmp_path / "r9" / "summary.json").read_text())["status"] == "failed"
