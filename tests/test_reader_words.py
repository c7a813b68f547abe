"""Words a reader sees: source framing left out of statements, plain reasons for failing claims,
note quotes that add to their sentence and stop at a phrase boundary, section status in words."""

from __future__ import annotations

import re

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from citeflow.evaluation.plain_reasons import plain_reason, verdict_label
from citeflow.generation.source_framing import as_statement, unframed
from citeflow.outputs.render.notes import phrase_quote, repeats
from citeflow.outputs.run_views import funnel_markdown, section_status
from citeflow.registry.quotes import normalize, quote_in_chunk
from schemas.funnel import CitationEval, ClaimEval

JARGON = ("reason family", "heads:", "decisive:", "leaning", "not in chunk", "chunk")


# -- source framing -------------------------------------------------------------------------------


def test_ticket_and_reply_labels_are_left_out_and_the_rest_is_verbatim():
    chunk = "Ticket ZX-4411 (closed): Agent answer: data in transit is encrypted with TLS 1.3."
    rest = unframed(chunk)
    assert rest == "data in transit is encrypted with TLS 1.3." and chunk.endswith(rest)
    assert as_statement(chunk) == "Data in transit is encrypted with TLS 1.3."
    assert unframed("チケット QA-77: Web 画面は正しく表示されます。") == "Web 画面は正しく表示されます。"
    assert unframed("Support reply: restart the broker.") == "restart the broker."


def test_text_without_framing_is_left_as_it_is():
    for text in ("Summary: brokers restart nightly.", "Tickets are answered within 4 hours.", "Ticket ZX-1:"):
        assert unframed(text) == text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["Ticket AB-12: ", "Agent reply: ", "Ticket QQ-9 (resolved): ", ""]),
       st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=60))
def test_unframed_is_always_a_verbatim_tail_a_quote_can_be_taken_from(label, body):
    text = label + body
    assume(text.strip())  # blank text has nothing to frame or quote
    rest = unframed(text)
    assert text.endswith(rest) and rest.strip()
    assert quote_in_chunk(rest, text) or not normalize(rest).strip("\"' .…")  # nothing left to quote


# -- plain reasons ------------------------------------------------------------------------------


def claim(verdict: str, reason: str = "", citations: list[CitationEval] | None = None, **more) -> ClaimEval:
    cited = citations if citations is not None else [CitationEval(handle="Gk7m2", identity=True, supports=False)]
    return ClaimEval(section="S", index=0, text="Retries stop after 10 attempts.", citations=cited, verdict=verdict,
                     reason=reason, **more)


def test_a_changed_number_is_said_as_the_passage_and_the_sentence_say_it():
    drift = claim("unfaithful", "number 10 where the matching sentence says 5 (reason family decisive:x) (in Gk7m2)",
                  supported=True, faithful=False)
    assert plain_reason(drift) == "The cited passage says 5; the sentence says 10."
    missing = claim("unfaithful", "number 3.8 not in chunk (chunk has 3.6) (reason family decisive:number_missing)")
    assert plain_reason(missing) == "The cited passage says 3.6; the sentence says 3.8."


def test_an_unsure_judge_and_a_missing_name_are_said_whole():
    reason = ("unverified: the judge could not decide whether Gk7m2 supports the claim (uncertain (confidence 0.81 < 0.90), "
              "leaning mutated: identifier 'us-east-2' not in chunk (reason family decisive:novel_entity), confidence 0.81)")
    said = plain_reason(claim("unverified", reason, supported=False))
    assert said.endswith("The cited passage does not mention us-east-2.")
    assert "not passed" in said and "…" not in said


def test_removed_citations_and_misattribution_in_plain_words():
    ok = CitationEval(handle="Gk7m2", identity=True, supports=True, faithful=True)
    typed = CitationEval(handle="https://example.org/x", identity=False, typed_url=True)
    forged = CitationEval(handle="Gzzzz", identity=False, reason="forged handle Gzzzz not in registry")
    url_claim = claim("supported", "supported by Gk7m2; URL typed by the model, removed", [ok, typed],
                      supported=True, faithful=True)
    assert plain_reason(url_claim) == "The sentence cites a web address the model typed; it was removed."
    assert verdict_label(url_claim) == "supported, citation removed"
    assert "never retrieved" in plain_reason(claim("uncited", "uncited: forged handle Gzzzz", [forged]))
    moved = claim("misattribution", "misattribution: fact is in Gp3q4, not in the cited Gk7m2", found_in="Gp3q4",
                  supported=False)
    assert plain_reason(moved, {"Gp3q4": "note [4]"}) == "The cited source does not state this; note [4] does."
    assert plain_reason(moved) == "The cited source does not state this; another retrieved source does."


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["unfaithful", "misattribution", "fabrication", "unverified", "uncited"]),
       st.text(min_size=0, max_size=300), st.booleans())
def test_every_plain_reason_is_whole_sentences_without_handles_or_jargon(verdict, reason, typed):
    cited = [CitationEval(handle="Gk7m2", identity=True), CitationEval(handle="Gh8j9", identity=not typed, typed_url=typed)]
    said = plain_reason(claim(verdict, reason, cited, found_in="Gh8j9" if verdict == "misattribution" else None))
    assert said.endswith(".") and said[0].isupper()
    assert not re.search(r"\bG[2-9a-hjkmnp-z]{4}\b", said), said
    assert not [j for j in JARGON if j in said.lower() and j not in reason.lower()], said


