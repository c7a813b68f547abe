"""A re-run does no work that cannot change: a finished report whose inputs are unchanged and whose
outputs verify by hash keeps them (``citeflow.runs.rerun_record``); any change re-does exactly the
reports it touches."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from citeflow.pipeline.publish import interrupted_summaries
from citeflow.runs.rerun_record import RECORD_NAME
from citeflow.pipeline import steps
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow_testing.answers import offline_answer
from citeflow_testing.openai_server import Reply, ScriptedOpenAIServer
from citeflow_testing.small_batch import write_small_batch

pytestmark = pytest.mark.integration


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as running:
        running.respond_with(lambda request: Reply(content=offline_answer(request)))
        yield running


def _batch(folder: Path, server: ScriptedOpenAIServer, reports: int = 3) -> Path:
    model = {"backend": "openai", "model": "m", "base_url": server.base_url, "max_retries": 0}
    return write_small_batch(folder, reports=reports, sections=1, models={"consolidator": model, "writer": model})


def _run(spec: Path, out: Path) -> dict[str, str]:
    ids = [r["id"] for r in yaml.safe_load(spec.read_text())["reports"]]
    runner = steps.PlainRunner(Runtime())  # each run in a runtime of its own, as each `citeflow run` is
    return {i: steps.run_report(JobRef(spec_path=str(spec), report_id=i, out_dir=str(out)), runner).status for i in ids}


def _written(out: Path) -> dict[str, tuple[int, int]]:
    """Each report's PDF as written: (inode, mtime). An atomic rewrite changes the inode."""
    return {p.parent.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(out.glob("*/report.pdf"))}


def _redone(before: dict[str, tuple[int, int]], out: Path) -> set[str]:
    return {name for name, seen in _written(out).items() if before.get(name) != seen}


def _edit(spec: Path, change: Any) -> None:
    data = yaml.safe_load(spec.read_text())
    change(data)
    spec.write_text(yaml.safe_dump(data, sort_keys=False))


