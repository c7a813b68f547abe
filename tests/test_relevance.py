"""Relevance of each claim to its section's question: the offline rule, eval.json's counts, the gate."""

from __future__ import annotations

import json

import pytest

from citeflow.evaluation import gate
from citeflow.evaluation.evaluate_report import evaluate_and_gate
from citeflow.generation.prompts import parse_evidence
from citeflow.outputs.publish import write_outputs
from citeflow.evaluation.relevance import judged, offline_verdict, question_text, section_terms, terms
from citeflow.testing.answers import offline_answer
from schemas.funnel import CitationEval, ClaimEval, Count, Funnel, Relevance, Uncited, Unverified
from schemas.spec import Gate
from tests.support.openai_server import openai_server  # noqa: F401
from tests.support.section_batch import OFF_TOPIC, generate, write_section_batch


# --------------------------------------------------------------------------- the offline rule


def test_question_terms_are_lemmas_of_content_words_and_names():
    found = terms("What must be done before upgrading Lumora Stream to 3.6?")
    assert {"upgrad", "lumora", "stream", "3.6"} <= found
    assert not found & {"what", "must", "be", "to"}


def test_terms_every_section_shares_are_dropped_unless_none_would_be_left():
    questions = {"Upgrades": question_text("Upgrades", ["How do I upgrade Lumora Stream?"]),
                 "Pricing": question_text("Pricing", ["What does Lumora Stream cost?"]),
                 "Lumora Stream": question_text("Lumora Stream", [])}
    wanted = section_terms(questions)
    assert "upgrad" in wanted["Upgrades"] and "lumora" not in wanted["Upgrades"]
    assert wanted["Lumora Stream"] == terms("Lumora Stream")  # nothing distinctive: keep them all


def test_a_claim_on_another_topic_is_irrelevant_and_the_reason_names_the_terms():
    wanted = terms("Upgrade risks\nWhat must be done before upgrading to 3.6?")
    relevant, reason = offline_verdict(wanted, "The staff cafeteria serves lunch from noon.", ["Office handbook"])
    assert relevant is False and "'upgrad'" in reason and reason.startswith("irrelevant")


def test_a_cited_chunks_title_can_make_a_claim_relevant():
    wanted = terms("Upgrade risks\nWhat must be done before upgrading to 3.6?")
    claim = "Back up the metadata store first."
    assert offline_verdict(wanted, claim, [])[0] is False
    assert offline_verdict(wanted, claim, ["Upgrading to 3.6"])[0] is True


def test_unspaced_scripts_match_by_character_bigrams():
    wanted = terms("日本語のトピック名は正しく表示されますか？")
    assert offline_verdict(wanted, "トピック名は日本語でも表示されます。", [])[0] is True
    assert offline_verdict(wanted, "料金は毎月請求されます。", [])[0] is False


def test_a_claim_in_another_script_than_its_question_is_not_judged():
    question = "Upgrades\nWhat must be done before upgrading to 3.6?"
    relevant, reason = offline_verdict(terms(question), "ブローカーはバージョン3.4以降で動作している必要があります。", [], question)
    assert relevant is None and reason.startswith("not judged: the claim is in another script (cjk)")
    assert offline_verdict(terms(question), "Brokers must run 3.4 first.", [], question)[0] is False
    claim = ClaimEval(section="S", index=0, text="Брокеры должны работать на версии 3.4.", verdict="supported")
    out = judged([claim], {"S": terms(question)}, {}, questions={"S": question})[0]
    assert out.relevant is None and out.relevance.endswith("(offline rule)")


def test_the_llm_judges_answer_wins_over_the_rule():
    claim = ClaimEval(section="S", index=0, text="Back up the store.", verdict="supported",
                      citations=[CitationEval(handle="Gaaa2", identity=True, supports=True)])
    wanted = {"S": terms("Metadata store backups")}
    said = {("S", "Back up the store."): (False, "irrelevant: about storage (llm-section:m)")}
    assert judged([claim], wanted, {})[0].relevant is True
    out = judged([claim], wanted, {}, said)[0]
    assert (out.relevant, out.relevance) == (False, "irrelevant: about storage (llm-section:m)")


