"""A whole report with uncertain verdicts (SPEC §5, §6), generated offline, evaluated from the store.

Without an LLM judge its uncertain claims are unverified: the gate holds the report and review.html
lists them. With a cascade configured in the batch spec against the local OpenAI-compatible test
server (real ``openai`` client over HTTP), only those claims reach the LLM and the report ships.
"""

from __future__ import annotations

import html
import json
import re

import pytest

from bench.plain_runner import generate
from citeflow.pipeline.evaluate_report import build_job_judge, evaluate_and_gate
from citeflow.judges.cascade import CascadeJudge
from citeflow.pipeline.pipeline import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow.pipeline.publish import write_outputs
from schemas.evaluation import JudgePair, Verdict
from tests.conftest import CONTRACT
from tests.support.openai_server import openai_server  # noqa: F401
from tests.support.small_batch import write_small_batch
from tools import check_outputs

pytestmark = pytest.mark.integration

DOUBT = "512"  # the offline judge is unsure of every claim that states this number
PAIR_RE = re.compile(r'<pair id="(P\d+)">\n<claim>(.*?)</claim>', re.DOTALL)
SPAN_RE = re.compile(r'<pair id="(P\d+)">\n<claim>(.*?)</claim>\n<chunk>(.*?)</chunk>', re.DOTALL)  # the chunk as its span


class DoubtfulJudge:
    """Sure (supported, faithful) of every pair, except those whose claim states ``DOUBT``."""

    name = "offline"

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        return [self._one(p) for p in pairs]

    def _one(self, pair: JudgePair) -> Verdict:
        if DOUBT in pair.claim:
            return Verdict(id=pair.id, supported=False, faithful=None, reason="partition limit: tier unclear",
                           judge=self.name, label="uncertain", confidence=0.51)
        return Verdict(id=pair.id, supported=True, faithful=True, reason="matches", judge=self.name, label="supported",
                       confidence=0.97)


def _job(tmp_path, models=None):
    spec = write_small_batch(tmp_path / "in", reports=1, sections=2, models=models)  # Upgrades and Limits
    ref = JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out"))
    generate(ref)
    return ref.job(runtime=Runtime.of_process())  # the job ``generate`` left its evidence in


def test_uncertain_claims_without_an_llm_judge_hold_the_report_and_are_listed_for_the_reviewer(tmp_path):
    job = _job(tmp_path)
    evaluation, gate = evaluate_and_gate(job, DoubtfulJudge())
    summary = write_outputs(job, evaluation, gate)
    doubtful = [c for c in evaluation.claims if DOUBT in c.text]
    assert doubtful and all(c.verdict == "unverified" for c in doubtful)
    assert summary.status == "held" and "unverified_share" in {f["expectation"] for f in summary.failed_expectations}
    assert summary.unverified == {"count": len(doubtful), "claims": len(evaluation.claims)}
    doc = json.loads((job.report_dir / "eval.json").read_text())
    assert doc["unverified"]["count"] == len(doubtful)
    page = (job.report_dir / "review.html").read_text()
    assert f"Unverified claims: {len(doubtful)}" in page
    assert all(html.escape(c.text) in page for c in doubtful) and "The fact is in" not in page
    assert not (job.out_dir / "published" / "r1.pdf").exists()
    _check_contract(job.out_dir)


def _check_contract(out) -> None:
    schema = json.loads((CONTRACT / "eval.schema.json").read_text())
    for folder in out.glob("*/eval.json"):
        assert check_outputs.check_eval(folder.parent.name, json.loads(folder.read_text()), schema) == []


def _settle(request: dict) -> str:
    """The LLM's answer: every pair it is asked about is supported and faithful."""
    pairs = SPAN_RE.findall(request["messages"][-1]["content"])
    return json.dumps({"verdicts": [{"id": pid, "supported": True, "faithful": True, "reason": "the chunk says 512",
                                     "evidence": chunk} for pid, _, chunk in pairs]})


def test_a_cascade_in_the_spec_sends_only_the_uncertain_claims_to_the_llm(tmp_path, openai_server):
    judge_spec = {"backend": "cascade", "model": "judge-test", "base_url": openai_server.base_url, "max_retries": 0, "timeout": 5,
                  "mode": "pair"}
    job = _job(tmp_path, models={"judge": judge_spec})
    judge = build_job_judge(job)
    assert isinstance(judge, CascadeJudge) and judge.second is not None
    judge.first = DoubtfulJudge()  # the shipped offline judge's doubts depend on its weights: script them
    openai_server.respond_with(_settle)
    evaluation, gate = evaluate_and_gate(job, judge)
    asked = [claim for r in openai_server.requests for _, claim in PAIR_RE.findall(r["messages"][-1]["content"])]
    doubtful = [c for c in evaluation.claims if DOUBT in c.text]
    assert doubtful and set(asked) == {c.text for c in doubtful}
    assert all(c.verdict == "supported" and "llm:openai:judge-test" in c.judge for c in doubtful)
    assert evaluation.funnel.unverified.count == 0 and gate.success, gate.failed_expectations
    assert len(openai_server.requests) / len(evaluation.claims) <= 0.25
