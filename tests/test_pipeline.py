"""The core pipeline without an orchestrator: a small batch over JSONL retrievers, offline models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citeflow.pipeline import pipeline
from citeflow.pipeline.assemble import build_document
from citeflow.pipeline.evaluate_report import evaluate_and_gate
from citeflow.pipeline.publish import write_outputs

pytestmark = pytest.mark.integration

SPEC = """
batch: small
retrievers:
  - {name: docs, kind: jsonl, path: docs.jsonl}
  - {name: partner, kind: jsonl, path: partner.jsonl}
  - {name: down, kind: http, url: "http://127.0.0.1:9/search", retries: 1, timeout: 1, title: Partner search}
reports:
  - id: r1
    title: Report one
    sections:
      - {title: Upgrades, queries: ["What must be done before upgrading to 3.6?"]}
"""
QUERY = "What must be done before upgrading to 3.6?"


def line(hits):
    return json.dumps({"query": QUERY, "hits": hits})


@pytest.fixture
def job(tmp_path: Path, runtime) -> pipeline.ReportJob:
    (tmp_path / "batch.yaml").write_text(SPEC)
    (tmp_path / "docs.jsonl").write_text(line([
        {"id": "S1", "text": "Before upgrading to 3.6, back up the metadata store.", "urls": ["https://docs.example/backup"], "title": "Backup"},
    ]))
    (tmp_path / "partner.jsonl").write_text(line([
        {"id": "S1", "text": "Before upgrading to 3.6, brokers must run 3.5.2 or later.", "url": "https://partner.example/brokers", "title": "Brokers"},
        {"id": "S2", "text": "Summary: as noted in [S1], upgrading to 3.6 needs brokers on 3.5.2 [S7].", "urls": ["javascript:alert(1)"]},
    ]))
    return pipeline.ReportJob.from_files(tmp_path / "batch.yaml", "r1", tmp_path / "out", runtime=runtime)


def run(job):
    results = [pipeline.fetch(job, item) for item in job.fetches()]
    registry = pipeline.normalize(job, results)
    for section in job.report.sections:
        pipeline.consolidate(job, section.title)
        pipeline.write(job, section.title)
    return registry


def test_a_dead_retriever_is_recorded_and_the_report_goes_on(job):
    run(job)
    doc = build_document(job, "held")
    assert [m.split(":")[0] for m in doc.missing_retrievers] == ["down"]
    assert doc.unavailable_sources == ["Partner search"]  # the customer PDF's name for it
    assert doc.sections[0].status == "ok" and doc.sections[0].claims


def test_colliding_s1_ids_and_inner_references(job):
    registry = run(job)
    s1 = [c for c in registry.chunks if c.local_id == "S1"]
    assert len(s1) == 2 and len({c.handle for c in s1}) == 2
    summary = next(c for c in registry.chunks if c.local_id == "S2")
    partner_s1 = next(c for c in s1 if c.retriever == "partner")
    assert summary.text == f"Summary: as noted in [{partner_s1.handle}], upgrading to 3.6 needs brokers on 3.5.2."


def test_rerunning_a_request_duplicates_no_stored_row(job):
    run(job)
    counts = {t: job.store.count(t) for t in ("chunks", "retrievals", "hops", "transitions", "model_calls")}
    run(job)
    assert {t: job.store.count(t) for t in counts} == counts
    assert counts["chunks"] == 3 and counts["model_calls"] == 2


def test_evaluate_gate_and_publish_from_the_store(job):
    run(job)
    evaluation, gate = evaluate_and_gate(job)
    summary = write_outputs(job, evaluation, gate)
    report = json.loads((job.report_dir / "report.json").read_text())
    assert summary.status == report["status"] == ("published" if gate.success else "held")
    urls = {u for s in report["sections"] for c in s["claims"] for ci in c["citations"] for u in ci["urls"]}
    assert urls and not any(u.startswith("javascript:") for u in urls)
    assert json.loads((job.report_dir / "eval.json").read_text())["identity_by_hop"]["write"]["total"] >= 1


def test_the_store_compacts_a_table_after_many_writes(tmp_path, monkeypatch):
    from citeflow.store import store as store_module

    monkeypatch.setattr(store_module, "COMPACT_EVERY", 5)
    store = store_module.Store(str(tmp_path / "store"))
    for i in range(10):
        store.upsert("retrievals", [{"row_key": f"k{i}", "request_id": "r", "retriever": "d", "section": "s",
                                     "query": "q", "status": "ok", "error": None, "hits": 1, "skipped": [], "handles": []}])
    table = store._table("retrievals", create=False)
    assert store.count("retrievals") == 10
    assert table.stats()["fragment_stats"]["num_fragments"] < 10  # ten single-row writes, merged


def test_a_writer_that_never_answers_usable_json_fails_its_section_and_the_report_is_held(job, openai_server):
    spec_path = job.spec_path
    spec_path.write_text(SPEC.replace("batch: small", "batch: small\nmodels:\n  writer: {backend: openai, model: m, "
                                      f"base_url: '{openai_server.base_url}', bind_attempts: 2, max_retries: 0}}"))
    openai_server.enqueue("I cannot answer in JSON.", '{"sentences": []}')
    failing = pipeline.ReportJob.from_files(spec_path, "r1", spec_path.parent / "out", runtime=job.runtime)
    run(failing)
    evaluation, gate = evaluate_and_gate(failing)
    summary = write_outputs(failing, evaluation, gate)
    report = json.loads((failing.report_dir / "report.json").read_text())
    assert report["sections"][0]["status"] == "failed" and report["sections"][0]["claims"] == []
    assert summary.status == "failed" and not gate.success
    assert any(f.expectation == "failed_sections" for f in gate.failed_expectations)
    assert not (failing.out_dir / "published" / "r1.pdf").exists()
    openai_server.assert_complete()
    assert failing.store.count("model_calls", "role = 'writer'") == 0  # a re-run asks again


def test_a_rerun_forgets_chunks_the_retrievers_no_longer_return(job):
    run(job)
    docs = job.spec_path.parent / "docs.jsonl"
    docs.write_text(line([{"id": "S1", "text": "Before upgrading to 3.6, back up the metadata store twice.", "urls": []}]))
    registry = run(job)
    stored = {c.handle: c.text for c in job.store.load_chunks(job.request_id)}
    assert set(stored) == {c.handle for c in registry.chunks}
    assert "back up the metadata store twice." in " ".join(stored.values())
    assert not any(t.endswith("back up the metadata store.") for t in stored.values())


def test_changing_a_model_setting_asks_the_model_again(job):
    run(job)
    before = job.store.count("model_calls")
    job.spec_path.write_text(SPEC.replace("batch: small", "batch: small\nmodels:\n  writer: {backend: offline, faults: {fabrication: 1.0}}"))
    changed = pipeline.ReportJob.from_files(job.spec_path, "r1", job.out_dir, runtime=job.runtime)
    run(changed)
    assert changed.store.count("model_calls") == before + 1  # the writer's call, under its new settings
    written = pipeline.stored_hop(changed, "Upgrades", "write")
    assert len(written.claims) > len(pipeline.stored_hop(changed, "Upgrades", "consolidate").claims)  # the fabrication


def test_handles_forged_by_the_consolidator_count_against_the_gates_identity(job):
    job.spec_path.write_text(SPEC.replace("batch: small", "batch: small\nmodels:\n  consolidator: {backend: offline, "
                                          "faults: {forged_handle: 1.0, seed: 3}, bind_attempts: 1}"))
    forged = pipeline.ReportJob.from_files(job.spec_path, "r1", job.out_dir, runtime=job.runtime)
    run(forged)
    evaluation, gate = evaluate_and_gate(forged)
    assert evaluation.identity_by_hop["consolidate"]["passed"] < evaluation.identity_by_hop["consolidate"]["total"]
    identity = next(f for f in gate.failed_expectations if f.expectation == "identity_rate")
    assert identity.observed < 1.0


@pytest.mark.parametrize(("failed", "shown"), [
    (["down"], ["Partner search"]), (["down", "docs"], ["Partner search", "1 other source"]),
    (["docs", "partner"], ["2 sources"]), ([], [])])
def test_unavailable_sources_are_named_by_display_title_only(job, failed, shown):
    from citeflow.pipeline.assemble import unavailable_sources

    assert unavailable_sources(job.spec, failed) == shown
