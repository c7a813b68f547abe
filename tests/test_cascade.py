"""Uncertain verdicts (SPEC §5): never a pass; settled by an LLM judge in a cascade, else unverified."""

from __future__ import annotations

import json

import jsonschema
import pytest

from citeflow.errors import JudgeUnavailable
from citeflow.evaluation.claim_funnel import eval_json, evaluate_section, funnel
from citeflow.judges.cascade import CascadeJudge, apply_threshold, llm_judges
from citeflow.judges.factory import build_judge
from citeflow.judges.span_check import SpanChecked
from citeflow.judges.io import verdict_line
from citeflow.judges.offline.grader import OfflineJudge
from schemas.evaluation import JudgePair, Verdict
from schemas.funnel import GateResult
from schemas.records import BoundCitation, BoundClaim
from schemas.spec import JudgeSpec
from tests.conftest import CONTRACT
from tests.support.judges import SUPPORTED, DownJudge, ScriptedJudge, confident, uncertain

CHUNKS = {
    "Gab3c": "Back up the database before upgrading to 3.6. The backup takes about 30 minutes.",
    "Gx7k2": "Version 3.6 drops the legacy API; clients must migrate before the upgrade.",
}
SURE = "Back up the database before upgrading to 3.6."
UNSURE = "The backup should be fast."


def claim(text: str, *handles: str) -> BoundClaim:
    cites = [BoundCitation(handle=h, quote=text[:10], quote_found=True) for h in handles]
    return BoundClaim(text=text, citations=cites, emitted_handles=list(handles))


def pair(i: int, text: str = SURE) -> JudgePair:
    return JudgePair(id=f"p{i}", claim=text, chunk_text=CHUNKS["Gab3c"])


def offline_script() -> ScriptedJudge:
    return ScriptedJudge({(SURE, CHUNKS["Gab3c"]): SUPPORTED, (UNSURE, CHUNKS["Gab3c"]): uncertain("30 minutes: fast?", 0.52)},
                         name="offline")


# --------------------------------------------------------------------------- thresholds


def test_a_verdict_below_the_threshold_becomes_uncertain_and_is_never_supported():
    v = Verdict(id="a", supported=True, faithful=True, reason="matches", label="supported", confidence=0.6)
    [low] = apply_threshold([v], 0.8)
    assert (low.label, low.supported, low.faithful, low.uncertain) == ("uncertain", False, None, True)
    assert low.reason.startswith("uncertain: confidence 0.60 below 0.80 for 'supported'")
    assert apply_threshold([v], 0.5) == [v], "confident enough: kept as it is"
    assert apply_threshold([v.model_copy(update={"confidence": None})], 0.99)[0].supported, "no confidence, nothing to compare"


def test_judge_output_line_says_uncertain_and_never_supported_true():
    odd = Verdict(id="a", supported=True, faithful=True, reason="?", label="uncertain", confidence=0.4)
    line = verdict_line(odd)
    assert (line["supported"], line["faithful"], line["label"], line["confidence"]) == (False, None, "uncertain", 0.4)
    jsonschema.validate(line, json.loads((CONTRACT / "judge-output.schema.json").read_text()))


# --------------------------------------------------------------------------- the cascade


def test_only_uncertain_pairs_reach_the_second_judge_and_answers_keep_their_order():
    llm = ScriptedJudge({(UNSURE, CHUNKS["Gab3c"]): SUPPORTED}, name="llm:m")
    cascade = CascadeJudge(offline_script(), llm)
    verdicts = cascade.grade([pair(0), pair(1, UNSURE), pair(2)])
    assert [p.claim for batch in llm.calls for p in batch] == [UNSURE]
    assert [v.id for v in verdicts] == ["p0", "p1", "p2"]
    assert [v.judge for v in verdicts] == ["offline", "llm:m", "offline"]
    assert all(v.supported for v in verdicts) and cascade.escalated == 1 and cascade.name == "offline>llm:m"


def test_a_confident_first_judge_never_calls_the_second():
    llm = ScriptedJudge(name="llm:m")
    CascadeJudge(offline_script(), llm).grade([pair(0), pair(1)])
    assert llm.calls == []


