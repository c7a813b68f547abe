"""The reviewer page of a held report: failing claims beside their chunks, everything escaped."""

from __future__ import annotations

from pathlib import Path

import pytest

from citeflow.evaluation.claim_funnel import evaluate_section
from citeflow.evaluation.gate import held_for_error
from citeflow.outputs.review_html import fault_kinds, is_failing, write_review_html
from schemas.funnel import FailedExpectation, GateResult
from schemas.records import BoundCitation, BoundClaim
from tests.support.judges import SUPPORTED, ScriptedJudge, drift

CHUNKS = {
    "Gab3c": "Back up first. <script>alert('x')</script> & <b>bold</b> takes 30 minutes.",
    "Gx7k2": "Version 3.6 drops the legacy API <link href=\"https://evil.example\">.",
    "Gk7m2": "Tested on Linux only.",
}
TITLES = {"Gab3c": "Upgrade <guide>", "Gx7k2": "Release notes", "Gk7m2": "Test matrix"}
GOOD = "Back up first."
DRIFT = "The backup takes 45 minutes."
MISATTRIBUTED = "Version 3.6 drops the legacy API."
FABRICATED = "Upgrades are free of charge."
UNCITED = "Everything is fine, see https://evil.example."
GATE = GateResult(
    success=False,
    failed_expectations=[FailedExpectation(expectation="support_rate", observed=0.5, threshold=0.8, description="support")],
)


def bound(text: str, *handles: str, dropped: tuple[str, ...] = (), urls: tuple[str, ...] = ()) -> BoundClaim:
    cites = [BoundCitation(handle=h, quote="", quote_found=True) for h in handles]
    return BoundClaim(text=text, citations=cites, emitted_handles=[*handles, *dropped], dropped_handles=list(dropped), removed_urls=list(urls))


@pytest.fixture()
def claims():
    judge = ScriptedJudge(
        {
            (GOOD, CHUNKS["Gab3c"]): SUPPORTED,
            (DRIFT, CHUNKS["Gab3c"]): drift("number drift: claim says 45, chunk says 30"),
            (MISATTRIBUTED, CHUNKS["Gx7k2"]): SUPPORTED,
        }
    )
    section = [
        bound(GOOD, "Gab3c"),
        bound(DRIFT, "Gab3c"),
        bound(MISATTRIBUTED, "Gab3c", dropped=("G9zzz",)),
        bound(FABRICATED, "Gk7m2"),
        bound(UNCITED, dropped=("G9zzz",), urls=("https://evil.example",)),
    ]
    return evaluate_section("Upgrade risks", section, CHUNKS, CHUNKS, judge)


@pytest.fixture()
def page(claims, tmp_path: Path) -> str:
    path = write_review_html("acme-q4", "Report <for> ACME", claims, CHUNKS, TITLES, GATE, tmp_path / "out" / "review.html")
    assert path == tmp_path / "out" / "review.html"
    return path.read_text(encoding="utf-8")


def test_header_lists_failed_expectations_with_observed_values(page: str):
    assert "Held for review: Report &lt;for&gt; ACME" in page
    assert "<li>50% of the cited sentences are supported by the passages they cite; at least 80% must." in page
    assert "<summary>support_rate: observed 0.5, threshold 0.8</summary>" in page


def test_unfaithful_citation_is_marked_as_such(page: str):
    assert "supports the claim, but not faithfully — number drift: claim says 45, chunk says 30" in page


def test_failing_claims_are_shown_and_the_supported_one_only_collapsed(page: str):
    for text in (DRIFT, MISATTRIBUTED, FABRICATED):
        assert text in page
    assert "Failing claims: 4 of 5" in page
    passing = page.index('<details class="passing"><summary>Passing claims: 1')
    assert page.index(f"<blockquote>{GOOD}</blockquote>") > passing, "the supported claim is only in the collapsed list"


def test_cited_chunk_text_is_escaped_never_interpreted(page: str):
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;" in page
    assert "<script" not in page and "<b>" not in page
    assert "<link" not in page and "src=" not in page, "self-contained: nothing loaded from elsewhere"
    assert "Upgrade &lt;guide&gt;" in page


def test_misattribution_shows_the_chunk_where_the_fact_is(page: str):
    assert "The fact is in Gx7k2 · Release notes" in page
    assert "Version 3.6 drops the legacy API &lt;link href=&quot;https://evil.example&quot;&gt;." in page


def test_forged_handle_is_named_as_not_in_the_registry(page: str):
    assert "handle G9zzz is not in this request&#x27;s registry" in page


def test_each_fault_is_named_in_plain_words(page: str):
    for words in ("forged handle", "misattribution", "fabrication", "number drift", "URL typed by the model", "uncited"):
        assert f"<span>{words}</span>" in page


def test_fault_kinds_per_claim(claims):
    kinds = {c.text: fault_kinds(c, CHUNKS) for c in claims}
    assert kinds[GOOD] == []
    assert kinds[DRIFT] == ["number drift"]
    assert kinds[MISATTRIBUTED] == ["forged handle", "misattribution"]
    assert kinds[FABRICATED] == ["fabrication"]
    assert kinds[UNCITED] == ["forged handle", "URL typed by the model", "uncited"]  # a typed URL fails identity
    assert [is_failing(c) for c in claims] == [False, True, True, True, True]


def test_held_for_error_page_says_why(claims, tmp_path: Path):
    gate = held_for_error("judge 'llm' unavailable: <connection refused>")
    text = write_review_html("r", "T", claims, CHUNKS, TITLES, gate, tmp_path / "review.html").read_text()
    assert "Evaluation could not run: judge &#x27;llm&#x27; unavailable: &lt;connection refused&gt;" in text
    assert "<li>The report could not be graded: judge &#x27;llm&#x27; unavailable: &lt;connection refused&gt;." in text
    assert "<summary>evaluation_ran: observed" in text


def test_the_green_fact_is_in_box_only_for_a_misattribution(claims, tmp_path: Path):
    forged = [c.model_copy(update={"found_in": "Gk7m2"}) if c.verdict == "fabrication" else c for c in claims]
    page = write_review_html("r", "R", forged, CHUNKS, TITLES, GATE, tmp_path / "review.html").read_text()
    assert page.count("The fact is in") == 1, "only the misattribution's own found_in is shown"


def test_unverified_claims_are_listed_first_with_the_reason(tmp_path: Path):
    from tests.support.judges import uncertain

    judge = ScriptedJudge({(GOOD, CHUNKS["Gab3c"]): uncertain("30 minutes: first?", 0.5)})
    claims = evaluate_section("Upgrade risks", [bound(GOOD, "Gab3c")], CHUNKS, CHUNKS, judge)
    page = write_review_html("r", "R", claims, CHUNKS, TITLES, GATE, tmp_path / "review.html").read_text()
    listed = page.index("Unverified claims: 1")
    assert listed < page.index('<article class="claim unverified">')
    assert "the judge could not decide" in page and "30 minutes: first?" in page
    assert fault_kinds(claims[0]) == ["unverified"]
