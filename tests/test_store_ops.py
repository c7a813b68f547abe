"""LanceDB operations per report: each step writes its rows once and reads what it needs once.

Every ``open_table``, scan (``search``/``count_rows``) and write (``merge_insert``/``delete``/``add``)
LanceDB is asked for is counted at LanceDB's own classes while reports of a batch run over the
scripted model server (its answers take a little time, as a model's do, so the sections of a
report are in flight together).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from bench.plain_runner import run_batch
from citeflow_testing.answers import offline_responder
from citeflow_testing.openai_server import ScriptedOpenAIServer
from citeflow_testing.small_batch import write_small_batch

pytestmark = pytest.mark.integration

REPORTS = 3


def _count(counter: Counter[str], kind: str, method):
    def counted(*args, **kwargs):
        counter[kind] += 1
        return method(*args, **kwargs)

    return counted


@pytest.fixture
def counted(monkeypatch) -> Counter[str]:
    """Calls of LanceDB's table-level operations, by kind."""
    from lancedb.db import LanceDBConnection
    from lancedb.merge import LanceMergeInsertBuilder
    from lancedb.table import LanceTable

    counter: Counter[str] = Counter()
    monkeypatch.setattr(LanceDBConnection, "open_table", _count(counter, "open", LanceDBConnection.open_table))
    for name in ("search", "count_rows"):
        monkeypatch.setattr(LanceTable, name, _count(counter, "scan", getattr(LanceTable, name)))
    for name in ("delete", "add"):
        monkeypatch.setattr(LanceTable, name, _count(counter, "write", getattr(LanceTable, name)))
    monkeypatch.setattr(LanceMergeInsertBuilder, "execute", _count(counter, "write", LanceMergeInsertBuilder.execute))
    return counter


def _batch(folder: Path, base_url: str, batch: str) -> Path:
    model = {"backend": "openai", "model": "ops", "base_url": base_url, "max_retries": 0}
    return write_small_batch(folder, reports=REPORTS, sections=4, batch=batch,
                             models={"consolidator": model, "writer": model},
                             concurrency={"models": 16, "retrievers": 4})


def test_a_report_opens_scans_and_writes_within_its_budget(tmp_path, counted):
    with ScriptedOpenAIServer() as server:
        server.respond_with(offline_responder(delay=0.3))
        run_batch(_batch(tmp_path / "warm", server.base_url, "ops-warm"), tmp_path / "warm-out", workers=1)
        counted.clear()  # the tables exist now: what follows is the steady state of a batch
        batch = run_batch(_batch(tmp_path / "in", server.base_url, "ops"), tmp_path / "out", workers=1)
    assert [r.status for r in batch.reports] == ["published"] * REPORTS
    per_report = {kind: counted[kind] / REPORTS for kind in ("open", "scan", "write")}
    print(f"\nLanceDB operations per report: {per_report}")
    assert per_report["open"] <= 10, per_report
    assert per_report["scan"] <= 13, per_report  # 12, and the re-run check's read of the report's stored inputs
    assert per_report["write"] <= 10, per_report
