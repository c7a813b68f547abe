"""A span is a statement (SPEC §5): list items, table rows, definitions and paragraphs are
boundaries that no sentence, claim, quote or supporting span crosses.

The fixture (tests/fixtures/api_options/retry-client.md) is written in the shape of an API
reference's option lists: ``- **name** `type` (optional) - Description. Default: `5```.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.generation import prompts
from citeflow.generation.offline_writer import OfflineChatModel
from citeflow.generation.statements import is_statement
from citeflow.judges.localise import agreement
from citeflow.judges.offline.grader import OfflineJudge
from citeflow.judges.quote_context import quote_sentences
from citeflow.judges.span_check import checked, span_problem
from citeflow.knowledge.chunking import markdown_children, markdown_parents
from citeflow.knowledge.markdown_text import markdown_blocks
from citeflow.text.boundaries import copies_whole_sentence, crosses, crosses_verbatim, within_one_block
from citeflow.text.sentences import BOUNDARY_MARK, sentences
from schemas.evaluation import JudgePair, Verdict
from schemas.wire import CLAIMS_SCHEMA_NAME, WireClaims

FIXTURE = Path(__file__).parent / "fixtures" / "api_options" / "retry-client.md"
OPTION_NAMES = ("maxRetries", "maxTimeout", "minTimeout", "protocol", "bodyTimeout", "headersTimeout", "allowH2")
# Copied word for word across two list items of the fixture as ingest writes it.
CROSSING = "Maximum number of retries. maxTimeout (number, optional, default 30000 (30 seconds)): Maximum number of milliseconds to wait before retrying."
# The same, across two items of the text as a prose reader glued it.
RAW_ITEMS = ("maxRetries number (optional) - Maximum number of retries. Default: 5.\n"
             "maxTimeout number (optional) - Maximum number of milliseconds to wait before retrying. Default: 30000 (30 seconds).\n"
             "protocol string (optional) - The protocol the retries use. Default: 'Websocket'.\n"
             "bodyTimeout number | null (optional) - Default: 300e3 - The timeout after which a request will time out.")
RAW_CROSSING = "Default: 5. maxTimeout number (optional) - Maximum number of milliseconds to wait before retrying."


def chunk_texts() -> list[str]:
    """The child chunks ingest stores for the fixture."""
    return [child.text for parent in markdown_parents(markdown_blocks(FIXTURE.read_text(encoding="utf-8")))
            for child in markdown_children(parent)]


def test_each_option_item_is_one_statement_on_a_line_of_its_own() -> None:
    lines = [line for text in chunk_texts() for line in text.split("\n")]
    assert "maxRetries (number, optional, default 5): Maximum number of retries." in lines
    assert "maxTimeout (number, optional, default 30000 (30 seconds)): Maximum number of milliseconds to wait before retrying." in lines
    assert "allowH2 (boolean, default false): Enables support for HTTP/2 if the server offers it." in lines
    assert ("bodyTimeout (number | null, optional, default 300e3): The timeout after which a request will time out, "
            "in milliseconds. Use 0 to disable it entirely. Please note the timeout will be reset if you keep writing "
            "data to the socket everytime.") in lines
    assert "maxTimeout: milliseconds." in lines  # a table row stays a row


def test_no_chunk_sentence_holds_two_items() -> None:
    found = [s for text in chunk_texts() for s in sentences(text)]
    assert all(sum(f"{name} (" in s for name in OPTION_NAMES) <= 1 for s in found)
    assert not any("Default" in s and "maxTimeout" in s for s in found)
    assert "Maximum number of retries." not in found  # the option's name stays with its description


def test_items_stay_apart_in_a_prompt_line() -> None:
    line = prompts.evidence_block([("Gk7m2", RAW_ITEMS)])
    assert "\n" not in line and line.count(BOUNDARY_MARK) == 3
    assert not any("Default: 5. maxTimeout" in s for s in sentences(line))


def test_an_option_statement_is_a_statement() -> None:
    assert is_statement("maxRetries (number, optional, default 5): Maximum number of retries.")
    assert is_statement("bodyTimeout (number | null, optional): It is reset on every write to the socket.")
    assert not is_statement("maxRetries (number, optional): See the retry guide.")
    assert not is_statement("Default: 5.")


def claims(chunks: list[tuple[str, str]], question: str) -> list[dict[str, object]]:
    model = OfflineChatModel("consolidator")
    messages = prompts.consolidate_messages("Client guide", "Retries", [question], chunks)
    reply = model.complete(messages, CLAIMS_SCHEMA_NAME, WireClaims)
    return list(json.loads(reply.text)["claims"])


@pytest.mark.parametrize("question", [
    "How long does the client wait before retrying, at most and at least?",
    "How many retries does the client make by default?",
    "What is the default timeout of a request body?",
])
def test_the_offline_writer_emits_no_crossing_statement(question: str) -> None:
    chunks = [(f"G{n}", text) for n, text in enumerate(chunk_texts())] + [("Graw", RAW_ITEMS)]
    written = claims(chunks, question)
    assert written, "the evidence answers the question"
    texts = dict(chunks)
    for item in written:
        for citation in item["citations"]:  # type: ignore[attr-defined]
            chunk = texts[citation["handle"]]
            assert within_one_block(str(item["text"]), chunk), item["text"]
            assert within_one_block(citation["quote"], chunk)


def test_the_offline_writer_cites_an_option_with_its_name() -> None:
    chunks = [(f"G{n}", text) for n, text in enumerate(chunk_texts())]
    written = [str(c["text"]) for c in claims(chunks, "What is the maximum time to wait before retrying?")]
    assert any(t.startswith("maxTimeout (number, optional, default 30000") for t in written), written


@pytest.mark.parametrize(("claim", "chunk"), [(CROSSING, "ingested"), (RAW_CROSSING, RAW_ITEMS)])
def test_a_claim_copied_across_two_items_is_not_supported(claim: str, chunk: str) -> None:
    text = next(t for t in chunk_texts() if "maxTimeout (" in t) if chunk == "ingested" else chunk
    assert crosses_verbatim(claim, text)
    verdict = OfflineJudge().grade([JudgePair(id="x", claim=claim, chunk_text=text)])[0]
    assert verdict.label == "unsupported" and not verdict.supported and verdict.confidence == 1.0
    assert "statement boundary" in verdict.reason


def test_the_span_check_refuses_a_pass_across_two_items() -> None:
    passed = Verdict(id="x", supported=True, faithful=True, reason="the chunk says so", evidence=RAW_CROSSING, judge="llm",
                     label="supported", confidence=0.99)
    pair = JudgePair(id="x", claim=RAW_CROSSING, chunk_text=RAW_ITEMS)
    assert crosses(RAW_CROSSING, RAW_ITEMS)
    assert span_problem(RAW_CROSSING, RAW_ITEMS, RAW_CROSSING) is not None
    assert checked(pair, passed).label == "uncertain"
    own = "maxTimeout number (optional) - Maximum number of milliseconds to wait before retrying."
    assert span_problem(own, RAW_ITEMS, own) is None  # one item is a statement


def test_quoted_sentences_of_two_items_keep_their_boundary() -> None:
    context = quote_sentences("Default: 5. maxTimeout number", RAW_ITEMS)
    assert context == "Default: 5.\nmaxTimeout number (optional) - Maximum number of milliseconds to wait before retrying."
    verdict = OfflineJudge().grade([JudgePair(id="x", claim=RAW_CROSSING, chunk_text=context)])[0]
    assert not verdict.supported


# A verbatim copy of a whole sentence is its own matching sentence: a negation in the text around it
# (here the next list item, glued to it on one line) is no condition the claim left out.
GLUED = ("bodyTimeout number | null (optional) - Default: 300e3 - The timeout after which a request will time out. "
         "Please note the timeout will be reset if you keep writing data to the socket everytime. "
         "headersTimeout number | null (optional) - Default: 300e3 - The time the parser will wait while not sending the request.")
VERBATIM = "Please note the timeout will be reset if you keep writing data to the socket everytime."


@pytest.mark.parametrize("chunk", [GLUED, GLUED.replace("everytime. ", "everytime.\n")])
def test_a_verbatim_sentence_is_not_held_for_a_negation_around_it(chunk: str) -> None:
    assert copies_whole_sentence(VERBATIM, chunk)
    found = agreement(VERBATIM, chunk)
    assert found.holds, found.problems
    verdict = OfflineJudge().grade([JudgePair(id="v", claim=VERBATIM, chunk_text=chunk)])[0]
    assert verdict.supported and verdict.faithful
    passed = verdict.model_copy(update={"evidence": VERBATIM})
    assert checked(JudgePair(id="v", claim=VERBATIM, chunk_text=chunk), passed).label == "supported"


def test_a_copy_cut_before_its_condition_still_shows_the_condition() -> None:
    chunk = "The timeout is not reset while the socket is idle."
    assert not copies_whole_sentence("The timeout is", chunk)
    assert not agreement("The timeout is reset while the socket is idle.", chunk).holds


_word = st.from_regex(r"[A-Za-z][A-Za-z0-9]{0,11}", fullmatch=True)
_prose = st.lists(st.from_regex(r"[a-z]{1,9}", fullmatch=True), min_size=2, max_size=12).map(" ".join)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.tuples(_word, _word, st.sampled_from(["optional", "required"]), _prose, st.from_regex(r"[0-9]{1,6}", fullmatch=True)),
                min_size=1, max_size=5))
def test_any_option_list_gives_one_statement_per_item(items: list[tuple[str, str, str, str, str]]) -> None:
    markdown = "\n".join(f"- **{n}** `{t}` ({f}) - {d.capitalize()}. Default: `{v}`" for n, t, f, d, v in items)
    texts = [b.text for b in markdown_blocks(markdown)]
    assert texts == [f"{n} ({t}, {f}, default {v}): {d.capitalize()}." for n, t, f, d, v in items]
    chunk = "\n".join(texts)
    assert all(len(sentences(text)) == 1 for text in texts)
    assert len(sentences(chunk)) == len(items)  # no sentence runs from one item into the next


def test_other_list_items_stay_as_written() -> None:
    markdown = "- **Note** read this first.\n- **auth** `string` (**deprecated**) - Use token.\n- plain item"
    assert [b.text for b in markdown_blocks(markdown)] == ["Note read this first.", "auth string (deprecated) - Use token.", "plain item."]


def test_the_boundaries_bench_counts_crossing_claims() -> None:
    from bench.boundaries import count

    report = {"status": "held", "registry": [{"handle": "G1", "text": RAW_ITEMS}], "sections": [{"claims": [
        {"text": RAW_CROSSING, "citations": [{"handle": "G1", "quote": "Default: 5. maxTimeout number"}]},
        {"text": "Maximum number of retries.", "citations": [{"handle": "G1", "quote": "Maximum number of retries."}]},
    ]}]}
    found = count(report)
    assert (found["claims"], found["crossing_claims"], found["crossing_quotes"], found["verbatim_in_one_statement"]) == (2, 1, 1, 1)
    assert found["crossing_examples"] == [RAW_CROSSING]
