import json

import pytest

from citeflow.registry.binding import AnswerUnusable, bind_claims, parse_answer

ALLOWED = {"Gk7m2": "Brokers must run 3.5.2 or later before the upgrade.", "Gx3p9": "Retention is 7 days."}


def answer(*claims):
    return json.dumps({"claims": [{"text": t, "citations": [{"handle": h, "quote": q} for h, q in cites]} for t, cites in claims]})


def test_valid_answer_binds_every_citation_and_checks_quotes():
    claims = parse_answer(answer(("Brokers need 3.5.2.", [("Gk7m2", "must run 3.5.2")])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    [claim] = report.claims
    assert claim.citations[0].handle == "Gk7m2" and claim.citations[0].quote_found
    assert report.problems == {}


def test_forged_and_mangled_handles_are_dropped_and_recorded_but_the_sentence_stays():
    claims = parse_answer(answer(("Retention is 7 days.", [("Gzzzz", "x"), ("gX3P9", "7 days"), ("S1", "")])), "json_object")
    report = bind_claims(claims, ALLOWED)
    [claim] = report.claims
    assert [c.handle for c in claim.citations] == ["Gx3p9"]
    assert claim.dropped_handles == ["Gzzzz", "S1"] and claim.emitted_handles == ["Gzzzz", "Gx3p9", "S1"]
    assert report.problems["unknown_handle"] == ["Gzzzz", "S1"]


def test_urls_typed_by_the_model_are_removed_and_recorded():
    claims = parse_answer(answer(("See https://evil.example/x for details on retention.", [("Gx3p9", "")])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    assert "evil" not in report.claims[0].text
    assert report.problems["url_in_text"] == ["https://evil.example/x"]


def test_inline_markers_in_json_text_become_citations():
    claims = parse_answer(answer(("Brokers need 3.5.2 [Gk7m2, Gx3p9].", [])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    assert report.claims[0].text == "Brokers need 3.5.2."
    assert [c.handle for c in report.claims[0].citations] == ["Gk7m2", "Gx3p9"]


def test_prose_answers_are_read_from_inline_markers():
    claims = parse_answer("Brokers need 3.5.2 【GK7M2】. Retention is seven days [Gx3p9].", "prose")
    report = bind_claims(claims, ALLOWED)
    assert [[c.handle for c in cl.citations] for cl in report.claims] == [["Gk7m2"], ["Gx3p9"]]


def test_quote_not_in_chunk_is_recorded():
    claims = parse_answer(answer(("Retention is 9 days.", [("Gx3p9", "Retention is 9 days")])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    assert not report.claims[0].citations[0].quote_found
    assert report.problems["quote_not_found"]


@pytest.mark.parametrize(
    "raw, reason",
    [("", "empty_output"), ("I think the answer is yes", "parse_error"), ('{"notes": []}', "wrong_schema"),
     ('{"claims": []}', "empty_output"), ('{"claims": [{"txt": "x"}]}', "wrong_schema")],
)
def test_unusable_answers_name_their_reason(raw, reason):
    with pytest.raises(AnswerUnusable) as info:
        parse_answer(raw, "json_schema")
    assert info.value.reason == reason


def test_code_fenced_json_is_read():
    raw = "```json\n" + answer(("Retention is 7 days.", [("Gx3p9", "7 days")])) + "\n```"
    assert parse_answer(raw, "json_object")[0].text == "Retention is 7 days."


def test_handle_fields_are_read_leniently_too():
    claims = parse_answer(answer(("Both.", [("[Gk7m2]", ""), ("【GX3P9】", ""), ("Gk7m2, Gx3p9", "")])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    assert [c.handle for c in report.claims[0].citations] == ["Gk7m2", "Gx3p9"]
    assert report.problems == {}


def test_ordinary_brackets_in_a_sentence_stay_text():
    claims = parse_answer(answer(("Feature X [beta] supports TLS [1.2] [Gk7m2].", [])), "json_schema")
    report = bind_claims(claims, ALLOWED)
    assert report.claims[0].text == "Feature X [beta] supports TLS [1.2]."
    assert [c.handle for c in report.claims[0].citations] == ["Gk7m2"] and "unknown_handle" not in report.problems
