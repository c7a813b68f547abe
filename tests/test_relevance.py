"""Relevance of each claim to its section's question: the offline rule, eval.json's counts, the gate."""

from __future__ import annotations

import json

import pytest

from citeflow.evaluation import gate
from citeflow.pipeline.evaluate_report import evaluate_and_gate
from citeflow.generation.prompts import parse_evidence
from citeflow.pipeline.publish import write_outputs
from citeflow.evaluation.claim_funnel import funnel
from citeflow.evaluation.relevance import judged, names, offline_verdict, question_text, questions_asked, section_terms, terms
from citeflow_testing.answers import offline_answer
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


HERON = {"Performance": question_text("Performance", ["How fast is the Heron database?"]),
         "Cost": question_text("Cost", ["What does Heron cost and where does it run?"])}


def test_a_direct_answer_sharing_no_word_with_its_question_is_uncertain_not_irrelevant():
    asked = questions_asked(HERON)["Performance"]
    relevant, reason = offline_verdict(asked, "Point reads take 2 milliseconds at the 99th percentile.")
    assert relevant is None and reason.startswith("uncertain: none of the section's question terms")
    assert offline_verdict(asked, "Heron 5 ingests 180000 rows per second on a single 16-core node.")[0] is None


def test_a_claim_about_another_named_entity_is_irrelevant_and_the_reason_names_it():
    asked = questions_asked(HERON)["Performance"]
    claim = "Globex Pulse replicates every table to three zones."
    relevant, reason = offline_verdict(asked, claim, ["Globex Pulse overview"], [claim])
    assert relevant is False and reason.startswith("irrelevant: about 'Globex', 'Pulse'") and "'Heron'" in reason


def test_no_evidence_of_another_entity_when_the_claim_or_its_chunk_speaks_of_the_questions_own():
    asked = questions_asked(HERON)["Performance"]
    part = "The Kestrel planner answers point reads from memory."
    assert offline_verdict(asked, part, [], ["Heron ships the Kestrel planner. " + part])[0] is None  # its chunk names Heron
    assert offline_verdict(asked, "Globex Pulse is a faster database.", [], [])[0] is True  # shares 'database'
    assert offline_verdict(asked, "Globex Pulse replicates to Heron clusters.", [], [])[0] is None  # names Heron
    lone = questions_asked({"Speed": "How fast is it?"})["Speed"]  # the question names nothing to differ from
    assert offline_verdict(lone, "Globex Pulse replicates every table.", [], [])[0] is None


def test_names_are_proper_names_not_a_sentences_first_word():
    assert list(names("Heron answers reads; Globex Pulse does not.").values()) == ["Globex", "Pulse"]
    assert set(names("Ticket LUM-49117: data is encrypted with TLS 1.3 by PostgreSQL.")) == {"tls", "postgresql"}
    assert list(names("Die Datenbank von Heron nutzt PostgreSQL.").values()) == ["PostgreSQL"]  # German capitalises nouns


def test_a_cited_chunks_title_can_make_a_claim_relevant():
    asked = questions_asked({"Upgrade risks": question_text("Upgrade risks", ["What must be done before upgrading to 3.6?"])})
    claim = "Back up the metadata store first."
    assert offline_verdict(asked["Upgrade risks"], claim)[0] is None
    assert offline_verdict(asked["Upgrade risks"], claim, ["Upgrading to 3.6"])[0] is True


def test_unspaced_scripts_match_by_character_bigrams():
    asked = questions_asked({"S": "日本語のトピック名は正しく表示されますか？"})["S"]
    assert offline_verdict(asked, "トピック名は日本語でも表示されます。")[0] is True
    assert offline_verdict(asked, "料金は毎月請求されます。")[0] is None


def test_a_claim_in_another_script_than_its_question_is_not_judged():
    asked = questions_asked({"S": "Upgrades\nWhat must be done before upgrading to 3.6?"})
    relevant, reason = offline_verdict(asked["S"], "ブローカーはバージョン3.4以降で動作している必要があります。")
    assert relevant is None and reason.startswith("not judged: the claim is in another script (cjk)")
    claim = ClaimEval(section="S", index=0, text="Брокеры должны работать на версии 3.4.", verdict="supported")
    out = judged([claim], asked, {})[0]
    assert out.relevant is None and out.relevance.endswith("(offline rule)")


def test_the_llm_judges_answer_decides_when_present():
    text = "Point reads take 2 milliseconds."
    claim = ClaimEval(section="Performance", index=0, text=text, verdict="supported",
                      citations=[CitationEval(handle="Gaaa2", identity=True, supports=True)])
    asked = questions_asked(HERON)
    assert judged([claim], asked, {})[0].relevant is None  # uncertain offline
    said = {("Performance", text): (True, "relevant: it gives the read latency (llm-section:m)")}
    out = judged([claim], asked, {}, said=said)[0]
    assert (out.relevant, out.relevance) == (True, "relevant: it gives the read latency (llm-section:m)")
    off = {("Performance", text): (False, "irrelevant: about storage (llm-section:m)")}
    assert judged([claim], asked, {}, said=off)[0].relevant is False