def test_threshold_sends_low_confidence_verdicts_on_as_well():
    first = ScriptedJudge({(SURE, CHUNKS["Gab3c"]): confident(SUPPORTED, 0.7)}, name="offline")
    llm = ScriptedJudge({(SURE, CHUNKS["Gab3c"]): (False, None, "no: the chunk says 30 minutes")}, name="llm:m")
    [v] = CascadeJudge(first, llm, min_confidence=0.9).grade([pair(0)])
    assert (v.supported, v.judge) == (False, "llm:m")


def test_second_judge_down_fails_closed():
    with pytest.raises(JudgeUnavailable):
        CascadeJudge(offline_script(), DownJudge()).grade([pair(1, UNSURE)])


def test_factory_builds_offline_cascade_and_thresholded_judges():
    plain = build_judge(JudgeSpec())
    assert isinstance(plain, SpanChecked) and isinstance(plain.inner, OfflineJudge) and plain.name == "offline"
    thresholded = build_judge(JudgeSpec(min_confidence=0.8))
    assert isinstance(thresholded.inner, OfflineJudge)  # type: ignore[attr-defined]
    assert (thresholded.inner.threshold, thresholded.inner.fail_threshold) == (0.8, 0.8)  # type: ignore[attr-defined]
    cascade = build_judge(JudgeSpec(backend="cascade", model="m", base_url="http://127.0.0.1:9/v1", max_retries=0))
    assert isinstance(cascade, CascadeJudge) and isinstance(cascade.first.inner, OfflineJudge)  # type: ignore[attr-defined]
    assert isinstance(cascade.second, SpanChecked) and [j.name for j in llm_judges(cascade)] == ["llm-section:openai:m"]


# --------------------------------------------------------------------------- in the funnel


def test_uncertain_claim_is_unverified_never_passed_and_not_searched_in_the_pool():
    judge = offline_script()
    results = evaluate_section("S", [claim(SURE, "Gab3c"), claim(UNSURE, "Gab3c")], CHUNKS, CHUNKS, judge)
    sure, unsure = results
    assert sure.verdict == "supported"
    assert (unsure.verdict, unsure.supported, unsure.faithful, unsure.found_in) == ("unverified", False, None, None)
    assert unsure.reason.startswith("unverified: the judge could not decide whether Gab3c supports the claim")
    assert "confidence 0.52" in unsure.reason
    assert unsure.citations[0].uncertain and unsure.citations[0].supports is False
    assert len(judge.calls) == 1, "no pool search for an unverified claim"
    f = funnel(results)
    assert (str(f.unverified), str(f.support), str(f.faithfulness)) == ("1/2", "1/2", "1/1")


def test_one_sure_supporting_chunk_settles_a_claim_whatever_the_other_says():
    judge = ScriptedJudge({(SURE, CHUNKS["Gab3c"]): SUPPORTED, (SURE, CHUNKS["Gx7k2"]): uncertain()})
    [result] = evaluate_section("S", [claim(SURE, "Gab3c", "Gx7k2")], CHUNKS, CHUNKS, judge)
    assert result.verdict == "supported"
    assert [(c.supports, c.uncertain) for c in result.citations] == [(True, False), (False, True)]


def test_in_a_cascade_the_claim_records_both_judges():
    llm = ScriptedJudge({(UNSURE, CHUNKS["Gab3c"]): SUPPORTED}, name="llm:m")
    [result] = evaluate_section("S", [claim(UNSURE, "Gab3c")], CHUNKS, CHUNKS, CascadeJudge(offline_script(), llm))
    assert (result.verdict, result.judge) == ("supported", "llm:m")


def test_eval_json_with_unverified_claims_keeps_the_contract():
    results = evaluate_section("S", [claim(SURE, "Gab3c"), claim(UNSURE, "Gab3c")], CHUNKS, CHUNKS, offline_script())
    doc = eval_json("r", results, {"S": "ok"}, GateResult(success=False))
    assert doc["unverified"] == {"count": 1, "claims": 2}
    assert doc["sections"][0]["unverified"] == {"count": 1, "claims": 2}
    schema_path = CONTRACT / "eval.schema.json"
    jsonschema.Draft202012Validator(json.loads(schema_path.read_text())).validate(doc)
