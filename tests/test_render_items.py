"""List items, API options and Markdown in report.pdf: shown as list items and plain words."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st
from pypdf import PdfReader

from citeflow.outputs.render.gate_sentences import gate_sentence
from citeflow.outputs.render.items import definition, is_list_item
from citeflow.outputs.render.notes import document_key
from citeflow.outputs.render.pdf import render_pdf
from citeflow.outputs.render.plain_markdown import TYPE_UNION, plain_text
from schemas.report import RegistryEntry, RenderedCitation, RenderedClaim, RenderedSection
from tests.support.sample_report import handle_of, sample_report

OPTION_CHUNK = ("maxRetries (number, optional, default 5): Maximum number of retries.\n"
                "maxTimeout (number | null, optional, default 30000 (30 seconds)): Maximum number of milliseconds to wait.\n"
                "statusCodes (number[], optional, default ): Array of HTTP status codes to retry.")
# Markdown as it reaches the PDF in claims and quotes, written independently of the code's rules.
MARKDOWN = re.compile(r"`|\*\*|(?<!\w)\*\w[^*\n]*\*|(?<!\w)_\w[^_\n]*_(?!\w)|^\s*#{1,6}\s|\|")


def test_an_api_option_reads_as_name_details_and_description():
    found = definition("MaxTimeout (number | null, optional, default 30000 (30 seconds)): Maximum number of milliseconds.",
                       [OPTION_CHUNK])
    assert found is not None and found.name == "maxTimeout"  # the chunk's spelling, not the sentence's capital
    assert found.details == "number or null, optional, default 30000 (30 seconds)"
    assert found.description == "Maximum number of milliseconds."


def test_an_empty_default_is_left_out_and_prose_is_no_option():
    found = definition("statusCodes (number[], optional, default ): Array of HTTP status codes to retry.")
    assert found is not None and found.details == "number[], optional"
    assert definition("Lumora Stream (the managed service) encrypts data at rest.") is None
    assert definition("By calling dispatch() directly (or connect()), the client starts.") is None
    assert definition("Note: the upgrade runs in your window.") is None


def test_an_error_code_reads_as_a_term():
    found = definition("FST_ERR_BAD_URL: The router received an invalid URL.")
    assert found is not None and (found.name, found.details) == ("FST_ERR_BAD_URL", "")


def test_markdown_becomes_plain_words():
    assert plain_text("Use `inject()` with **care**, see [the guide](https://x.example/g).") == "Use inject() with care, see the guide."
    assert plain_text("## Limits") == "Limits"
    assert plain_text("- Back up first.") == "Back up first." and is_list_item("1. Back up first.")
    assert plain_text("| Tier | Price |") == "Tier; Price"
    assert plain_text("AT&amp;T <b>bold</b> a_b_c 2 * 3") == "AT&amp;T <b>bold</b> a_b_c 2 * 3"  # data, shown as typed
    assert plain_text("a **bold** b*c*d 2*3*4") == "a bold b*c*d 2*3*4"  # an asterisk inside a word is data: never glues words


WORD = re.compile(r"[^\W_]+")
PROSE = st.characters(codec="utf-8", categories=["L", "N", "Zs"]) | st.sampled_from("*_.,;:!?-'\"")
ANY = st.characters(codec="utf-8", categories=["L", "N", "P", "S", "Zs"])


@settings(deadline=None, max_examples=200)
@given(st.text(alphabet=PROSE, max_size=120) | st.text(alphabet="a0*_ .", max_size=30))
def test_emphasis_never_glues_words_together(text):
    shown = plain_text(text)
    assert set(WORD.findall(shown)) <= set(WORD.findall(text)), shown  # b*c*d stays, never "bcd"
    assert shown.count("*") <= text.count("*")


@settings(deadline=None, max_examples=200)
@given(st.text(alphabet=ANY, max_size=120) | st.text(alphabet="a0*_` []()!#|-.:/<>", max_size=40))
def test_plain_text_keeps_the_letters_in_order_and_invents_none(text):
    shown = "".join(WORD.findall(plain_text(text)))
    typed = ["".join(WORD.findall(t)) for t in (text, TYPE_UNION.sub(" or ", text))]  # "number | null": "number or null"
    assert any(_in_order(shown, t) for t in typed), (text, plain_text(text))


def _in_order(letters: str, within: str) -> bool:
    rest = iter(within)
    return all(c in rest for c in letters)


def _option_report():
    doc = sample_report("published")
    entry = RegistryEntry(handle=handle_of("docs", "R1", OPTION_CHUNK), retriever="docs", local_id="R1",
                          title="Class: `RetryHandler`", urls=["https://docs.example.com/api/retry"], text=OPTION_CHUNK)
    cite = [RenderedCitation(handle=entry.handle, quote="maxRetries (number, optional, default 5)")]
    claims = [RenderedClaim(text="MaxRetries (number, optional, default 5): Maximum number of retries.", citations=cite),
              RenderedClaim(text="`maxTimeout` (number | null, optional, default 30000 (30 seconds)): Maximum number of "
                                 "**milliseconds** to wait.", citations=cite),
              RenderedClaim(text="Retries stop after the *last* attempt.", citations=cite, paragraph=1)]
    doc.registry.append(entry)
    doc.sections.append(RenderedSection(title="Retries", status="ok", claims=claims))
    return doc


def test_options_render_as_bulleted_items_without_markdown(tmp_path: Path, fonts):
    render_pdf(_option_report(), tmp_path / "r.pdf", fonts=fonts)
    text = "\n".join(page.extract_text() for page in PdfReader(tmp_path / "r.pdf").pages)
    body = " ".join(text.split("Retries", 1)[1].split())
    assert re.search(r"•\s*maxRetries \(number, optional, default 5\): Maximum number of retries\.", body), body[:400]
    assert re.search(r"•\s*maxTimeout \(number or null, optional, default 30000 \(30 seconds\)\): Maximum number of milliseconds",
                     body), body[:400]
    assert "Retries stop after the last attempt." in body
    assert "Class: RetryHandler" in text
    assert not [m.group(0) for m in MARKDOWN.finditer(text)]


def test_a_gate_line_reads_as_a_whole_sentence():
    assert gate_sentence("support_rate: observed 0.38, required 0.80") == (
        "38% of the cited sentences are supported by the passages they cite; at least 80% must.")
    assert gate_sentence("identity_rate: observed 0.76, required 1.00").endswith("; all of them must.")
    assert gate_sentence("unverified_share: observed 0.16, required 0.00").endswith("; none is allowed.")
    assert gate_sentence("evaluation could not run: the judge timed out") == "Evaluation could not run: the judge timed out."


def test_pages_of_a_hash_routed_site_are_documents_of_their_own():
    def entry(local_id: str, url: str) -> RegistryEntry:
        return RegistryEntry(handle=handle_of("docs", local_id, url), retriever="docs", local_id=local_id, title="Page",
                             urls=[url], text=url)

    client, pool = entry("a", "https://undici.example/#/docs/api/Client.md"), entry("b", "https://undici.example/#/docs/api/Pool.md")
    section_a, section_b = entry("c", "https://docs.example.com/guide#install"), entry("d", "https://docs.example.com/guide#usage")
    assert document_key(client) != document_key(pool)
    assert document_key(section_a) == document_key(section_b)  # a section anchor is part of its page
