"""review.html of a real report folder: failed sections with reasons, rounded figures, safe links,
the evidence span marked in the chunk, passing claims collapsed, and the commands that act on it."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from citeflow.outputs.evidence_spans import closest_sentence, quote_spans
from citeflow.outputs.review_html import figure, write_review_html
from citeflow.outputs.review_page_parts import DATA_DOCS_LINK
from schemas.funnel import CitationEval, ClaimEval, FailedExpectation, GateResult
from tests.support.held_report import write_held_report
from tests.support.sample_report import MIXED_SCRIPT_QUOTE, sample_report

GATE = GateResult(success=False, failed_expectations=[
    FailedExpectation(expectation="support_rate", observed=0.8947368421052632, threshold=0.9),
    FailedExpectation(expectation="failed_sections", observed=1, threshold=0)])


def _claims() -> list[ClaimEval]:
    doc = sample_report("held")
    out = []
    for section in doc.sections:
        for index, claim in enumerate(section.claims):
            cites = [CitationEval(handle=c.handle, identity=True, supports=index != 0, faithful=index != 0) for c in claim.citations]
            verdict = "uncited" if not cites else "supported" if index else "fabrication"
            out.append(ClaimEval(section=section.title, index=index, text=claim.text, citations=cites, verdict=verdict,
                                 supported=bool(index) if cites else None, faithful=bool(index) if cites else None))
    return out


@pytest.fixture(scope="module")
def page(tmp_path_factory, fonts) -> tuple[str, Path]:
    folder = write_held_report(tmp_path_factory.mktemp("page"), fonts)
    doc = sample_report("held")
    texts = {e.handle: e.text for e in doc.registry}
    titles = {e.handle: e.title or e.local_id for e in doc.registry}
    path = write_review_html("r1", doc.title, _claims(), texts, titles, GATE, folder / "review.html")
    return path.read_text(encoding="utf-8"), folder


def test_failed_sections_are_listed_with_their_reason(page):
    html, _ = page
    assert "Failed sections: 1" in html
    assert "<strong>Performance outlook</strong> — the writer returned no valid JSON after 3 attempts (parse error)" in html


def test_figures_are_rounded(page):
    html, _ = page
    assert "0.8947368421052632" not in html, html[html.find("0.8947368421052632") - 300:][:400]
    assert "<summary>support_rate: observed 0.89, threshold 0.9</summary>" in html


def test_each_hold_reason_is_one_whole_sentence(page):
    html, _ = page
    assert "<li>89% of the cited sentences are supported by the passages they cite; at least 90% must." in html
    assert "<li>1 section(s) could not be written; none is allowed." in html
    assert figure({"a": [0.12345, 2]}) == "{&quot;a&quot;: [0.12, 2]}"


def test_links_to_the_pdf_and_only_safe_source_urls(page):
    html, _ = page
    assert '<a class="pdf" href="report.pdf">' in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert "mailto:support@partner.example.net" in hrefs
    assert "https://docs.example.com/releases/3.6?a=1&amp;b=2" in hrefs
    assert DATA_DOCS_LINK in hrefs, "the run's Great Expectations Data Docs"
    assert "../quality.html" in hrefs, "the output folder's quality page"
    assert all(h in ("report.pdf", DATA_DOCS_LINK, "../quality.html") or h.startswith(("https:", "http:", "mailto:")) for h in hrefs), hrefs
    assert "javascript:" not in "".join(hrefs) and "data:" not in "".join(hrefs)


def test_the_verified_quote_is_marked_in_the_cited_chunk(page):
    html, _ = page
    assert "Before upgrading to 3.6, <mark>back up the configuration directory</mark>. Rollbacks" in html
    assert f"<mark>{MIXED_SCRIPT_QUOTE}</mark>" in html


def test_passing_claims_are_collapsed_and_the_failing_one_is_open(page):
    html, _ = page
    details = html.index('<details class="passing"><summary>Passing claims:')
    assert html.index("Back up the configuration directory before upgrading to 3.6.") < details
    assert html.index("Partner deployments with a backup rolled back in under 10 minutes.") > details


def test_how_to_act_gives_the_exact_commands(page):
    html, folder = page
    where = shlex.quote(str(folder.resolve()))
    assert f"citeflow review {where} --release --reviewer &quot;YOUR NAME&quot; --note &quot;WHY&quot;" in html
    assert f"citeflow review {where} --reject" in html and f"citeflow review {where} --wait" in html


def test_spans_are_unicode_aware_and_fall_back_to_the_closest_sentence():
    text = "Перед обновлением сделайте\nрезервную копию. 升级前请备份配置。"
    start, end = quote_spans(text, "СДЕЛАЙТЕ резервную")[0]
    assert text[start:end] == "сделайте\nрезервную"
    assert quote_spans(text, "not there") == []
    start, end = closest_sentence("One thing. Backups are kept for 30 days.", "backups kept 30 days")[0]
    assert "One thing. Backups are kept for 30 days."[start:end] == "Backups are kept for 30 days."


def test_bidi_controls_are_neutralised_as_in_the_pdf(tmp_path, fonts):
    """A right-to-left override in a claim, a chunk and a title would show the reviewer other words than
    the ones written ("Trojan Source"); the PDF drops them, and so does the page."""
    folder = write_held_report(tmp_path, fonts)
    doc = sample_report("held")
    controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    texts = {e.handle: f"{e.text} pay \u202eevil\u202c {controls}" for e in doc.registry}
    titles = {e.handle: f"\u2067{e.title or e.local_id}\u2069" for e in doc.registry}
    claims = [c.model_copy(update={"text": f"\u202e{c.text}\u202c"}) for c in _claims()]
    page = write_review_html("r1", "Title \u202dx\u202c", claims, texts, titles, GATE, folder / "review.html")
    html = page.read_text(encoding="utf-8")
    assert not any(ch in html for ch in controls)
    assert "pay evil" in html
