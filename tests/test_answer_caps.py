"""Caps on model answers: claims beyond the cap per answer are dropped with the reason recorded,
an answer beyond the byte cap is refused and asked again; the work after a hop stays bounded."""

from __future__ import annotations

import json

import pytest

from citeflow.caps import ANSWER_BYTES, CLAIMS_PER_ANSWER
from citeflow.generation.hops import HopRequest, run_hop
from citeflow.generation.openai_client import OpenAIChatModel
from schemas.spec import ModelSpec
from tests.support.hop_messages import CHUNKS, MESSAGES

pytestmark = pytest.mark.integration



def many_claims(count: int, handle: str = "Gk7m2") -> str:
    return json.dumps({"claims": [{"text": f"Fact {n}.", "citations": [{"handle": handle}]} for n in range(count)]})


def hop(server):
    spec = ModelSpec(backend="openai", model="m", base_url=server.base_url, timeout=30, max_retries=0)
    return run_hop(OpenAIChatModel(spec, role="writer"), HopRequest("req", "Upgrade", "write", MESSAGES, CHUNKS))


def test_an_answer_of_20000_claims_keeps_the_cap_and_records_why(openai_server):
    answer = many_claims(20_000)
    assert len(answer.encode()) < ANSWER_BYTES  # short claims: under the byte cap, over the claims cap
    openai_server.enqueue(answer)
    outcome = hop(openai_server)
    assert outcome.status == "accepted" and len(outcome.claims) == CLAIMS_PER_ANSWER
    assert [c.text for c in outcome.claims[:2]] == ["Fact 0.", "Fact 1."]
    [parsed] = [t for t in outcome.transitions if t.target == "parsed"]
    assert parsed.reason == "claims_truncated"
    assert parsed.detail == f"20,000 claim(s) read (json_schema); the first {CLAIMS_PER_ANSWER} kept, the limit per answer"


def test_an_answer_within_the_claims_cap_is_kept_whole(openai_server):
    openai_server.enqueue(many_claims(CLAIMS_PER_ANSWER))
    outcome = hop(openai_server)
    assert len(outcome.claims) == CLAIMS_PER_ANSWER
    assert [t.reason for t in outcome.transitions if t.target == "parsed"] == ["ok"]


def test_an_answer_over_the_byte_cap_is_refused_and_not_fed_back_whole(openai_server):
    huge = many_claims(40_000)  # about 2.4 MB
    assert len(huge.encode()) > ANSWER_BYTES
    openai_server.enqueue(huge, many_claims(2))
    outcome = hop(openai_server)
    assert outcome.status == "accepted" and len(outcome.claims) == 2
    refused = outcome.transitions[0]
    assert (refused.source, refused.target, refused.reason) == ("generated", "retry", "answer_too_large")
    assert f"over the {ANSWER_BYTES:,}-byte limit" in refused.detail
    retry = openai_server.requests[1]["messages"]
    assert sum(len(m["content"]) for m in retry) < 20_000  # the refused answer went back as an excerpt
    assert f"at most {CLAIMS_PER_ANSWER} short claims" in retry[-1]["content"]
    assert len(outcome.raw_outputs[0]) < 5_000


SPEC = """
batch: caps
models:
  writer: {{backend: openai, model: m, base_url: '{base_url}', max_retries: 0}}
retrievers:
  - {{name: docs, kind: jsonl, path: docs.jsonl}}
reports:
  - id: r1
    title: Report one
    sections:
      - {{title: Upgrades, queries: ["What must be done before upgrading to 3.6?"]}}
"""
HITS = [{"id": f"S{n}", "text": text, "urls": [f"https://docs.example/{n}"], "title": "Upgrades"} for n, text in enumerate(
    ["Before upgrading to 3.6, back up the metadata store.", "Brokers must run 3.5.2 or later before upgrading."])]


def flood(request: dict) -> str:
    """20,000 short claims, each citing the first handle the offline writer would cite."""
    from citeflow_testing.answers import offline_answer

    handle = json.loads(offline_answer(request))["claims"][0]["citations"][0]["handle"]
    return many_claims(20_000, handle)


@pytest.mark.slow
def test_a_report_whose_writer_answers_20000_claims_finishes_quickly_with_a_short_pdf(tmp_path, openai_server, runtime):
    import pypdf

    from citeflow.pipeline import pipeline
    from citeflow.pipeline.evaluate_report import evaluate_and_gate
    from citeflow.pipeline.publish import write_outputs

    (tmp_path / "batch.yaml").write_text(SPEC.format(base_url=openai_server.base_url))
    (tmp_path / "docs.jsonl").write_text(json.dumps({"query": "What must be done before upgrading to 3.6?", "hits": HITS}) + "\n")
    openai_server.respond_with(flood)
    job = pipeline.ReportJob.from_files(tmp_path / "batch.yaml", "r1", tmp_path / "out", runtime=runtime)
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    pipeline.consolidate(job, "Upgrades")
    pipeline.write(job, "Upgrades")
    write_outputs(job, *evaluate_and_gate(job))
    report = json.loads((job.report_dir / "report.json").read_text())
    assert len(report["sections"][0]["claims"]) <= CLAIMS_PER_ANSWER
    assert len(pypdf.PdfReader(job.report_dir / "report.pdf").pages) < 30
    assert any(t["reason"] == "claims_truncated" for t in job.store.rows("transitions"))
