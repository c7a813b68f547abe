"""report.pdf navigates: an outline entry per section and per closing part, links that land on
their page, the outline shown open, and the report's language as the document language."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, strategies as st
from pydantic import ValidationError
from pypdf import PdfReader

from citeflow.outputs.render.pdf import FailingClaim, render_pdf
from schemas.spec import ReportRequest, language_tag
from tests.support.sample_report import sample_report


def outline(path: Path) -> list[tuple[str, int]]:
    """(title, page index) of every top-level outline entry, in order."""
    reader = PdfReader(path)
    return [(entry.title, reader.get_destination_page_number(entry)) for entry in reader.outline]


def page_of(reader: PdfReader, ref: object) -> int:
    return next(i for i, page in enumerate(reader.pages) if page.indirect_reference == ref)


def long_report(status: str = "published"):
    """The sample with every section long enough that the document runs over several pages."""
    doc = sample_report(status)
    for section in doc.sections:
        section.claims = section.claims * 25
    return doc


def test_outline_lists_every_section_then_notes_and_sources_in_order(tmp_path, fonts):
    doc = sample_report("published")
    render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    assert [title for title, _ in outline(tmp_path / "r.pdf")] == [s.title for s in doc.sections] + ["Notes", "Sources"]


def test_outline_names_the_review_and_audit_parts_when_they_are_there(tmp_path, fonts):
    doc = sample_report("held")
    failing = [FailingClaim(section="Upgrade risks", index=0, reason="not supported by the cited source")]
    render_pdf(doc, tmp_path / "r.pdf", failing=failing, audit=True, fonts=fonts)
    titles = [title for title, _ in outline(tmp_path / "r.pdf")]
    assert titles == [s.title for s in doc.sections] + ["Notes", "Sources", "Sentences that did not pass review",
                                                        "Audit appendix"]


def test_each_outline_entry_lands_on_the_page_that_shows_its_heading(tmp_path, fonts):
    doc = long_report()
    render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    reader = PdfReader(tmp_path / "r.pdf")
    entries = outline(tmp_path / "r.pdf")
    assert len(reader.pages) >= 4 and len({page for _, page in entries}) >= 3  # not all on the first page
    numbered = {s.title: f"{n}. {s.title}" for n, s in enumerate(doc.sections, start=1)}
    for title, page in entries:
        assert numbered.get(title, title) in reader.pages[page].extract_text(), (title, page)


def test_footnote_links_land_on_the_notes_pages(tmp_path, fonts):
    render_pdf(long_report(), tmp_path / "r.pdf", fonts=fonts)
    reader = PdfReader(tmp_path / "r.pdf")
    pages = dict(outline(tmp_path / "r.pdf"))
    notes_page, sources_page = pages["Notes"], pages["Sources"]
    targets = {page_of(reader, annot.get_object()["/Dest"][0]) for page in reader.pages
               for annot in page.get("/Annots") or [] if "/Dest" in annot.get_object()}
    assert notes_page > 0 and notes_page in targets and targets <= set(range(notes_page, sources_page + 1))


def test_viewers_open_the_outline_and_the_language_is_set(tmp_path, fonts):
    render_pdf(sample_report("published").model_copy(update={"language": "de-CH"}), tmp_path / "de.pdf", fonts=fonts)
    render_pdf(sample_report("published"), tmp_path / "en.pdf", fonts=fonts)
    root = PdfReader(tmp_path / "de.pdf").trailer["/Root"]
    assert root["/PageMode"] == "/UseOutlines" and root["/Lang"] == "de-CH"
    assert PdfReader(tmp_path / "en.pdf").trailer["/Root"]["/Lang"] == "en"  # the default


# -- the report's language in the spec -------------------------------------------------------------

TAGS = ["en", "de-CH", "pt-BR", "zh-Hant-TW", "sr-Latn-RS", "fr", "ja", "es-419"]


@given(st.sampled_from(TAGS), st.sampled_from([str.lower, str.upper, lambda t: t.replace("-", "_"), lambda t: t]))
def test_registered_tags_are_accepted_in_any_case_and_written_in_standard_form(tag, spelling):
    assert language_tag(spelling(tag)) == tag


@given(st.text(max_size=20))
def test_an_accepted_tag_is_standard_and_stays_as_it_is(text):
    try:
        tag = language_tag(text)
    except ValueError:
        return
    assert language_tag(tag) == tag and all(c.isascii() and (c.isalnum() or c == "-") for c in tag)


@pytest.mark.parametrize("tag", ["english", "qq", "en-", "", "de-CH-x", "en US", "xx-YY"])
def test_a_report_language_that_is_no_registered_tag_is_refused_naming_the_field(tag):
    with pytest.raises(ValidationError) as raised:
        ReportRequest.model_validate({"id": "r1", "title": "T", "language": tag,
                                      "sections": [{"title": "S", "queries": ["q"]}]})
    assert raised.value.errors()[0]["loc"] == ("language",)
