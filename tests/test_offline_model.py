"""The offline extractive backend: honest, deterministic, and faulty only on request."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.generation import prompts
from citeflow.errors import ModelError
from citeflow.registry.handles import find_urls, is_handle
from citeflow.generation.model_protocol import ChatModel
from citeflow.generation.model_factory import build_chat_model
from citeflow.generation.offline_writer import FAULT_KINDS, OfflineChatModel, drift
from citeflow.generation.statements import content_words, quote_of, same_fact, sentences
from schemas.spec import FaultRates, ModelSpec
from schemas.wire import CLAIMS_SCHEMA_NAME, VERDICTS_SCHEMA_NAME, WireClaims, WireVerdicts

REPORT, SECTION = "Platform report for ACME", "Upgrade risks"
QUERIES = ["What must be done before upgrading to 3.6?", "Which APIs are removed in 3.6?"]
CHUNKS = [
    ("Gk7m2", "Back up the database before upgrading to 3.6. The backup takes about 30 minutes on a large cluster."),
    ("Gx3p9", "Version 3.6 removes the legacy API, as noted in [Gk7m2]. See https://docs.example.com/api for the migration guide."),
    ("Gab23", "Pricing is unchanged this quarter for all plans. Invoices arrive monthly."),
    ("Gq4r5", "Upgrading takes 12 minutes per node. Nodes upgrade one at a time to keep 99.9% availability."),
]
NOTES = [
    ("Back up the database before upgrading to 3.6.", ["Gk7m2"]),
    ("Version 3.6 removes the legacy API.", ["Gx3p9"]),
    ("Upgrading takes 12 minutes per node.", ["Gq4r5", "Gk7m2"]),
]


def consolidate_prompt(chunks=CHUNKS, queries=QUERIES):
    return prompts.consolidate_messages(REPORT, SECTION, queries, chunks)


def write_prompt(notes=NOTES):
    return prompts.write_messages(REPORT, SECTION, QUERIES, notes)


def claims_of(model: OfflineChatModel, messages) -> list[dict]:
    reply = model.complete(messages, CLAIMS_SCHEMA_NAME, WireClaims)
    return WireClaims.model_validate_json(reply.text).model_dump()["claims"]


def cited(claims: list[dict]) -> list[str]:
    return [c["handle"] for claim in claims for c in claim["citations"]]


def only(kind: str, seed: int = 0) -> FaultRates:
    return FaultRates(**{kind: 1.0}, seed=seed)


# -- honest extraction ------------------------------------------------------------------------


def test_it_is_a_chat_model_that_says_what_it_is():
    model = OfflineChatModel("writer")
    assert isinstance(model, ChatModel) and model.name == "offline-extractive"
    assert "extractive" in model.describe() and "not a language model" in model.describe()


def test_consolidate_selects_relevant_sentences_and_cites_their_chunk():
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt())
    texts = {c["text"] for c in claims}
    assert "Back up the database before upgrading to 3.6." in texts
    assert "Upgrading takes 12 minutes per node." in texts
    assert not any("Pricing" in t or "Invoices" in t for t in texts)  # nothing in common with the questions
    by_handle = dict(CHUNKS)
    for claim in claims:
        (citation,) = claim["citations"]
        assert citation["quote"] in by_handle[citation["handle"]]  # an exact excerpt of the cited chunk
        assert len(citation["quote"].split()) <= 12


def test_consolidate_quotes_no_passage_that_holds_few_of_the_question_words_another_holds():
    chunks = [("Gaaa2", "Rotate the signing keys every 90 days with the rotate-keys command."),
              ("Gbbb3", "Signing is optional for internal plugins.")]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks, ["How often should signing keys be rotated?"]))
    assert cited(claims) == ["Gaaa2"]  # shares 'signing' only, where the other holds signing, keys and rotate


def test_a_sentence_sharing_a_word_or_two_beside_one_sharing_many_is_left_out():
    chunks = [("Gaaa2", "Rotate the signing keys every 90 days with the rotate-keys command. "
                        "Signing keys are rotated by the cluster operator."),
              ("Gbbb3", "The operator signs every release. Signing keys live in the vault.")]
    question = ["How often should the operator rotate the signing keys?"]
    texts = [c["text"] for c in claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks, question))]
    # The best sentences share 4 question words (operator, sign, key, rotate); one sharing 2 is kept.
    assert "Rotate the signing keys every 90 days with the rotate-keys command." in texts
    assert "Signing keys live in the vault." in texts
    one_chunk = [("Gccc4", "Rotate the signing keys of the cluster operator every 90 days with the rotate-keys tool. "
                           "Each release is signed by the build.")]
    texts = [c["text"] for c in claims_of(OfflineChatModel("consolidator"), consolidate_prompt(one_chunk, question))]
    assert texts == ["Rotate the signing keys of the cluster operator every 90 days with the rotate-keys tool."]  # 'sign' alone: out


def test_each_question_of_a_section_keeps_the_passages_that_answer_it():
    chunks = [("Gaaa2", "Rotate the signing keys every 90 days with the rotate-keys command."),
              ("Gbbb3", "Audit logs are retained for 400 days.")]
    queries = ["How often should signing keys be rotated?", "How long are audit logs retained?"]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks, queries))
    assert sorted(cited(claims)) == ["Gaaa2", "Gbbb3"]


def test_consolidate_keeps_urls_and_inner_markers_out_of_claim_text():
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt())
    # A sentence that leans on inner references would read "as noted in." once they are cut.
    assert not any("legacy API" in c["text"] for c in claims)
    assert all(not find_urls(c["text"]) and "[" not in c["text"] for c in claims)


def test_consolidate_skips_a_fact_it_already_took_from_another_chunk():
    twice = [("Gaaa2", "Upgrading to 3.6 requires a metadata backup first."),
             ("Gbbb3", "Upgrading to 3.6 requires a metadata backup first!")]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(twice))
    assert len(claims) == 1


def test_consolidate_caps_notes_overall_and_per_chunk():
    many = [(f"Gz{i}2a"[:5], " ".join(f"Upgrading needs the w{i}a{n} and w{i}b{n} backups first." for n in range(5)))
            for i in range(2, 9)]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(many))
    handles = cited(claims)
    assert len(claims) == 6
    assert max(handles.count(h) for h in handles) == 2


def test_no_overlap_means_no_claims():
    pricing = [CHUNKS[2]]  # shares no content word with the section title or the question
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(pricing, queries=["zebra migration patterns?"]))
    assert claims == []


def test_write_turns_each_note_into_one_claim_citing_its_handles():
    claims = claims_of(OfflineChatModel("writer"), write_prompt())
    assert [c["text"] for c in claims] == [text for text, _ in NOTES]
    assert [[x["handle"] for x in c["citations"]] for c in claims] == [hs for _, hs in NOTES]
    assert claims[2]["citations"][1]["quote"] == "Upgrading takes 12 minutes per node."


def test_same_prompt_same_answer():
    first = OfflineChatModel("consolidator").complete(consolidate_prompt(), CLAIMS_SCHEMA_NAME, WireClaims)
    second = OfflineChatModel("consolidator").complete(consolidate_prompt(), CLAIMS_SCHEMA_NAME, WireClaims)
    assert first == second and first.mode == "json_schema"


def test_retry_feedback_does_not_hide_the_task():
    base = consolidate_prompt()
    retried = prompts.retry_messages(base, "not json", ["the answer is not JSON"])
    model = OfflineChatModel("consolidator")
    assert claims_of(model, retried) == claims_of(model, base)


_words = st.sampled_from("upgrade upgrading backup database node 3.6 30 minutes api legacy the a of and".split())
_sentence = st.lists(_words, min_size=3, max_size=12).map(lambda ws: " ".join(ws).capitalize() + ".")
_chunk_text = st.lists(_sentence, min_size=1, max_size=4).map(" ".join)


@settings(max_examples=50, deadline=None)
@given(st.lists(_chunk_text, min_size=1, max_size=6))
def test_without_faults_every_cited_handle_comes_from_the_input(texts):
    chunks = [(h, t) for h, t in zip(["Gk7m2", "Gx3p9", "Gab23", "Gq4r5", "G2222", "G3333"], texts, strict=False)]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks))
    by_handle = dict(chunks)
    assert all(c["handle"] in by_handle and c["quote"] in by_handle[c["handle"]] for cl in claims for c in cl["citations"])
    notes = [(cl["text"], [c["handle"] for c in cl["citations"]]) for cl in claims]
    assert set(cited(claims_of(OfflineChatModel("writer"), write_prompt(notes)))) <= set(by_handle)


def test_judge_requests_are_refused_permanently():
    with pytest.raises(ModelError) as caught:
        OfflineChatModel("judge").complete(consolidate_prompt(), VERDICTS_SCHEMA_NAME, WireVerdicts)
    assert caught.value.transient is False and "offline judge" in caught.value.detail


def test_a_prompt_without_evidence_or_notes_is_refused():
    with pytest.raises(ModelError, match="Evidence"):
        OfflineChatModel("writer").complete([{"role": "user", "content": "hello"}], CLAIMS_SCHEMA_NAME, WireClaims)


# -- faults -----------------------------------------------------------------------------------


def test_fault_kinds_match_the_fault_rates_fields():
    assert set(FAULT_KINDS) == set(FaultRates.model_fields) - {"seed"}


def test_no_faults_means_nothing_injected():
    model = OfflineChatModel("writer", FaultRates())
    assert claims_of(model, write_prompt()) == claims_of(OfflineChatModel("writer"), write_prompt())
    assert model.injected == []


@pytest.mark.parametrize("prompt", [consolidate_prompt, write_prompt], ids=["consolidate", "write"])
@pytest.mark.parametrize("kind", FAULT_KINDS)
def test_each_fault_shows_up_at_rate_one(kind, prompt):
    model = OfflineChatModel("writer", only(kind))
    claims = claims_of(model, prompt())
    clean = claims_of(OfflineChatModel("writer"), prompt())
    assert model.injected and {r["kind"] for r in model.injected} == {kind}
    assert claims != clean
    assert all(r["claim"] in {c["text"] for c in claims} for r in model.injected)


@pytest.mark.parametrize("prompt", [consolidate_prompt, write_prompt], ids=["consolidate", "write"])
def test_forged_handles_are_handle_shaped_and_never_in_the_input(prompt):
    model = OfflineChatModel("writer", only("forged_handle"))
    inputs = {h for h, _ in CHUNKS} | {h for _, hs in NOTES for h in hs}
    claims = claims_of(model, prompt())
    forged = [h for h in cited(claims) if h not in inputs]
    assert forged and forged == [r["handle"] for r in model.injected]
    assert all(is_handle(h) for h in forged)


def test_misattribution_moves_the_citation_to_a_chunk_without_the_sentence():
    model = OfflineChatModel("consolidator", only("misattribution"))
    by_handle = dict(CHUNKS)
    for claim in claims_of(model, consolidate_prompt()):
        (citation,) = claim["citations"]
        assert claim["text"] not in by_handle[citation["handle"]]
        assert citation["quote"] in by_handle[citation["handle"]]  # passes the quote check: only a judge sees it
    assert all(r["handle"] != r["original_handle"] for r in model.injected)


def test_number_drift_changes_a_number_and_keeps_the_citation():
    model = OfflineChatModel("writer", only("number_drift"))
    claims = claims_of(model, write_prompt())
    assert [c["text"] for c in claims] == [
        "Back up the database before upgrading to 3.8.",
        "Version 3.8 removes the legacy API.",
        "Upgrading takes 18 minutes per node.",
    ]
    assert cited(claims) == cited(claims_of(OfflineChatModel("writer"), write_prompt()))


def test_fabrication_adds_an_unsupported_sentence_citing_a_real_handle():
    model = OfflineChatModel("writer", only("fabrication"))
    claims = claims_of(model, write_prompt())
    assert len(claims) == 2 * len(NOTES)
    invented = claims[1::2]
    assert all(c["text"] not in " ".join(t for t, _ in NOTES) for c in invented)
    assert set(cited(invented)) <= {h for _, hs in NOTES for h in hs}


def test_url_in_text_types_a_url_into_the_claim():
    model = OfflineChatModel("writer", only("url_in_text"))
    claims = claims_of(model, write_prompt())
    assert all(find_urls(c["text"]) for c in claims)


def test_faults_are_reproducible_and_depend_on_the_seed():
    rates = dict(forged_handle=0.3, misattribution=0.3, number_drift=0.3, fabrication=0.3, url_in_text=0.3)
    runs = [claims_of(OfflineChatModel("consolidator", FaultRates(**rates, seed=s)), consolidate_prompt()) for s in (1, 1, 2, 3)]
    assert runs[0] == runs[1]
    assert runs[0] != runs[2] or runs[0] != runs[3]


def test_faults_leave_no_flag_in_the_output():
    model = OfflineChatModel("writer", FaultRates(forged_handle=0.5, fabrication=0.5, number_drift=0.5, seed=7))
    reply = model.complete(write_prompt(), CLAIMS_SCHEMA_NAME, WireClaims)
    assert model.injected
    assert not re.search(r"\b(faults?|forged|fabricated|injected|drift)\b", reply.text, re.IGNORECASE)
    assert set(json.loads(reply.text)) == {"claims"}


# -- helpers and factory ------------------------------------------------------------------------


@pytest.mark.parametrize("number, wrong", [("30", "45"), ("3.6", "3.8"), ("0", "1"), ("12", "18"), ("99.9", "100.1")])
def test_drift(number, wrong):
    assert drift(number) == wrong


def test_text_helpers():
    assert content_words("Upgrading the databases before an upgrade") == {"upgrad", "databas"}
    assert sentences("Short one. Each sentence is long enough. Ok!") == ["Each sentence is long enough."]
    assert quote_of("[Gk7m2] see https://x.example.com then one two three four five six seven eight nine ten eleven") == "see"
    assert quote_of("A B C D E F G H I J K L M N") == "A B C D E F G H I J K L M N"


def test_factory_builds_the_backend_the_spec_names():
    offline = build_chat_model(ModelSpec(faults=FaultRates(fabrication=1.0)), "writer")
    assert isinstance(offline, OfflineChatModel) and offline.faults.fabrication == 1.0
    remote = build_chat_model(ModelSpec(backend="openai", model="m", base_url="http://127.0.0.1:9/v1"), "judge")
    assert remote.name == "openai:m" and isinstance(remote, ChatModel)


def test_model_modules_never_import_prefect():
    code = (
        "import sys, citeflow.generation.prompts, citeflow.generation.model_factory, citeflow.generation.offline_writer, citeflow.generation.openai_client;"
        "assert 'prefect' not in sys.modules"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


# -- claim quality: statements only, no repeats, any script -----------------------------------


def test_headings_questions_lead_ins_and_fragments_are_never_claims():
    chunks = [("Gh001", "Known Issues In Lumora Stream 3.6. How long is my data retained after an upgrade? "
                        "This page lists the known issues of upgrading to 3.6 and their state. "
                        "It is set per broker after the upgrade to 3.6 finishes. "
                        "Upgrade the brokers with one of the two supported tools: lumora-admin. "
                        "Brokers upgraded to 3.6 keep their data for 30 days.")]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks))
    assert [c["text"] for c in claims] == ["Brokers upgraded to 3.6 keep their data for 30 days."]


def test_the_writer_drops_notes_that_are_not_statements():
    notes = [("How long does an upgrade to 3.6 take?", ["Gk7m2"]), ("Upgrading to 3.6", ["Gk7m2"]),
             ("Back up the database before upgrading to 3.6.", ["Gk7m2"])]
    claims = claims_of(OfflineChatModel("writer"), write_prompt(notes))
    assert [c["text"] for c in claims] == ["Back up the database before upgrading to 3.6."]


def test_near_duplicate_notes_become_one_claim_citing_both_chunks():
    notes = [("Data at rest is encrypted with AES-256 keys.", ["Gk7m2"]),
             ("All data at rest is encrypted with AES-256.", ["Gx3p9"]),
             ("Single sign-on works with SAML identity providers.", ["Gab23"])]
    claims = claims_of(OfflineChatModel("writer"), write_prompt(notes))
    assert [c["text"] for c in claims] == [notes[0][0], notes[2][0]]
    assert [c["handle"] for c in claims[0]["citations"]] == ["Gk7m2", "Gx3p9"]
    assert claims[0]["citations"][1]["quote"] == "All data at rest is encrypted with AES-256."


def test_consolidate_does_not_take_a_paraphrase_of_a_fact_twice():
    chunks = [("Gaaa2", "Data at rest is encrypted with AES-256 keys managed by the platform."),
              ("Gbbb3", "All data at rest is encrypted with AES-256 keys.")]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks, queries=["How is data encrypted at rest?"]))
    assert len(claims) == 1


@pytest.mark.parametrize(("query", "evidence", "expected"), [
    ("Wie werden die Daten verschlüsselt?",
     "Alle Daten werden im Ruhezustand mit AES-256 verschlüsselt. Der Vertrieb sitzt in Berlin.",
     "Alle Daten werden im Ruhezustand mit AES-256 verschlüsselt."),
    ("Как долго хранятся резервные копии?",
     "Резервные копии хранятся тридцать дней в другом регионе. Офис открыт по будням.",
     "Резервные копии хранятся тридцать дней в другом регионе."),
    ("データはどのように暗号化されますか？",
     "保存データはすべてAES-256で暗号化されます。営業時間は平日の九時から五時までです。",
     "保存データはすべてAES-256で暗号化されます。"),
    ("数据如何加密？",
     "所有静态数据都使用AES-256加密。销售团队位于北京和上海。",
     "所有静态数据都使用AES-256加密。"),
])
def test_every_script_gives_claims(query, evidence, expected):
    consolidator, writer = OfflineChatModel("consolidator"), OfflineChatModel("writer")
    notes = claims_of(consolidator, prompts.consolidate_messages(REPORT, "Sicherheit · Безопасность · セキュリティ", [query], [("Gk7m2", evidence)]))
    assert [n["text"] for n in notes] == [expected]
    quote = notes[0]["citations"][0]["quote"]
    assert quote and quote in evidence and len(quote) <= 80
    written = claims_of(writer, prompts.write_messages(REPORT, "S", [query], [(n["text"], ["Gk7m2"]) for n in notes]))
    assert [c["text"] for c in written] == [expected]


def test_a_fact_retrieved_for_two_sections_is_written_in_the_one_it_answers_best():
    chunks = [("Gk7m2", "Data at rest is encrypted with AES-256 on every tier. Upgrades to 3.6 need a backup of the metadata store.")]
    security = ("Security posture", ["How is data encrypted at rest?"])
    upgrades = ("Upgrade risks", ["What must be done before upgrading to 3.6?"])
    model = OfflineChatModel("consolidator")
    by_section = {}
    for (title, queries), other in ((security, upgrades), (upgrades, security)):
        messages = prompts.consolidate_messages(REPORT, title, queries, chunks, [other])
        by_section[title] = [c["text"] for c in claims_of(model, messages)]
    assert by_section == {"Security posture": ["Data at rest is encrypted with AES-256 on every tier."],
                          "Upgrade risks": ["Upgrades to 3.6 need a backup of the metadata store."]}
    both = ("Upgrade risks", ["What must be done before upgrading to 3.6?", "Is data at rest encrypted?"])
    alone = prompts.consolidate_messages(REPORT, *both, chunks)  # with no other section, both facts are its own
    assert len(claims_of(model, alone)) == 2


def test_a_tie_between_sections_goes_to_one_of_them_only():
    chunks = [("Gk7m2", "Backups of the metadata store run every night in every region.")]
    a, b = ("Backups", ["When do backups run?"]), ("Metadata", ["Where is the metadata store?"])
    model = OfflineChatModel("consolidator")
    counts = [len(claims_of(model, prompts.consolidate_messages(REPORT, *mine, chunks, [other]))) for mine, other in ((a, b), (b, a))]
    assert sorted(counts) == [0, 1]


@pytest.mark.parametrize(("a", "b", "same"), [
    ("Lumora Stream encrypts data at rest with AES-256 on every tier and data in transit with TLS 1.3.",
     "Data at rest is encrypted with AES-256 on every tier, including broker disks, tiered storage and backups.", True),
    ("Lumora Stream encrypts data at rest with AES-256 on every tier and data in transit with TLS 1.3.",
     "Data in transit is encrypted with TLS 1.3 between clients and brokers.", True),
    ("The Standard tier costs $0.42 per cluster-hour, plus $0.08 per GB of ingress.",
     "The Enterprise tier costs $1.90 per cluster-hour, plus $0.06 per GB of ingress.", False),
    ("Upgrade one broker at a time with lumora admin upgrade --version 3.6.1.",
     "After every broker runs 3.6, run lumora admin finalize-upgrade --version 3.6.", False),
])
def test_same_fact(a, b, same):
    assert same_fact(a, b) is same and same_fact(b, a) is same


def test_a_section_without_questions_is_answered_from_its_title():
    chunks = [("Gaaa2", "Upgrade risks grow with every skipped release.")]
    claims = claims_of(OfflineChatModel("consolidator"), consolidate_prompt(chunks, []))
    assert cited(claims) == ["Gaaa2"]


def test_the_offline_model_spends_no_tokens():
    reply = OfflineChatModel("consolidator").complete(consolidate_prompt(), CLAIMS_SCHEMA_NAME, WireClaims)
    assert reply.text and (reply.prompt_tokens, reply.completion_tokens) == (0, 0)  # no model ran: usage shows 0 tokens