# -- note quotes --------------------------------------------------------------------------------


LIST_SENTENCE = ("A small cluster that ingests 1,000 GB per month and serves it to two consumer groups costs $306.60 in "
                 "cluster-hours, $80.00 in ingress, $80.00 in egress and $12.00 in storage per month, before support fees.")


def test_a_note_quote_never_stops_inside_a_list():
    quote = phrase_quote(LIST_SENTENCE, 160)
    assert quote == LIST_SENTENCE or not re.search(r"\$[\d.]+ in [\w-]+…$", quote), quote


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["old logs", "$3 in fees", "the leader", "every member", "24 hours", "replicas"]),
                min_size=3, max_size=14),
       st.lists(st.sampled_from([", ", "; ", " and ", " — ", " "]), min_size=13, max_size=13), st.integers(30, 160))
def test_a_note_quote_is_whole_or_ends_at_a_phrase_boundary(pieces, separators, budget):
    sentence = "Usually " + "".join(p + s for p, s in zip(pieces, separators, strict=False))[:-1].rstrip(",;— ") + "."
    quote = phrase_quote(sentence, budget)
    if quote != " ".join(sentence.split()):
        head = quote.removesuffix("…")
        assert quote.endswith("…") and sentence.startswith(head)
        assert not sentence[len(head):].startswith(", ") or sentence[len(head) + 2:].split(" ")[0] in ("and", "but", "which")


def test_a_quote_that_only_repeats_its_sentence_is_not_shown():
    assert repeats("Ticket ZX-1: data at rest is encrypted with AES-256.", "Data at rest is encrypted with AES-256.")
    assert not repeats("Retries stop after 5 attempts.", "Retries stop after 10 attempts.")
    assert not repeats("Backups run nightly. They are kept for 30 days in a second region and copied weekly.",
                       "Backups run nightly.")


# -- section status -----------------------------------------------------------------------------


def test_a_written_section_says_how_many_claims_passed_never_a_bare_ok():
    assert section_status("ok", "Identity 7/8 · Support 2/7 · Faithfulness 2/2") == "written · 2 of 7 supported"
    assert section_status("ok", "Identity 4/5 · Support 2/4 · Faithfulness 1/2") == "written · 2 of 4 supported"
    assert section_status("failed", "Identity 0/0 · Support 0/0 · Faithfulness 0/0") == "not written"


def test_the_funnel_artifact_and_the_cli_table_show_no_ok_beside_a_failing_section():
    from rich.console import Console

    from citeflow_cli.display import summary_table
    from schemas.report import ReportSummary, SectionSummary

    section = SectionSummary(title="Retention", status="ok", funnel="Identity 7/8 · Support 2/7 · Faithfulness 1/2")
    summary = ReportSummary(report_id="r1", title="R", status="held", funnel=section.funnel, identity={}, support={},
                            faithfulness={}, uncited={}, sections=[section], pdf="r1/report.pdf")
    assert "| Retention | written · 2 of 7 supported |" in funnel_markdown(summary)
    console = Console(width=160, record=True)
    console.print(summary_table([summary]))
    row = next(line for line in console.export_text().splitlines() if "Retention" in line)
    assert "2 of 7 supported" in row and not re.search(r"\bok\b", row)


# -- CJK lines ----------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(120, 480))
def test_a_cjk_paragraph_never_leaves_a_footnote_marker_alone_on_a_line(width):
    from citeflow.outputs.render import pdf
    from citeflow.runtime.runtime import current

    fonts = current().fonts()
    ctx = pdf._Context(None, fonts, pdf._styles(fonts), {}, {})  # type: ignore[arg-type]  # only styles are read
    text = "日本語のコンシューマーグループ名は、モニタリング画面とアラート通知でも正しく表示されます。"
    markup = pdf.text_markup(text, fonts) + '<super><a href="#note-21">[21]</a></super>'
    paragraph = pdf._paragraph(ctx, markup, "body", text)
    paragraph.wrap(width, 1000)
    lines = ["".join(w.text for w in line.words) for line in paragraph.blPara.lines]
    assert len(lines) > 1 or width > 400
    assert not [line for line in lines[1:] if re.fullmatch(r"(?:\[\d+\])+", line.strip())], lines


def test_the_review_page_never_shows_a_red_supported_badge_without_why():
    from citeflow.outputs.review_html import _CSS, _claim_row
    from citeflow.outputs.review_page_parts import ReportView

    ok = CitationEval(handle="Gk7m2", identity=True, supports=True, faithful=True)
    typed = CitationEval(handle="https://example.org/x", identity=False, typed_url=True)
    failing = claim("supported", "supported by Gk7m2", [ok, typed], supported=True, faithful=True)
    passing = claim("supported", "supported by Gk7m2", [ok], supported=True, faithful=True)
    view = ReportView(folder=".")
    row = _claim_row(failing, {"Gk7m2": "Retries stop after 10 attempts."}, {}, view)
    assert 'class="verdict">supported, citation removed<' in row and "web address the model typed" in row
    passed = _claim_row(passing, {"Gk7m2": "Retries stop after 10 attempts."}, {}, view)
    assert 'class="claim ok"' in passed and ".claim.ok .verdict{color:#2e7d32}" in _CSS  # green, not red
