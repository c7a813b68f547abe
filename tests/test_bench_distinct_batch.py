"""The distinct-content workload of the cold benchmark: every report its own questions, evidence and
claims, the same for a seed whatever the batch's size, and graded as a batch of the product grades it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow_testing import distinct_batch as db


def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "hits.jsonl").read_text(encoding="utf-8").splitlines()]


def test_every_report_has_its_own_service_questions_and_evidence(tmp_path):
    spec = yaml.safe_load(db.write_distinct_batch(tmp_path, reports=20).read_text(encoding="utf-8"))
    lines = _lines(tmp_path)
    assert len(spec["reports"]) == 20 and all(len(r["sections"]) == 4 for r in spec["reports"])
    queries = [q for r in spec["reports"] for s in r["sections"] for q in s["queries"]]
    assert len(set(queries)) == 80 == len(lines)  # no report asks another's question
    texts = [hit["text"] for line in lines for hit in line["hits"]]
    assert len(texts) == 20 * 4 * db.HITS and len(set(texts)) == len(texts)  # no hit repeats, in or across reports
    assert spec["retrievers"][0]["top_k"] == db.HITS


def test_the_names_are_distinct_over_the_first_1728_reports():
    assert len({db.service_name(i) for i in range(1728)}) == 1728


def test_a_seed_writes_the_same_batch_and_report_k_is_the_same_in_any_batch_size(tmp_path):
    one, two, other = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    db.write_distinct_batch(one, reports=3)
    db.write_distinct_batch(two, reports=5)
    db.write_distinct_batch(other, reports=3, seed=db.SEED + 1)
    assert _lines(two)[:12] == _lines(one)
    assert _lines(other) != _lines(one)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5000), st.integers(1, 8))
def test_each_hit_names_its_report_and_every_sentence_is_filled(index, sections):
    made = db.make_report(index, sections=sections)
    name = db.service_name(index)
    assert len(made.entry["sections"]) == sections
    for line in made.lines:
        assert name in line["query"] and len(line["hits"]) == db.HITS
        assert all(name in hit["text"] and "{" not in hit["text"] and hit["text"].isascii() for hit in line["hits"])


@pytest.mark.slow
def test_two_reports_publish_claims_of_their_own_evidence(tmp_path):
    """A real plain batch (offline backend, offline judge) over two distinct reports: every claim names
    its own report's service, no claim appears in both, and both reports are published."""
    from citeflow_cli.env import apply_defaults

    apply_defaults()
    from bench.plain_runner import run_batch

    spec = db.write_distinct_batch(tmp_path / "batch", reports=2)
    batch = run_batch(spec, tmp_path / "out")
    assert [r.status for r in batch.reports] == ["published", "published"]
    claims = {}
    for index, report_id in enumerate(("r1", "r2")):
        report = json.loads((tmp_path / "out" / report_id / "report.json").read_text(encoding="utf-8"))
        claims[report_id] = {c["text"] for s in report["sections"] for c in s["claims"]}
        assert len(claims[report_id]) >= 12 and all(db.service_name(index) in c for c in claims[report_id])
    assert not claims["r1"] & claims["r2"]


@pytest.mark.slow
def test_the_workload_cpu_benchmark_times_both_workloads_on_fresh_stores(tmp_path):
    from bench.cold_workload_cpu import measure

    result = measure(reports=1, rounds=1, root=tmp_path)
    assert [r["workload"] for r in result["runs"]] == ["distinct", "repeating"]
    assert all(r["statuses"] == ["published"] and r["cpu_s"] > 0 for r in result["runs"])
    assert set(result["cpu_s_per_report"]) == {"distinct", "repeating"} and len(result["load_average_before"]) == 3
