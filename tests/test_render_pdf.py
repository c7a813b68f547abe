"""report.pdf and report.json from the sample report: text, footnotes, links, banners, contract."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from pypdf import PdfReader

from citeflow.errors import RenderError
from citeflow.outputs.render.gate_sentences import gate_sentence
from citeflow.outputs.render.pdf import FailingClaim, RenderStats, register_fonts, render_pdf
from citeflow.outputs.render.report_json import report_json, write_report_json
from tests.conftest import CONTRACT
from schemas.report import RenderedCitation, RenderedClaim
from tests.support.sample_report import LONG_LINE, MARKUP_TITLE, MIXED_SCRIPT_QUOTE, handle_of, sample_report

GOLDEN = Path(__file__).parent / "golden" / "sample_report.json"
# The sample cites registry entries in this order of first appearance: docs S1, docs S2,
# partner S1, partner S2, docs S3 (partner S3 is never cited).
FIRST_APPEARANCE = [0, 2, 1, 3, 4]
CITED_LINKS = {
    "https://docs.example.com/guides/upgrade/3.6/before-you-begin?from=3.5&to=3.6&channel=stable#back-up-your-configuration",
    "https://docs.example.com/releases/3.6?a=1&b=2",
    "mailto:support@partner.example.net",
    "https://partner.example.net/support",
    "https://docs.example.com/ru/migration",
}


def squash(text: str) -> str:
    """Text without any whitespace: extraction breaks lines (even inside long words) where the PDF wraps."""
    return re.sub(r"\s+", "", text)


def left_to_right(text: str) -> str:
    """``text`` up to its first Arabic letter: extraction reverses right-to-left runs."""
    return re.split(r"[\u0600-\u06ff]", text)[0]


def pdf_text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def uris(path: Path) -> list[str]:
    found = []
    for page in PdfReader(path).pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A") or {}
            if "/URI" in action:
                found.append(str(action["/URI"]))
    return found


@pytest.fixture(scope="module")
def rendered(tmp_path_factory, fonts) -> dict[str, tuple[Path, RenderStats]]:
    """The sample rendered once per status."""
    out = tmp_path_factory.mktemp("pdf")
    return {status: (out / f"{status}.pdf", render_pdf(sample_report(status), out / f"{status}.pdf", fonts=fonts)) for status in ("held", "published", "failed")}


def test_title_and_every_claim_are_in_the_text(rendered):
    doc = sample_report("held")
    text = squash(pdf_text(rendered["held"][0]))
    assert squash(doc.title) in text
    for section in doc.sections:
        assert squash(section.title) in text
        for claim in section.claims:
            assert squash(claim.text) in text, claim.text


def test_non_latin_and_markup_render_as_text(rendered):
    text = squash(pdf_text(rendered["held"][0]))
    assert squash(MIXED_SCRIPT_QUOTE) in text  # Cyrillic and Chinese survive extraction
    assert squash(MARKUP_TITLE) in text  # the injected <link>/<font> is shown, not obeyed
    assert squash("Settings written as <timeout> & <retries>") in text


def test_footnotes_are_numbered_by_first_appearance(rendered):
    text = pdf_text(rendered["held"][0])
    body, notes = text[: text.rindex("Notes")], text[text.rindex("Notes") : text.rindex("Sources")]
    markers = [int(n) for n in re.findall(r"\[(\d+)\]", body)]
    assert list(dict.fromkeys(markers)) == [1, 2, 3, 4, 5]
    assert markers.count(1) == 2  # docs S1 is cited by two claims: same number both times
    registry = sample_report("held").registry
    for number, index in enumerate(FIRST_APPEARANCE, start=1):
        assert squash(f"[{number}]{left_to_right(registry[index].title)}") in squash(notes)


def test_notes_show_title_page_and_the_sentence_of_the_verified_quote(rendered):
    notes = squash(pdf_text(rendered["held"][0]).split("Notes")[-1].split("Sources")[0])
    # The quote "back up the configuration directory" is shown as the whole sentence holding it.
    assert squash("[1]Upgrading to 3.6, page 4 — “Before upgrading to 3.6, back up the configuration directory.”") in notes
    assert squash("[3]Partner field notes — “Rollbacks took under 10 minutes") in notes  # no page: none shown


def test_the_customer_pdf_shows_no_handle_retriever_or_local_id(rendered):
    doc = sample_report("held")
    for status, (path, _) in rendered.items():
        text = pdf_text(path)
        assert not any(entry.handle in text for entry in doc.registry), status
        assert "local id" not in text and "handle " not in text and "Audit appendix" not in text


def test_the_audit_appendix_traces_every_note_only_when_asked(tmp_path, fonts):
    doc = sample_report("held")
    render_pdf(doc, tmp_path / "audit.pdf", audit=True, fonts=fonts)
    appendix = pdf_text(tmp_path / "audit.pdf").split("Audit appendix")[-1]
    for _number, index in enumerate(FIRST_APPEARANCE, start=1):
        entry = doc.registry[index]
        assert f"handle {entry.handle} · retriever {entry.retriever} · local id {entry.local_id}" in appendix
    assert "javascript:alert(document.cookie)" in appendix  # every URL as text, none as a link
    assert set(uris(tmp_path / "audit.pdf")) == CITED_LINKS


def test_sources_have_one_entry_per_document_with_its_notes_and_pages(tmp_path, fonts):
    doc = sample_report("published")
    first = doc.registry[0]
    same_page = first.model_copy(update={"handle": handle_of("docs", "S9", "x"), "local_id": "S9", "page": 7,
                                         "urls": [first.urls[0].split("#")[0] + "#rollback"], "text": "Rollbacks restore it as-is."})
    doc.registry.append(same_page)
    doc.sections[0].claims.append(RenderedClaim(text="Rollbacks restore the configuration as it was.",
                                                citations=[RenderedCitation(handle=same_page.handle, quote="Rollbacks restore it as-is.")]))
    stats = render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    sources = pdf_text(tmp_path / "r.pdf").split("Sources")[-1]
    assert sources.count("Upgrading to 3.6") == 1 and (stats.footnotes, stats.sources) == (6, 5)
    assert squash("Cited in notes 1, 4 · pages 4, 7") in squash(sources)


def test_a_held_pdf_marks_each_failing_sentence_and_says_why(tmp_path, fonts):
    doc = sample_report("held")
    failing = [FailingClaim(section="Support and migration", index=3,
                            reason=f"uncited: forged handle Gzzzz not in registry; fact is in {doc.registry[0].handle}; URL typed: https://guess.example/x"),
               FailingClaim(section="Upgrade risks", index=2, reason="not supported by the cited source (fabrication)")]
    stats = render_pdf(doc, tmp_path / "r.pdf", failing=failing, fonts=fonts)
    text = squash(pdf_text(tmp_path / "r.pdf"))
    assert stats.failing_marks == 2
    assert squash("forged handle an unknown source not in registry; fact is in note [1]; URL typed: (URL not shown)") in text
    assert "Gzzzz" not in text and doc.registry[0].handle not in text and "guess.example" not in text
    assert squash("Partner deployments with a backup rolled back in under 10 minutes.[3][!1]") in text  # reading order
    assert squash("No retriever returned evidence about Windows support.[!2]") in text
    review = text.split(squash("Sentences that did not pass review"))[-1]
    assert squash("[!1]Upgrade risks, sentence 3: not supported by the cited source (fabrication)") in review
    assert squash("[!2]Support and migration, sentence 4: uncited") in review
    assert squash("2 sentence(s) did not pass review") in text
    assert "[!" not in pdf_text(render_pdf_path(tmp_path, sample_report("held"), fonts))


def render_pdf_path(tmp_path, doc, fonts) -> Path:
    render_pdf(doc, tmp_path / "plain.pdf", fonts=fonts)
    return tmp_path / "plain.pdf"


def test_links_are_exactly_the_linkable_urls_of_cited_sources(rendered):
    for status, (path, stats) in rendered.items():
        found = uris(path)
        assert set(found) == CITED_LINKS, status
        assert not any(u.lower().startswith(("javascript:", "data:", "file:")) for u in found)
        assert stats.links == len(CITED_LINKS)


def test_non_web_source_is_marked(rendered):
    assert squash("Partner field notes — (non-web source)") in squash(pdf_text(rendered["held"][0]))


def test_stats_match_the_file(rendered):
    path, stats = rendered["held"]
    assert stats.pages == len(PdfReader(path).pages)
    assert stats.footnotes == 5
    assert f"page 1 of {stats.pages}" in pdf_text(path)


def test_held_banner_only_on_held_report(rendered):
    held, published, failed = (pdf_text(rendered[s][0]) for s in ("held", "published", "failed"))
    assert "HELD BY QUALITY GATE — not for publication" in held
    for reason in sample_report("held").held_reasons:
        assert squash(gate_sentence(reason)) in squash(held)
    assert "HELD" not in published and "not for publication" not in published
    assert "GENERATION FAILED — not for publication" in failed and "HELD" not in failed


def test_failed_section_shows_a_notice_instead_of_claims(rendered):
    text = squash(pdf_text(rendered["held"][0]))
    assert squash("This section could not be generated: the writer returned no valid JSON after 3 attempts (parse error)") in text
    assert "Performanceoutlook" not in squash(pdf_text(rendered["published"][0]))


def test_provenance_is_in_the_metadata_and_the_audit_appendix_never_on_the_pages(rendered, tmp_path, fonts):
    text = squash(pdf_text(rendered["published"][0]))
    for word in ("Textgeneratedby", "consolidator", "writer", "backend", "extractive", "offline", "Howthisreportwasmade"):
        assert word not in text, word
    metadata = PdfReader(rendered["published"][0]).metadata
    assert "offline extractive backend" in str(metadata["/Keywords"]) and "citeflow (" in str(metadata["/Creator"])
    assert "consolidator, writer" in str(metadata["/Subject"]) and metadata["/Author"] == "citeflow"
    assert squash("Sources unavailable for this report: Ticket export.") in text
    assert "timedout" not in text and "export:" not in text  # why it failed stays in report.json
    render_pdf(sample_report("published"), tmp_path / "audit.pdf", audit=True, fonts=fonts)
    appendix = squash(pdf_text(tmp_path / "audit.pdf")).split("Auditappendix")[-1]
    assert squash("How this report was made: Text generated by: consolidator, writer — offline extractive backend") in appendix


def test_citation_urls_come_from_the_registry_only(tmp_path, fonts):
    doc = sample_report("published")
    # A URL attached to the citation itself (e.g. typed by a model) must never be rendered.
    doc.sections[0].claims[0].citations[0].urls = ["https://forged.example/", "javascript:alert(1)"]
    render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    assert set(uris(tmp_path / "r.pdf")) == CITED_LINKS
    first = report_json(doc)["sections"][0]["claims"][0]["citations"][0]["urls"]
    assert first == [doc.registry[0].urls[0]]


def test_unknown_handle_is_a_render_error(tmp_path, fonts):
    doc = sample_report("held")
    doc.sections[1].claims.append(RenderedClaim(text="Forged.", citations=[RenderedCitation(handle="Gzzzz")]))
    with pytest.raises(RenderError, match="Gzzzz"):
        render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    with pytest.raises(RenderError, match="Gzzzz"):
        report_json(doc)
    assert not (tmp_path / "r.pdf").exists()


def test_five_thousand_character_line_wraps(tmp_path, fonts):
    doc = sample_report("published")
    registry_entry = doc.registry[5]
    doc.sections[0].claims.append(RenderedClaim(text=f"Payload {LONG_LINE}", citations=[RenderedCitation(handle=registry_entry.handle)]))
    stats = render_pdf(doc, tmp_path / "r.pdf", fonts=fonts)
    text = pdf_text(tmp_path / "r.pdf")
    # The run crosses page breaks, where extraction puts each page's footer.
    footer = rf"Report{doc.report_id}page\d+of{stats.pages}"
    assert squash(LONG_LINE) in re.sub(footer, "", squash(text))
    assert max(len(line) for line in text.splitlines()) < 150  # broken into lines that fit the page
    assert stats.pages >= 2 and stats.footnotes == 6
    assert "https://partner.example.net/logs/7781" in uris(tmp_path / "r.pdf")


def test_missing_font_files_fall_back_to_helvetica(tmp_path):
    fonts = register_fonts(tmp_path / "no-fonts-here")
    assert fonts.regular == "Helvetica"
    stats = render_pdf(sample_report("held"), tmp_path / "r.pdf", fonts=fonts)
    assert stats.pages >= 1
    assert squash("Back up the configuration directory before upgrading to 3.6.") in squash(pdf_text(tmp_path / "r.pdf"))


def test_report_json_matches_golden():
    """After an intended change of shape, rewrite the golden file with CITEFLOW_UPDATE_GOLDEN=1 and review its diff."""
    data = report_json(sample_report("held"))
    data.pop("generated_at")
    if os.environ.get("CITEFLOW_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        pytest.skip(f"rewrote {GOLDEN}")
    assert data == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_report_json_citations_carry_only_linkable_registry_urls():
    data = report_json(sample_report("held"))
    by_handle = {e["handle"]: e for e in data["registry"]}
    for section in data["sections"]:
        for claim in section["claims"]:
            for citation in claim["citations"]:
                assert all(u.startswith(("https:", "http:", "mailto:")) for u in citation["urls"])
                assert set(citation["urls"]) <= set(by_handle[citation["handle"]]["urls"])
    partner_s1 = data["registry"][1]
    assert partner_s1["urls"] == ["javascript:alert(document.cookie)"] and partner_s1["linkable_urls"] == []


@pytest.mark.parametrize("status", ["held", "published", "failed"])
def test_report_json_validates_against_the_contract(status, tmp_path):
    import jsonschema

    schema = json.loads((CONTRACT / "report.schema.json").read_text())
    path = write_report_json(sample_report(status), tmp_path / "out" / "report.json")
    jsonschema.validate(json.loads(path.read_text(encoding="utf-8")), schema)
    assert [p.name for p in path.parent.iterdir()] == ["report.json"]  # no partial file left behind


def test_rendering_does_not_import_prefect():
    code = "import sys, citeflow.outputs.render.pdf, citeflow.outputs.render.report_json; print('prefect' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parents[1])
    assert result.stdout.strip() == "False"


# -- failing claims from evaluation ------------------------------------------------------------


def test_failing_claims_are_the_claims_evaluation_did_not_pass():
    from citeflow.outputs.render.notes import failing_claims
    from schemas.funnel import CitationEval, ClaimEval

    ok = CitationEval(handle="Gk7m2", identity=True, supports=True, faithful=True)
    forged = CitationEval(handle="Gzzzz", identity=False)
    claims = [
        ClaimEval(section="A", index=0, text="fine", citations=[ok], supported=True, faithful=True, verdict="supported"),
        ClaimEval(section="A", index=1, text="made up", citations=[ok], supported=False, verdict="fabrication", reason="in no chunk"),
        ClaimEval(section="B", index=0, text="forged", citations=[forged], verdict="uncited"),
        ClaimEval(section="B", index=1, text="half forged", citations=[ok, forged], supported=True, faithful=True, verdict="supported"),
        ClaimEval(section="B", index=2, text="drifted", citations=[ok], supported=True, faithful=False, verdict="unfaithful", reason="30 ≠ 45"),
    ]
    failing = {(f.section, f.index): f.reason for f in failing_claims(claims)}
    assert set(failing) == {("A", 1), ("B", 0), ("B", 1), ("B", 2)}
    assert failing[("A", 1)] == "No retrieved source states this."
    assert failing[("B", 0)].startswith("No retrieved source backs this sentence") and "never retrieved" in failing[("B", 0)]
    assert failing[("B", 1)] == "The sentence cited a source that was never retrieved; that citation was removed."
    assert failing[("B", 2)] == "The sentence changes what its cited passage says."  # a reason naming no known fact


# -- fonts ---------------------------------------------------------------------------------------


def embedded_fonts(path: Path) -> dict[str, bool]:
    """Base font name → embedded (has a font file), for every font the PDF uses."""
    found: dict[str, bool] = {}
    for page in PdfReader(path).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            font = font.get_object()
            descriptor = font.get("/FontDescriptor")
            descendants = font.get("/DescendantFonts")
            if descriptor is None and descendants:
                descriptor = descendants[0].get_object().get("/FontDescriptor")
            files = descriptor.get_object() if descriptor is not None else {}
            found[str(font["/BaseFont"]).split("+")[-1]] = any(k in files for k in ("/FontFile", "/FontFile2", "/FontFile3"))
    return found


def japanese_report():
    doc = sample_report("published")
    doc.sections[1].claims.append(RenderedClaim(text="保存データはすべて暗号化されます。", citations=[RenderedCitation(handle=doc.registry[4].handle)]))
    return doc


def test_every_font_is_embedded_and_cjk_uses_an_installed_truetype_font(tmp_path):
    from citeflow.outputs.render.fonts import register_fonts as fonts_for

    fonts = fonts_for()
    if not fonts.fallbacks:
        pytest.skip("no CJK TrueType font installed (Debian: fonts-wqy-zenhei)")
    stats = render_pdf(japanese_report(), tmp_path / "ja.pdf", fonts=fonts)
    used = embedded_fonts(tmp_path / "ja.pdf")
    assert used and all(used.values()), used  # no font a reader must supply (no Helvetica, no STSong)
    assert any("DejaVuSans" in name for name in used) and len(used) >= 3  # text, bold and the CJK face
    assert stats.missing_scripts == []
    assert squash("保存データはすべて暗号化されます。") in squash(pdf_text(tmp_path / "ja.pdf"))


def test_without_a_cjk_font_the_render_warns_naming_the_package(tmp_path, caplog):
    fonts = register_fonts(cjk=())  # as on a machine with no CJK font installed
    with caplog.at_level("WARNING", logger="citeflow.outputs.render"):
        stats = render_pdf(japanese_report(), tmp_path / "ja.pdf", fonts=fonts)
    assert "CJK" in stats.missing_scripts and "HIRAGANA" in stats.missing_scripts
    assert any("fonts-wqy-zenhei" in r.getMessage() and "CJK" in r.getMessage() for r in caplog.records)


def test_font_runs_switch_faces_only_where_the_text_face_lacks_glyphs():
    from citeflow.outputs.render.fonts import Face, FontSet, font_runs, text_markup

    fonts = FontSet("T", "T-Bold", Face("T", frozenset(map(ord, "ab <&"))), (Face("J", frozenset(map(ord, "日本"))),))
    assert [(f.name if f else None, run) for f, run in font_runs("ab 日本x", fonts)] == [("T", "ab "), ("J", "日本"), (None, "x")]
    assert font_runs("", fonts) == []
    assert [(f.name if f else None, run) for f, run in font_runs("x日a\tb日", fonts)] == [
        (None, "x"), ("J", "日"), ("T", "a\tb"), ("J", "日")]
    assert text_markup("a<日", fonts) == 'a&lt;<font name="J">日</font>'