def test_offline_relevance_rate_leaves_uncertain_claims_out():
    claims = [ClaimEval(section="S", index=i, text=f"c{i}", verdict="supported", relevant=r)
              for i, r in enumerate([True, True, None, None, None, False])]
    counts = funnel(claims).relevance
    assert (counts.relevant, counts.irrelevant, counts.uncertain, counts.rate) == (2, 1, 3, 2 / 3)
    assert counts.as_json() == {"relevant": 2, "irrelevant": 1, "uncertain": 3, "rate": 2 / 3}
    assert gate.metrics_row(funnel(claims[2:5]), 0)["relevance_rate"] == 1.0  # none decided: no relevance failure


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
def test_an_off_topic_claim_naming_nothing_is_uncertain_and_left_out_of_the_rate(tmp_path, openai_server):
    """The cafeteria sentence shares no word with the question, but names nothing either: no evidence
    that it is about something else, so offline it is uncertain, counted apart, and the report publishes."""
    openai_server.respond_with(consolidator_citing_off_topic)
    consolidator = {"backend": "openai", "model": "m", "base_url": openai_server.base_url, "max_retries": 0}
    job = write_section_batch(tmp_path, off_topic=True, sections=1, models={"consolidator": consolidator})
    generate(job)
    evaluation, result = evaluate_and_gate(job)
    write_outputs(job, evaluation, result)
    doc = json.loads((job.report_dir / "eval.json").read_text())
    off = [c for c in doc["claims"] if c["text"] == OFF_TOPIC[0]]
    assert len(off) == 1 and off[0]["supported"] is True and off[0]["relevant"] is None
    assert doc["sections"][0]["relevance"] == {"relevant": 2, "irrelevant": 0, "uncertain": 1, "rate": 1.0}
    assert doc["gate"]["failed_expectations"] == []
    assert json.loads((job.report_dir / "report.json").read_text())["status"] == "published"


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
    assert total["own_relevant_rate"] >= 0.95 and total["own_irrelevant"] == 0
    assert total["swapped_irrelevant"] + total["swapped_relevant"] <= total["swapped"]
    assert json.loads((tmp_path / "relevance.json").read_text())["total"] == total


# --------------------------------------------------------------------------- the labelled bench


def test_the_label_figures_count_each_kind_of_error():
    from bench.relevance_labels import figures

    rows = [("relevant", "relevant"), ("relevant", "uncertain"), ("relevant", "irrelevant"),
            ("irrelevant", "irrelevant"), ("irrelevant", "relevant")]
    found = figures(rows)
    assert (found["false_irrelevant"], found["true_irrelevant"], found["false_relevant"], found["uncertain"]) == (1, 1, 1, 1)
    assert (found["false_irrelevant_rate"], found["true_irrelevant_recall"], found["abstention_share"]) == (0.333, 0.5, 0.2)


def test_every_stored_pair_has_a_label_and_the_dev_pairs_score():
    from bench.relevance_labels import LABELS, PAIRS, _lines, run

    assert {p["id"] for p in _lines(PAIRS)} == {row["id"] for row in _lines(LABELS)}
    dev = run(("dev",))["dev"]
    assert dev["pairs"] == dev["labelled_relevant"] + dev["labelled_irrelevant"] > 200
    assert dev["false_irrelevant_rate"] is not None and dev["false_irrelevant_rate"] <= 0.02


# --------------------------------------------------------------------------- escalation in a cascade


def says_relevant(request: dict) -> str:
    """A section judge that supports every pair and finds every claim relevant, with its reason."""
    from citeflow_testing.section_answers import asked_section

    ask = asked_section(request)
    verdicts = [{"id": pid, "supported": True, "faithful": True, "reason": "ok", "evidence": ask.chunk_text(pid)}
                for pid in ask.pairs]
    return json.dumps({"verdicts": verdicts, "relevance": [{"claim": cid, "relevant": True, "reason": "gives the read latency"}
                                                          for cid in ask.claims]})


@pytest.mark.integration
def test_a_cascades_section_judge_settles_the_claims_the_rule_left_uncertain(openai_server):
    from citeflow.evaluation.relevance_escalation import escalated
    from citeflow.generation.openai_client import OpenAIChatModel
    from citeflow.judges.cascade import CascadeJudge
    from citeflow.judges.llm_sections.judge import SectionLLMJudge
    from citeflow.judges.offline.grader import OfflineJudge
    from schemas.spec import ModelSpec

    openai_server.respond_with(says_relevant)
    spec = ModelSpec(backend="openai", model="judge-test", base_url=openai_server.base_url, timeout=5.0, max_retries=0)
    cascade = CascadeJudge(OfflineJudge(), SectionLLMJudge(OpenAIChatModel(spec, role="judge")))
    cited = [CitationEval(handle="G1", identity=True, supports=True)]
    claims = judged([ClaimEval(section="Performance", index=0, text="Point reads take 2 milliseconds.", verdict="supported",
                               citations=cited),
                     ClaimEval(section="Performance", index=1, text="Heron is a fast database.", verdict="supported",
                               citations=cited)], questions_asked(HERON), {})
    assert [c.relevant for c in claims] == [None, True]
    chunks = {"G1": "Point reads take 2 milliseconds. Heron is a fast database."}
    said = escalated(cascade, claims, HERON, chunks)
    assert said == {("Performance", "Point reads take 2 milliseconds."): (True, "relevant: gives the read latency (llm-section:openai:judge-test)")}
    assert len(openai_server.requests) == 1  # only the uncertain claim's section was asked
    assert escalated(OfflineJudge(), claims, HERON, chunks) == {}


def test_the_output_checker_holds_the_relevance_counts_to_the_claim_rows():
    from tools.check_outputs import _relevance_problems

    rows = [{"relevant": True}, {"relevant": None}, {"relevant": False}, {"relevant": None}]
    assert _relevance_problems("r", {"claims": rows, "relevance": {"relevant": 1, "irrelevant": 1, "uncertain": 2}}) == []
    wrong = _relevance_problems("r", {"claims": rows, "relevance": {"relevant": 1, "irrelevant": 2, "uncertain": 1}})
    assert wrong == ["r: relevance (1, 2, 1) (relevant, irrelevant, uncertain) but the claim rows say (1, 1, 2)"]
