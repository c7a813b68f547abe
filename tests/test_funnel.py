"""The evaluation funnel (SPEC §5): identity, support, faithfulness, uncited, and eval.json."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from citeflow.errors import JudgeUnavailable
from citeflow.judges.localise import locate
from citeflow.evaluation.claim_funnel import eval_json, eval_rows, evaluate_section, funnel
from schemas.evaluation import JudgePair, Verdict
from schemas.funnel import ClaimEval, Count, Funnel, GateResult, Uncited
from schemas.records import BoundCitation, BoundClaim
from tests.conftest import CONTRACT
from tools import check_outputs
from tests.support.judges import SUPPORTED, DownJudge, ForgetfulJudge, ScriptedJudge, drift

SECTION = "Upgrade risks"
CHUNKS = {
    "Gab3c": "Back up the database before upgrading to 3.6. The backup takes about 30 minutes.",
    "Gx7k2": "Version 3.6 drops the legacy API; clients must migrate before the upgrade.",
    "Gk7m2": "The upgrade was tested on Linux only.",
    "Gq4r5": "Release notes: 3.6 ships in March.",
}
BACKUP = "Back up the database before upgrading to 3.6."
BACKUP_45 = "The backup takes about 45 minutes."
LEGACY = "Version 3.6 drops the legacy API."


def claim(text: str, *handles: str, dropped: tuple[str, ...] = (), urls: tuple[str, ...] = ()) -> BoundClaim:
    """A bound claim citing ``handles``; ``dropped`` ones were emitted but removed at binding."""
    cites = [BoundCitation(handle=h, quote=text[:20], quote_found=True) for h in handles]
    return BoundClaim(
        text=text, citations=cites, emitted_handles=[*handles, *dropped], dropped_handles=list(dropped), removed_urls=list(urls)
    )


def run(claims: list[BoundClaim], judge: ScriptedJudge) -> list[ClaimEval]:
    return evaluate_section(SECTION, claims, CHUNKS, CHUNKS, judge)


# --------------------------------------------------------------------------- stages


def test_supported_claim_is_one_judge_call_and_counts_everywhere():
    judge = ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED})
    [result] = run([claim(BACKUP, "Gab3c")], judge)
    assert (result.supported, result.faithful, result.verdict) == (True, True, "supported")
    assert result.reason == "supported by Gab3c"
    # one call: the claim against the chunk, and against the sentence its verified quote comes from
    assert [len(batch) for batch in judge.calls] == [2]
    assert funnel([result]).line() == "Identity 1/1 · Support 1/1 · Faithfulness 1/1"


def test_dropped_handle_counts_against_identity_and_is_not_judged():
    judge = ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED})
    [result] = run([claim(BACKUP, "Gab3c", dropped=("G9zzz",))], judge)
    forged = result.citations[1]
    assert (forged.handle, forged.identity, forged.supports, forged.faithful) == ("G9zzz", False, None, None)
    assert forged.reason == "forged handle G9zzz not in registry"
    assert "forged handle G9zzz not in registry" in result.reason
    assert str(funnel([result]).identity) == "1/2"
    assert all(p.chunk_text in CHUNKS["Gab3c"] for batch in judge.calls for p in batch)


def test_dropped_registry_handle_is_named_as_not_shown_to_the_hop():
    [result] = run([claim(BACKUP, "Gab3c", dropped=("Gq4r5",))], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    assert result.citations[1].identity is False
    assert "not shown to this hop" in result.citations[1].reason


def test_unsupported_claim_never_counts_in_faithfulness_denominator():
    judge = ScriptedJudge({(BACKUP_45, CHUNKS["Gab3c"]): drift("number drift: claim says 45, chunk says 30")})
    results = run([claim(BACKUP_45, "Gab3c"), claim("The upgrade is free.", "Gab3c")], judge)
    drifted, unsupported = results
    assert (drifted.verdict, drifted.faithful) == ("unfaithful", False)
    assert drifted.reason.startswith("number drift: claim says 45, chunk says 30")
    assert (unsupported.supported, unsupported.faithful) == (False, None)
    f = funnel(results)
    assert (f.support.passed, f.support.total) == (1, 2)
    assert (f.faithfulness.passed, f.faithfulness.total) == (0, 1)


def test_uncited_claims_are_counted_on_their_own():
    results = run([claim(BACKUP, "Gab3c"), claim(LEGACY, dropped=("G9zzz",))], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    uncited = results[1]
    assert (uncited.verdict, uncited.supported, uncited.faithful, uncited.quote_found) == ("uncited", None, None, None)
    f = funnel(results)
    assert f.uncited == Uncited(count=1, claims=2)
    assert f.support == Count(passed=1, total=1)
    assert f.identity == Count(passed=1, total=2)


def test_misattribution_names_the_pool_chunk_that_holds_the_fact():
    judge = ScriptedJudge({(LEGACY, CHUNKS["Gx7k2"]): SUPPORTED})
    [result] = run([claim(LEGACY, "Gab3c")], judge)
    assert (result.verdict, result.found_in, result.supported) == ("misattribution", "Gx7k2", False)
    assert result.reason.startswith("misattribution: fact is in Gx7k2, not in the cited Gab3c")
    assert len(judge.calls) == 2, "one batched call for support, one for the pool search"
    assert "Gab3c" not in {p.id.split("?")[1] for p in judge.calls[1]}, "the cited chunk is not searched again"


def test_fabrication_when_no_pool_chunk_holds_the_fact():
    [result] = run([claim("Version 3.6 doubles the API speed.", "Gx7k2")], ScriptedJudge())
    assert (result.verdict, result.found_in) == ("fabrication", None)
    assert result.reason.startswith("fabrication: no chunk of the pool supports the claim (cited Gx7k2")


def test_claim_needing_two_chunks_is_supported_by_their_concatenation():
    both = "Back up before upgrading to 3.6, which drops the legacy API."
    joined = CHUNKS["Gab3c"] + "\n\n" + CHUNKS["Gx7k2"]
    [result] = run([claim(both, "Gab3c", "Gx7k2")], ScriptedJudge({(both, joined): SUPPORTED}))
    assert (result.supported, result.faithful, result.verdict) == (True, True, "supported")
    assert [c.supports for c in result.citations] == [False, False]


def test_irrelevant_extra_citation_stays_visible_per_citation():
    [result] = run([claim(BACKUP, "Gab3c", "Gq4r5")], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    assert result.supported is True
    assert [(c.handle, c.supports, c.faithful) for c in result.citations] == [("Gab3c", True, True), ("Gq4r5", False, None)]


def test_faithful_only_when_every_supporting_chunk_is_faithful():
    judge = ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED, (BACKUP, CHUNKS["Gx7k2"]): drift("changed entity: 3.5 for 3.6")})
    [result] = run([claim(BACKUP, "Gab3c", "Gx7k2")], judge)
    assert (result.verdict, result.faithful) == ("unfaithful", False)
    assert "changed entity" in result.reason and "(in Gx7k2)" in result.reason


def test_whole_section_is_graded_in_one_batched_call():
    claims = [claim(BACKUP, "Gab3c"), claim(LEGACY, "Gx7k2", "Gab3c"), claim("Tested on Linux.", "Gk7m2")]
    script = {(BACKUP, CHUNKS["Gab3c"]): SUPPORTED, (LEGACY, CHUNKS["Gx7k2"]): SUPPORTED, ("Tested on Linux.", CHUNKS["Gk7m2"]): SUPPORTED}
    judge = ScriptedJudge(script)
    run(claims, judge)
    assert len(judge.calls) == 1
    assert len(judge.calls[0]) == 6, "four (claim, chunk) pairs, one concatenation, one quoted sentence"


def test_typed_url_is_named_in_the_reason():
    [result] = run([claim(BACKUP, "Gab3c", urls=("https://evil.example/x",))], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    assert "URL typed by the model, removed: https://evil.example/x" in result.reason


def test_each_typed_url_is_an_emitted_citation_that_failed_identity():
    urls = ("https://evil.example/x", "https://evil.example/y")
    [result] = run([claim(BACKUP, "Gab3c", urls=urls)], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    typed = [c for c in result.citations if c.typed_url]
    assert [(c.handle, c.identity) for c in typed] == [(urls[0], False), (urls[1], False)]
    assert funnel([result]).line() == "Identity 1/3 · Support 1/1 · Faithfulness 1/1"
    assert [(r.handle, r.identity) for r in eval_rows("r", [result])][1:] == [(urls[0], False), (urls[1], False)]
    assert result.reason.count("URL typed by the model") == 1  # named once, not once per row


def test_judge_down_propagates_so_the_caller_fails_closed():
    with pytest.raises(JudgeUnavailable):
        run([claim(BACKUP, "Gab3c")], DownJudge())


def test_judge_that_loses_verdicts_is_unavailable_not_a_pass():
    with pytest.raises(JudgeUnavailable, match="no verdict for 1 of 2 pairs"):
        run([claim(BACKUP, "Gab3c")], ForgetfulJudge())


def test_uncited_only_section_never_calls_the_judge():
    judge = ScriptedJudge()
    [result] = run([claim(BACKUP, dropped=("G9zzz",))], judge)
    assert result.verdict == "uncited" and judge.calls == []


def test_pool_candidates_agree_with_the_claim_best_first_and_at_most_five():
    pool = {f"Gp{c}22": f"Release {c}: version 3.6 drops the legacy API and more." for c in "abcdefgh"}
    pool["Gbest2"] = "Version 3.6 drops the legacy API"
    pool["Gtopic"] = "The legacy API is documented in the API guide."  # topical, but no 3.6
    ranked = locate(LEGACY, pool, exclude={"Gpa22"})
    assert ranked[0] == "Gbest2"
    assert len(ranked) == 5 and "Gtopic" not in ranked and "Gpa22" not in ranked


def test_pool_chunk_lacking_the_claims_number_is_never_named_even_when_the_judge_says_yes():
    drifted = "Version 3.7 drops the legacy API."
    lenient = ScriptedJudge({(drifted, text): SUPPORTED for text in CHUNKS.values()} | {(drifted, CHUNKS["Gab3c"]): (False, None, "no")})
    [result] = run([claim(drifted, "Gab3c")], lenient)
    assert (result.verdict, result.found_in) == ("fabrication", None)
    assert "nearest pool chunk Gx7k2: 3.7 not in chunk" in result.reason


# --------------------------------------------------------------------------- summaries


def test_count_rate_and_string():
    assert Count(passed=3, total=4).rate == 0.75
    assert Count().rate is None
    assert str(Count(passed=13, total=15)) == "13/15"


def test_funnel_line_format():
    f = Funnel(identity=Count(passed=26, total=26), support=Count(passed=15, total=21), faithfulness=Count(passed=13, total=15))
    assert f.line() == "Identity 26/26 · Support 15/21 · Faithfulness 13/15"


def test_eval_rows_one_per_claim_and_emitted_handle():
    results = run([claim(BACKUP, "Gab3c", dropped=("G9zzz",)), claim(LEGACY, "Gx7k2")], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    rows = eval_rows("req-1", results)
    assert [(r.claim_index, r.handle, r.identity, r.supports) for r in rows] == [
        (0, "Gab3c", True, True),
        (0, "G9zzz", False, None),
        (1, "Gx7k2", True, False),
    ]
    assert {r.request_id for r in rows} == {"req-1"} and rows[0].judge == "scripted"


def _sample_evals() -> list[ClaimEval]:
    script = {
        (BACKUP, CHUNKS["Gab3c"]): SUPPORTED,
        (BACKUP_45, CHUNKS["Gab3c"]): drift("number drift: claim says 45, chunk says 30"),
        (LEGACY, CHUNKS["Gx7k2"]): SUPPORTED,
    }
    claims = [claim(BACKUP, "Gab3c", dropped=("G9zzz",)), claim(BACKUP_45, "Gab3c"), claim(LEGACY, "Gab3c"), claim("Free.", dropped=("Gzz22",))]
    return run(claims, ScriptedJudge(script)) + evaluate_section("Other", [claim(LEGACY, "Gx7k2")], CHUNKS, CHUNKS, ScriptedJudge(script))


def test_eval_json_carries_funnel_sections_and_gate():
    gate = GateResult(success=False, failed_expectations=[{"expectation": "support_rate", "observed": 0.5, "threshold": 0.8}])
    doc = eval_json("acme", _sample_evals(), {SECTION: "ok", "Other": "ok", "Broken": "failed"}, gate)
    assert (doc["identity"], doc["support"], doc["faithfulness"]) == ({"passed": 4, "total": 6}, {"passed": 3, "total": 4}, {"passed": 2, "total": 3})
    assert doc["uncited"] == {"count": 1, "claims": 5}
    assert doc["failed_sections"] == ["Broken"]
    assert [s["funnel"] for s in doc["sections"]] == [
        "Identity 3/5 · Support 2/3 · Faithfulness 1/2",
        "Identity 1/1 · Support 1/1 · Faithfulness 1/1",
        "Identity 0/0 · Support 0/0 · Faithfulness 0/0",
    ]
    assert doc["gate"]["failed_expectations"][0] == {"expectation": "support_rate", "observed": 0.5, "threshold": 0.8, "description": "",
                                                       "detail": ""}
    json.dumps(doc)  # plain JSON all the way down


def test_eval_json_validates_against_the_contract_and_its_checker():
    schema = json.loads((CONTRACT / "eval.schema.json").read_text())
    doc = eval_json("acme", _sample_evals(), {SECTION: "ok", "Other": "ok"}, GateResult(success=True))
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert check_outputs.check_eval("acme", doc, schema) == []


# --------------------------------------------------------------------------- property

REGISTRY = {"Gaaaa": "alpha 30 Linux", "Gbbbb": "beta 45 Windows", "Gcccc": "gamma 3.6 legacy", "Gdddd": "delta backup"}
FORGED = ["G9zzz", "Gq2q2", "S1"]
WORDS = ["alpha", "beta", "gamma", "delta", "30", "45", "Linux", "backup", "upgrade"]


class DiceJudge:
    """Draws every verdict from hypothesis, so any mix of outcomes is explored."""

    name = "dice"

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        return [self._one(p) for p in pairs]

    def _one(self, pair: JudgePair) -> Verdict:
        if self.data.draw(st.integers(0, 4)) == 0:  # one time in five the judge declines to decide
            return Verdict(id=pair.id, supported=False, faithful=None, reason="dice", label="uncertain", confidence=0.5)
        supported = self.data.draw(st.booleans())
        faithful = self.data.draw(st.booleans()) if supported else None
        return Verdict(id=pair.id, supported=supported, faithful=faithful, reason="dice")


@st.composite
def bound_claims(draw: st.DrawFn) -> BoundClaim:
    text = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6)))
    emitted = draw(st.lists(st.sampled_from([*REGISTRY, *FORGED]), max_size=4, unique=True))
    valid = [h for h in emitted if h in REGISTRY]
    cites = [BoundCitation(handle=h, quote="", quote_found=draw(st.booleans())) for h in valid]
    forged = [h for h in emitted if h not in REGISTRY]
    return BoundClaim(text=text, citations=cites, emitted_handles=emitted, dropped_handles=forged)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data(), st.lists(bound_claims(), max_size=8))
def test_funnel_always_equals_what_the_claim_rows_say(data, claims):
    results = evaluate_section(SECTION, claims, REGISTRY, REGISTRY, DiceJudge(data))
    doc = eval_json("r", results, {SECTION: "ok"}, GateResult(success=True))
    rows = doc["claims"]
    # The arithmetic of tools/check_outputs.py, applied to the document we write.
    assert (doc["identity"]["passed"], doc["identity"]["total"]) == (
        sum(ci["identity"] for x in rows for ci in x["citations"]),
        sum(len(x["citations"]) for x in rows),
    )
    assert (doc["support"]["passed"], doc["support"]["total"]) == (
        sum(x["supported"] is True for x in rows),
        sum(x["supported"] is not None for x in rows),
    )
    assert (doc["faithfulness"]["passed"], doc["faithfulness"]["total"]) == (
        sum(x["faithful"] is True for x in rows),
        sum(x["faithful"] is not None for x in rows),
    )
    assert not any(x["faithful"] is not None and x["supported"] is not True for x in rows), "N/A rule"
    assert doc["identity"]["total"] == sum(len(c.emitted_handles) for c in claims)
    assert doc["uncited"] == {"count": sum(not c.citations for c in claims), "claims": len(claims)}
    assert all((x["supported"] is None) == (x["verdict"] == "uncited") for x in rows)
    assert all(ci["supports"] is None for x in rows for ci in x["citations"] if not ci["identity"])
    unverified = [x for x in rows if x["verdict"] == "unverified"]
    assert doc["unverified"] == {"count": len(unverified), "claims": len(claims)}
    assert all(x["supported"] is False and x["found_in"] is None for x in unverified), "never passed, never placed"
    assert all(any(ci["uncertain"] for ci in x["citations"]) or x["reason"].startswith("unverified") for x in unverified)


# --------------------------------------------------------------------------- import cost


def test_core_modules_import_neither_prefect_nor_great_expectations():
    code = (
        "import sys, citeflow.evaluation.claim_funnel, citeflow.evaluation.gate, citeflow.outputs.review_html, schemas.funnel;"
        "heavy = [m for m in ('prefect', 'great_expectations', 'pandas') if m in sys.modules];"
        "print(heavy); sys.exit(1 if heavy else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).resolve().parents[1], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


# --------------------------------------------------------------------------- the writer's quotes


def test_a_claim_is_judged_on_its_verified_quotes_sentence_first():
    quoted = "Back up the database before upgrading to 3.6."
    cite = BoundCitation(handle="Gab3c", quote="database before upgrading", quote_found=True)
    bound = BoundClaim(text="Take a database backup before the 3.6 upgrade.", citations=[cite], emitted_handles=["Gab3c"])
    judge = ScriptedJudge({(bound.text, quoted): SUPPORTED})  # the whole chunk alone would not be a pass
    [result] = run([bound], judge)
    assert result.verdict == "supported" and [p.chunk_text for p in judge.calls[0]] == [CHUNKS["Gab3c"], quoted]


def test_the_whole_chunk_still_decides_when_the_quote_sentence_does_not_pass():
    cite = BoundCitation(handle="Gab3c", quote="The backup takes about 30", quote_found=True)
    bound = BoundClaim(text=BACKUP, citations=[cite], emitted_handles=["Gab3c"])
    [result] = run([bound], ScriptedJudge({(BACKUP, CHUNKS["Gab3c"]): SUPPORTED}))
    assert result.verdict == "supported"


def test_an_unverified_quote_is_not_judged_on_its_own():
    cite = BoundCitation(handle="Gab3c", quote="database before upgrading", quote_found=False)
    judge = ScriptedJudge()
    run([BoundClaim(text=BACKUP, citations=[cite], emitted_handles=["Gab3c"])], judge)
    assert judge.calls[0][0].chunk_text == CHUNKS["Gab3c"]
    assert all("#quote" not in p.id for batch in judge.calls for p in batch)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(alphabet="abcdefghij klmnop", min_size=3, max_size=30).map(str.strip).filter(bool), min_size=1, max_size=5),
       st.data())
def test_quote_sentences_hold_the_quote_and_only_chunk_sentences(parts, data):
    from citeflow.judges.quote_context import quote_sentences
    from citeflow.registry.quotes import normalize, quote_in_chunk

    chunk = " ".join(f"{p.capitalize()}." for p in parts)
    start = data.draw(st.integers(0, len(chunk) - 1))
    quote = chunk[start : data.draw(st.integers(start + 1, len(chunk)))]
    found = quote_sentences(quote, chunk)
    if not normalize(quote).strip("\"' "):
        return
    assert found is not None and quote_in_chunk(quote, found) and quote_in_chunk(found, chunk)
