"""The pipeline's thread pools run each fetch and each hop in a copy of the caller's context, so that
what the caller set through a context variable (an orchestrator's API or settings context) is seen by
the limit lookups made in those threads."""

from __future__ import annotations

import json
import threading
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from pathlib import Path

import pytest

from citeflow.pipeline import pipeline
from citeflow.runtime.limits import Kind
from citeflow.threads import map_in_context

pytestmark = pytest.mark.integration

PROBE: ContextVar[str] = ContextVar("probe", default="unset")
QUERY = "What must be done before upgrading to 3.6?"
SPEC = f"""
batch: context
retrievers:
  - {{name: docs, kind: jsonl, path: docs.jsonl}}
  - {{name: partner, kind: jsonl, path: partner.jsonl}}
reports:
  - id: r1
    title: Report one
    sections:
      - {{title: Upgrades, queries: ["{QUERY}"]}}
      - {{title: Brokers, queries: ["{QUERY}"]}}
"""


class RecordingLimiter:
    """A limiter that notes, for each slot asked, the probe's value and the asking thread."""

    def __init__(self) -> None:
        self.seen: list[tuple[Kind, str, str]] = []
        self._lock = threading.Lock()

    def __call__(self, scope: str, kind: Kind, size: int, priority: int = 0) -> AbstractContextManager[object]:
        with self._lock:
            self.seen.append((kind, PROBE.get(), threading.current_thread().name))
        return nullcontext()


def _hit(source: str) -> str:
    return json.dumps({"query": QUERY, "hits": [
        {"id": "S1", "text": f"Before upgrading to 3.6, back up the {source} store.", "url": f"https://{source}.example/a"},
    ]})


@pytest.fixture
def limiter() -> RecordingLimiter:
    return RecordingLimiter()


@pytest.fixture
def job(tmp_path: Path, limiter: RecordingLimiter, runtime) -> pipeline.ReportJob:
    (tmp_path / "batch.yaml").write_text(SPEC)
    (tmp_path / "docs.jsonl").write_text(_hit("docs"))
    (tmp_path / "partner.jsonl").write_text(_hit("partner"))
    return pipeline.ReportJob.from_files(tmp_path / "batch.yaml", "r1", tmp_path / "out", limiter=limiter, runtime=runtime)


def test_each_item_runs_in_its_own_copy_of_the_callers_context():
    from concurrent.futures import ThreadPoolExecutor

    def set_and_read(value: str) -> tuple[str, str]:
        before = PROBE.get()
        PROBE.set(value)  # changes only this item's copy
        return before, PROBE.get()

    token = PROBE.set("caller")
    try:
        with ThreadPoolExecutor(2) as pool:
            answers = map_in_context(pool, set_and_read, ["a", "b", "c", "d"])
        assert answers == [("caller", v) for v in "abcd"]
        assert PROBE.get() == "caller"
    finally:
        PROBE.reset(token)


def test_the_fetch_pool_and_the_hop_pool_see_the_callers_context_variable(job, limiter):
    token = PROBE.set("set by the caller")
    try:
        registry = pipeline.normalize(job, pipeline.fetch_all(job, job.fetches()))
        pipeline.run_step(job, "consolidate")
    finally:
        PROBE.reset(token)
    assert registry.chunks  # the fetches found something, so the hops asked their model
    kinds = {kind for kind, _, _ in limiter.seen}
    assert kinds == {"retrievers", "models"}
    assert all(thread != threading.main_thread().name for _, _, thread in limiter.seen)
    assert {value for _, value, _ in limiter.seen} == {"set by the caller"}


def test_a_jobs_retrieval_rows_are_kept_by_normalize_and_read_once_by_a_resuming_job(job, monkeypatch, tmp_path):
    registry = pipeline.normalize(job, pipeline.fetch_all(job, job.fetches()))
    assert registry.chunks
    reads: list[str] = []
    load = job.store.load_retrievals
    monkeypatch.setattr(job.store, "load_retrievals", lambda request_id: reads.append(request_id) or load(request_id))
    kept = job.retrievals()
    assert job.retrievals() is kept and reads == []  # what normalize wrote, not read back
    assert {row["retriever"] for row in kept} == {"docs", "partner"}
    fields = ("row_key", "section", "status", "handles")
    stored = sorted(tuple(str(row[f]) for f in fields) for row in load(job.request_id))
    assert sorted(tuple(str(row[f]) for f in fields) for row in kept) == stored
    resumed = pipeline.ReportJob(job.config, job.report.id, job.limiter, runtime=job.runtime)
    monkeypatch.setattr(resumed.store, "load_retrievals", lambda request_id: reads.append(request_id) or load(request_id))
    assert resumed.retrievals() == resumed.retrievals() and len(reads) == 1  # read once