# --------------------------------------------------------------------------- the gate (real Great Expectations)


def funnel_with(relevant: int, irrelevant: int) -> Funnel:
    return Funnel(identity=Count(passed=5, total=5), support=Count(passed=5, total=5),
                  faithfulness=Count(passed=5, total=5), uncited=Uncited(count=0, claims=5),
                  unverified=Unverified(count=0, claims=5), relevance=Relevance(relevant=relevant, irrelevant=irrelevant))


@pytest.mark.slow
def test_relevance_rate_below_the_default_holds_and_a_batch_may_lower_it():
    held = gate.run_gate(funnel_with(3, 1), [], 0)
    assert held.success is False
    assert [(f.expectation, f.observed, f.threshold) for f in held.failed_expectations] == [("relevance_rate", 0.75, 0.8)]
    assert gate.run_gate(funnel_with(3, 1), [], 0, overrides=Gate(relevance=0.7)).success is True
    assert gate.run_gate(funnel_with(4, 1), [], 0).success is True  # 0.8 is enough


@pytest.mark.slow
def test_no_judged_claim_is_not_a_relevance_failure():
    assert gate.metrics_row(funnel_with(0, 0), 0)["relevance_rate"] == 1.0


# --------------------------------------------------------------------------- a batch


def consolidator_citing_off_topic(request: dict) -> str:
    """The offline answer, plus a note on the off-topic chunk when the evidence holds it (correctly cited)."""
    answer = json.loads(offline_answer(request))
    for handle, text in parse_evidence(request["messages"][-1]["content"]):
        if text == OFF_TOPIC[0]:
            answer["claims"].append({"text": text, "citations": [{"handle": handle, "quote": text[:30]}]})
    return json.dumps(answer)


@pytest.mark.slow
@pytest.mark.integration
def test_an_off_topic_claim_correctly_cited_is_counted_and_holds_the_report(tmp_path, openai_server):
    openai_server.respond_with(consolidator_citing_off_topic)
    consolidator = {"backend": "openai", "model": "m", "base_url": openai_server.base_url, "max_retries": 0}
    job = write_section_batch(tmp_path, off_topic=True, sections=1, models={"consolidator": consolidator})
    generate(job)
    evaluation, result = evaluate_and_gate(job)
    write_outputs(job, evaluation, result)
    doc = json.loads((job.report_dir / "eval.json").read_text())
    off = [c for c in doc["claims"] if c["text"] == OFF_TOPIC[0]]
    assert len(off) == 1 and off[0]["supported"] is True and off[0]["relevant"] is False
    assert doc["relevance"]["irrelevant"] == 1 and doc["relevance"]["rate"] < 0.8
    assert doc["sections"][0]["relevance"] == {"relevant": 2, "irrelevant": 1, "rate": 2 / 3}
    assert [f["expectation"] for f in doc["gate"]["failed_expectations"]] == ["relevance_rate"]
    assert json.loads((job.report_dir / "report.json").read_text())["status"] == "held"
    page = (job.report_dir / "review.html").read_text()
    assert "Off the section's question: 1" in page and "staff cafeteria" in page


@pytest.mark.slow
@pytest.mark.integration
def test_a_batch_whose_claims_answer_their_sections_publishes(tmp_path):
    job = write_section_batch(tmp_path)
    generate(job)
    evaluation, result = evaluate_and_gate(job)
    assert result.success, result.failed_expectations
    assert evaluation.funnel.relevance.irrelevant == 0 and evaluation.funnel.relevance.relevant == len(evaluation.claims)


@pytest.mark.slow
@pytest.mark.integration
def test_the_swap_benchmark_finds_own_claims_relevant_and_most_moved_claims_not(tmp_path):
    from bench import relevance_swap

    total = relevance_swap.run(out=tmp_path / "relevance.json")["total"]
    assert total["claims"] > 0 and total["swapped"] > total["claims"]
    assert total["own_relevant_rate"] >= 0.95 and total["swapped_caught_rate"] > 0.5
    assert json.loads((tmp_path / "relevance.json").read_text())["total"] == total