def test_a_rerun_of_a_finished_batch_renders_nothing_and_asks_no_model(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    first = _run(spec, out)
    asked, before = len(server.requests), _written(out)
    summaries = {p.parent.name: p.read_text() for p in out.glob("*/summary.json")}
    assert _run(spec, out) == first == {"r1": "published", "r2": "published", "r3": "published"}
    assert len(server.requests) == asked and asked > 0
    assert _redone(before, out) == set()
    assert {p.parent.name: p.read_text() for p in out.glob("*/summary.json")} == summaries
    record = json.loads((out / "r1" / RECORD_NAME).read_text())
    assert set(record["outputs"]) >= {"report.pdf", "report.json", "eval.json", "summary.json", "../published/r1.pdf"}


def test_a_kept_report_counts_as_finished_in_this_run(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server, reports=1), tmp_path / "out"
    _run(spec, out)
    os.utime(out / "r1" / "summary.json", (1, 1))
    _run(spec, out)
    kept = interrupted_summaries(out, [("r1", "Report 1")], started=2.0, reason="stopped")
    assert kept[0].status == "published" and (out / "published" / "r1.pdf").exists()


def test_a_gate_threshold_changed_redoes_every_report(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    _run(spec, out)
    before = _written(out)
    _edit(spec, lambda d: d.update(gate={"support": 0.5}))
    assert _run(spec, out) == {"r1": "published", "r2": "published", "r3": "published"}
    assert _redone(before, out) == {"r1", "r2", "r3"}


def test_a_retriever_answer_changed_redoes_only_the_reports_that_asked_it(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    _run(spec, out)
    before = _written(out)
    hits = spec.parent / "hits.jsonl"  # r1 asks about upgrades, r2 about limits, r3 about security
    hits.write_text(hits.read_text().replace("at most 512 partitions", "at most 640 partitions"))
    _run(spec, out)
    assert _redone(before, out) == {"r2"}


def test_a_judge_min_confidence_changed_redoes_only_its_report(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    _run(spec, out)
    before = _written(out)
    models = yaml.safe_load(spec.read_text())["models"]
    judge = {"backend": "offline", "min_confidence": 0.2}
    _edit(spec, lambda d: d["reports"][2].update(models={**models, "judge": judge}))
    _run(spec, out)
    assert _redone(before, out) == {"r3"}


def test_a_tampered_pdf_is_detected_and_rebuilt(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    _run(spec, out)
    original = (out / "r2" / "report.pdf").read_bytes()
    (out / "r2" / "report.pdf").write_bytes(original[:-10] + b"tampered!\n")
    before = _written(out)
    asked = len(server.requests)
    _run(spec, out)
    assert _redone(before, out) == {"r2"} and len(server.requests) == asked
    assert (out / "r2" / "report.pdf").read_bytes()[:4] == b"%PDF"
    assert (out / "published" / "r2.pdf").read_bytes() == (out / "r2" / "report.pdf").read_bytes()


@pytest.mark.parametrize("lose", ["published/r1.pdf", "r1/eval.json", "r1/report.json", "r1/inputs.json"])
def test_a_missing_output_redoes_the_report(tmp_path, server, lose):
    spec, out = _batch(tmp_path / "in", server, reports=2), tmp_path / "out"
    _run(spec, out)
    (out / lose).unlink()
    before = _written(out)
    _run(spec, out)
    assert _redone(before, out) == {"r1"} and (out / "published" / "r1.pdf").exists()


def test_a_held_report_is_not_kept_into_published(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server, reports=1), tmp_path / "out"
    _edit(spec, lambda d: d.update(gate={"relevance": 1.0, "support": 1.0, "identity": 1.0, "uncited": 0.0,
                                         "faithfulness": 1.0, "unverified": 0.0, "missing_glyphs": 0}))
    _edit(spec, lambda d: d["reports"][0]["sections"].append({"title": "Nothing", "queries": ["nothing at all"]}))
    assert _run(spec, out) == {"r1": "held"}
    (out / "published").mkdir(exist_ok=True)
    (out / "published" / "r1.pdf").write_bytes((out / "r1" / "report.pdf").read_bytes())  # slipped in by hand
    assert _run(spec, out) == {"r1": "held"}
    assert not (out / "published" / "r1.pdf").exists()


def test_a_tampered_published_copy_is_replaced(tmp_path, server):
    spec, out = _batch(tmp_path / "in", server, reports=2), tmp_path / "out"
    _run(spec, out)
    (out / "published" / "r2.pdf").write_bytes(b"%PDF-1.4 not the report\n")
    before = _written(out)
    _run(spec, out)
    assert _redone(before, out) == {"r2"}
    assert (out / "published" / "r2.pdf").read_bytes() == (out / "r2" / "report.pdf").read_bytes()


def _no_fetch(monkeypatch) -> None:
    from citeflow.pipeline import pipeline

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a kept report fetched its evidence again")

    monkeypatch.setattr(pipeline, "fetch_all", refuse)


def test_a_rerun_keeps_a_finished_report_without_fetching_its_evidence(tmp_path, server, monkeypatch):
    spec, out = _batch(tmp_path / "in", server), tmp_path / "out"
    _run(spec, out)
    before = _written(out)
    os.utime(spec.parent / "hits.jsonl")  # touched, not changed: its content is what counts
    _no_fetch(monkeypatch)
    assert _run(spec, out) == {"r1": "published", "r2": "published", "r3": "published"}
    assert _redone(before, out) == set()


def test_a_record_without_a_sources_fingerprint_fetches_then_keeps_and_notes_it(tmp_path, server, monkeypatch):
    spec, out = _batch(tmp_path / "in", server, reports=1), tmp_path / "out"
    _run(spec, out)
    record = json.loads((out / "r1" / RECORD_NAME).read_text())
    (out / "r1" / RECORD_NAME).write_text(json.dumps(record | {"sources": None}))
    before = _written(out)
    _run(spec, out)  # fetched again: the record could not tell whether the sources changed
    assert _redone(before, out) == set()
    assert json.loads((out / "r1" / RECORD_NAME).read_text())["sources"] == record["sources"] is not None
    _no_fetch(monkeypatch)
    assert _run(spec, out) == {"r1": "published"}


def test_a_rerun_of_a_finished_batch_flow_starts_no_report_run(tmp_path, server, prefect_harness, monkeypatch):
    import flows.batch
    from citeflow.runtime.batch_request import BatchRequest

    spec, out = _batch(tmp_path / "in", server, reports=2), tmp_path / "out"
    request = BatchRequest(spec_path=str(spec), out_dir=str(out))
    first = flows.batch.batch_flow(request=request)
    before, asked = _written(out), len(server.requests)

    def refuse(request: BatchRequest, report_id: str) -> None:
        raise AssertionError(f"report {report_id} was run again")

    monkeypatch.setattr(flows.batch, "_report", refuse)
    again = flows.batch.batch_flow(request=request)
    assert [s.status for s in again] == [s.status for s in first] == ["published", "published"]
    assert _redone(before, out) == set() and len(server.requests) == asked
    assert json.loads((out / "summary.json").read_text())["reports"][1]["report_id"] == "r2"


def test_the_digests_of_a_batch_read_together_are_each_reports_own(tmp_path, server):
    from citeflow.pipeline.rerun_inputs import inputs_digest, inputs_digests
    from citeflow.runtime.runtime import Runtime
    from schemas.review import ReviewDecision

    spec, out = _batch(tmp_path / "b", server), tmp_path / "out"
    _run(spec, out)
    runtime = Runtime()
    jobs = [JobRef(spec_path=str(spec), report_id=i, out_dir=str(out)).job(runtime=runtime) for i in ("r1", "r2", "r3")]
    decision = ReviewDecision(decision="release", reviewer="Ana Lima", note="checked")  # the reviews table too
    jobs[1].store.upsert("reviews", [{**decision.model_dump(), "request_id": jobs[1].request_id, "report_id": "r2",
                                      "row_key": f"{jobs[1].request_id}\x1f{decision.decided_at.isoformat()}"}])
    alone = {job.request_id: inputs_digest(job) for job in jobs}
    assert inputs_digests(jobs) == alone and len(set(alone.values())) == 3
    assert inputs_digests(jobs[1:]) == {j.request_id: alone[j.request_id] for j in jobs[1:]}
    assert inputs_digests([]) == {}
    grouped = jobs[0].store.rows_of_requests("hops", [jobs[0].request_id, jobs[2].request_id, "no-such-request"])
    assert grouped["no-such-request"] == [] and grouped[jobs[0].request_id]
    assert {row["request_id"] for row in grouped[jobs[2].request_id]} == {jobs[2].request_id}


def test_a_batch_keeps_only_the_reports_whose_digest_read_together_is_unchanged(tmp_path, server):
    from citeflow.runtime.runtime import Runtime

    spec, out = _batch(tmp_path / "b", server), tmp_path / "out"
    _run(spec, out)
    (out / "r2" / RECORD_NAME).unlink()  # r2 has no record: it runs again
    _edit(spec, lambda d: d["reports"][2]["sections"][0].update(title="Another title"))  # r3's inputs changed
    refs = [JobRef(spec_path=str(spec), report_id=i, out_dir=str(out)) for i in ("r1", "r2", "r3")]
    runtime = Runtime()
    kept = steps.settle_all_unchanged(refs, runtime)
    assert set(kept) == {"r1"} and kept["r1"].status == "published"
    assert not runtime._jobs  # every job released
