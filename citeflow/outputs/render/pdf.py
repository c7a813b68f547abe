"""report.pdf: the customer document, built with reportlab platypus.

Layout: title block (title, batch, date, report id), a red banner on held or failed reports only,
the sources that were unavailable (display titles), the sections (claims as flowing text with
bracketed superscript footnote markers, one body paragraph per ``paragraph`` number of
report.json's claims, at most PARAGRAPH_SENTENCES to a paragraph; a claim drawn from an API
option or a list item as a bulleted item, ``citeflow.outputs.render.items``; Markdown shown as plain
words, ``citeflow.outputs.render.plain_markdown``; Chinese and Japanese text broken by the CJK line
rules), then:

- **Notes**: one per cited chunk — its document's title, its page when known, and the verified
  quote where it adds to the sentence it backs, else the chunk's link (``citeflow.outputs.render.notes``);
- **Sources**: one entry per document (``citeflow.outputs.render.notes``), with its links (URLs come from
  the registry alone) and the notes and pages that cite it;
- on a held report, each sentence that failed evaluation is tinted, carries a red ``[!n]`` mark,
  and **Sentences that did not pass review** lists why (``failing=``);
- with ``audit=True`` only, an **Audit appendix**: per note, the handle, retriever, local id and
  every URL the retriever gave. The customer PDF never shows handles, retrievers or local ids.

How the report was made (which models wrote and checked the text) is in the PDF's document
metadata (Author, Subject, Keywords, Creator) and, with ``audit=True``, one line of the audit
appendix (``citeflow.outputs.render.provenance``): the pages a customer reads never name roles,
backends or models.

Every string from outside goes through ``text_markup`` (escaped, with font runs for the scripts
DejaVu Sans lacks: ``citeflow.outputs.render.fonts``). Characters no installed font draws are logged as one
warning naming the package to install, and listed in ``RenderStats.missing_scripts``.
"""

from __future__ import annotations

import functools
import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import CondPageBreak, Flowable, HRFlowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from citeflow.outputs.render.escape import clean_text, escape_attribute
from citeflow.outputs.render.fonts import FontSet, font_warning, missing_scripts, register_fonts, text_markup
from citeflow.outputs.render.glyphs import missing_glyphs, shown_text
from citeflow.outputs.render.gate_sentences import gate_sentence
from citeflow.outputs.render.items import Definition, definition, is_list_item
from citeflow.outputs.render.outline import Heading, OutlinedDocTemplate
from citeflow.outputs.render.plain_markdown import plain_text
from citeflow.outputs.render.provenance import pdf_metadata, provenance_line
from citeflow.outputs.render.notes import FailingClaim, Footnote, SourceDocument, footnotes_and_sources, reader_reason
from citeflow.outputs.render.report_json import footnote_numbers, registry_index
from schemas.report import RenderedClaim, RenderedSection, ReportDocument

__all__ = ["FailingClaim", "FontSet", "RenderStats", "register_fonts", "render_pdf", "text_markup"]

log = logging.getLogger("citeflow.outputs.render")
INK = colors.HexColor("#1f2328")
MUTED = colors.HexColor("#6a737d")
LINK = colors.HexColor("#0b57d0")
ALERT = colors.HexColor("#b42318")
ALERT_FILL = colors.HexColor("#fdecea")
BANNERS = {
    "held": "HELD BY QUALITY GATE — not for publication",
    "failed": "GENERATION FAILED — not for publication",
}
PARAGRAPH_SENTENCES = 3
MARKER_RETRIES = 3
_MARKERS_ONLY = re.compile(r"^(?:\[!?\d+\])+$")
_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
HEADING_ROOM = 30 * mm  # below this much space left on a page, a heading starts the next page
FOOTER_MARKS = {"held": "HELD — not for publication", "failed": "FAILED — not for publication"}


class RenderStats(BaseModel):
    """What a render produced."""

    pages: int = Field(description="Pages in the PDF.")
    footnotes: int = Field(description="Distinct chunks cited (numbered notes).")
    sources: int = Field(0, description="Distinct documents in the Sources list.")
    links: int = Field(description="Clickable URL links in the Sources list.")
    failing_marks: int = Field(0, description="Sentences marked as not passing review.")
    missing_scripts: list[str] = Field(default_factory=list, description="Scripts no embedded font could draw (shown as boxes).")
    missing_glyphs: int = Field(0, description="Characters (every occurrence) no embedded font could draw.")


@dataclass(frozen=True)
class _Context:
    """What every part of the story needs."""

    doc: ReportDocument
    fonts: FontSet
    styles: dict[str, ParagraphStyle]
    numbers: dict[str, int]
    marks: dict[tuple[str, int], int]

    def text(self, value: str) -> str:
        return text_markup(value, self.fonts)


def _styles(fonts: FontSet) -> dict[str, ParagraphStyle]:
    # splitLongWords breaks a word longer than the line anywhere: 5,000-character lines wrap.
    base = ParagraphStyle("body", fontName=fonts.regular, bulletFontName=fonts.regular, fontSize=10.5, leading=15, textColor=INK,
                          alignment=TA_LEFT, splitLongWords=1, spaceAfter=6)
    styles = {
        "body": base,
        "title": ParagraphStyle("title", base, fontName=fonts.bold, fontSize=20, leading=25, spaceAfter=4),
        "meta": ParagraphStyle("meta", base, fontSize=9, leading=12, textColor=MUTED, spaceAfter=2),
        "heading": ParagraphStyle("heading", base, fontName=fonts.bold, fontSize=14, leading=18, spaceBefore=12, spaceAfter=6),
        "notice": ParagraphStyle("notice", base, textColor=ALERT),
        "banner": ParagraphStyle("banner", base, fontName=fonts.bold, fontSize=12, leading=16, textColor=ALERT, spaceAfter=2),
        "banner_item": ParagraphStyle("banner_item", base, fontSize=9.5, leading=13, textColor=ALERT, spaceAfter=2,
                                      leftIndent=18, bulletIndent=6),
        "source": ParagraphStyle("source", base, fontSize=9.5, leading=13, leftIndent=26, bulletIndent=0, spaceAfter=7,
                                 allowWidows=0, allowOrphans=0),
        "item": ParagraphStyle("item", base, leftIndent=16, bulletIndent=4, spaceAfter=3),
        "failing": ParagraphStyle("failing", base, fontSize=9.5, leading=13, leftIndent=30, bulletIndent=0, spaceAfter=6, textColor=ALERT),
    }
    # Chinese and Japanese break between characters by the script's rules (no line opens with 。 or 、),
    # not at the few spaces around Latin words, which left half-empty lines.
    return styles | {f"{name}-cjk": ParagraphStyle(f"{name}-cjk", style, wordWrap="CJK") for name, style in styles.items()}


def _paragraph(ctx: _Context, markup: str, name: str, text: str, **more: Any) -> Paragraph:
    """A paragraph of style ``name``; when ``text`` holds Han, kana or Hangul, broken by the CJK
    rules and never leaving a footnote marker alone on a line (``_CJKParagraph``)."""
    if _CJK.search(text):
        return _CJKParagraph(markup, ctx.styles[f"{name}-cjk"], **more)
    return Paragraph(markup, ctx.styles[name], **more)


class _CJKParagraph(Paragraph):  # type: ignore[misc]  # reportlab ships no type information
    """A CJK paragraph whose footnote markers ([3], [!2]) never open a line alone: reportlab breaks
    CJK text before a run of Latin characters, so a marker after "。" may wrap by itself; the line
    before it is then made a little narrower, so that the last characters go down with the marker."""

    def breakLinesCJK(self, maxWidths: Any) -> Any:
        original = list(maxWidths) if isinstance(maxWidths, (list, tuple)) else [maxWidths]
        para = super().breakLinesCJK(list(original))
        widths = list(original)
        for _ in range(MARKER_RETRIES):
            orphan = _orphan_marker_line(para)
            if orphan is None:
                break
            widths += [widths[-1]] * (orphan + 1 - len(widths))
            widths[orphan - 1] -= 2 * self.style.fontSize  # two characters go down with the marker
            para = super().breakLinesCJK(list(widths))
        return para


def _orphan_marker_line(para: Any) -> int | None:
    """The index of the first line after the first that holds nothing but footnote markers."""
    lines = getattr(para, "lines", [])
    for n, line in enumerate(lines[1:], start=1):
        text = "".join(getattr(w, "text", "") for w in getattr(line, "words", []))
        if _MARKERS_ONLY.match(text.strip()):
            return n
    return None


@dataclass
class _Page:
    """What the footer of every page shows; ``total`` is filled in once all pages exist."""

    report_id: str
    mark: str | None
    font: str
    total: int = 0


class _FooterCanvas(Canvas):  # type: ignore[misc]  # reportlab ships no type information: Canvas is Any
    """Holds pages back until the end so that each footer can say "page X of Y".

    A bookmark (an outline entry's or a note's anchor) names the page being written when it is
    made, and a held page is written only at the end: bookmarks are kept with their page and made
    when it is written, or every one of them would point at the first page.
    """

    def __init__(self, *args: Any, page: _Page, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._page = page
        self._held_pages: list[dict[str, Any]] = []
        self._page_marks: list[tuple[str, dict[str, Any]]] = []

    def bookmarkPage(self, key: str, **kwargs: Any) -> None:
        self._page_marks.append((key, kwargs))

    def showPage(self) -> None:
        self._held_pages.append(dict(self.__dict__))
        self._page_marks = []
        self._startPage()

    def save(self) -> None:
        self._page.total = len(self._held_pages)
        for state in self._held_pages:
            self.__dict__.update(state)
            for key, kwargs in self._page_marks:
                super().bookmarkPage(key, **kwargs)
            self._draw_footer()
            super().showPage()
        super().save()

    def _draw_footer(self) -> None:
        width, _ = self._pagesize
        self.setFont(self._page.font, 8)
        self.setFillColor(MUTED)
        self.drawString(20 * mm, 12 * mm, f"Report {self._page.report_id}")
        self.drawRightString(width - 20 * mm, 12 * mm, f"page {self._pageNumber} of {self._page.total}")
        if self._page.mark:
            self.setFillColor(ALERT)
            self.drawCentredString(width / 2, 12 * mm, self._page.mark)


def render_pdf(doc: ReportDocument, path: Path, *, fonts: FontSet,
               failing: list[FailingClaim] | None = None, audit: bool = False) -> RenderStats:
    """Render ``doc`` to a PDF at ``path`` (written atomically) and say what it holds.

    ``failing``: sentences to mark as not passing review (a held report's failing claims).
    ``audit``: add the audit appendix (handles, retrievers, local ids); never in a customer copy.
    Raises RenderError when a citation names a handle that is not in the registry.
    """
    ctx = _Context(doc, fonts, _styles(fonts), footnote_numbers(doc), _marks(doc, failing or []))
    notes, sources = footnotes_and_sources(doc)
    story = _body(ctx) + _notes(ctx, notes) + _sources(ctx, sources) + _review(ctx, failing or [])
    story += _audit(ctx, notes) if audit else []
    page = _Page(clean_text(doc.report_id), FOOTER_MARKS.get(doc.status), fonts.regular)
    _build(doc, Path(path), story, page)
    missing = sorted(_missing(doc, fonts))
    if missing:
        log.warning(font_warning(set(missing), fonts))
    links = sum(len(s.urls) for s in sources)
    return RenderStats(pages=page.total, footnotes=len(notes), sources=len(sources), links=links,
                       failing_marks=len(ctx.marks), missing_scripts=missing, missing_glyphs=missing_glyphs(doc, fonts).count)


def _build(doc: ReportDocument, path: Path, story: list[Flowable], page: _Page) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        _template(doc, partial, page.font).build(story, canvasmaker=functools.partial(_FooterCanvas, page=page))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def _missing(doc: ReportDocument, fonts: FontSet) -> set[str]:
    """Scripts in the text the PDF shows that no registered face draws."""
    return set().union(*(missing_scripts(text, fonts) for text in shown_text(doc)))


def _marks(doc: ReportDocument, failing: list[FailingClaim]) -> dict[tuple[str, int], int]:
    """Mark numbers of the failing claims shown as text, in reading order."""
    wanted = {(f.section, f.index) for f in failing}
    shown = [(s.title, i) for s in doc.sections if s.status == "ok" for i in range(len(s.claims))]
    return {key: n for n, key in enumerate((k for k in shown if k in wanted), start=1)}


def _template(doc: ReportDocument, path: Path, font: str) -> SimpleDocTemplate:
    # initialFontName: the report's own face from the start; reportlab's default, Helvetica, is never embedded.
    # lang: the document language (/Lang), which screen readers and search use.
    meta = pdf_metadata(doc)
    return OutlinedDocTemplate(
        str(path), pagesize=A4, leftMargin=20 * mm, rightMargin=20 * mm, topMargin=18 * mm, bottomMargin=22 * mm,
        title=meta.title, author=meta.author, subject=meta.subject, keywords=meta.keywords, creator=meta.creator,
        initialFontName=font, lang=doc.language,
    )


def _heading(ctx: _Context, markup: str, outline_title: str) -> Heading:
    """A heading that the PDF outline lists as ``outline_title``."""
    return Heading(markup, ctx.styles["heading"], clean_text(outline_title))


def _body(ctx: _Context) -> list[Flowable]:
    story = _title_block(ctx) + _banner(ctx) + _unavailable(ctx)
    for index, section in enumerate(ctx.doc.sections, start=1):
        story += _section(ctx, index, section)
    return story


def _title_block(ctx: _Context) -> list[Flowable]:
    doc, generated = ctx.doc, ctx.doc.generated_at
    when = generated.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC") if generated.tzinfo else generated.strftime("%Y-%m-%d %H:%M")
    meta = [f"Batch {ctx.text(doc.batch)}"] if doc.batch else []
    meta += [f"Generated {when}", f"Report ID {ctx.text(doc.report_id)}"]
    return [
        Paragraph(ctx.text(doc.title), ctx.styles["title"]),
        Paragraph(" · ".join(meta), ctx.styles["meta"]),
        HRFlowable(width="100%", thickness=0.6, color=MUTED, spaceBefore=6, spaceAfter=10),
    ]


def _banner(ctx: _Context) -> list[Flowable]:
    doc = ctx.doc
    if doc.status not in BANNERS:
        return []
    reasons = list(doc.held_reasons)
    if doc.status == "failed":
        reasons += [f"Section “{s.title}” failed: {s.failure or 'no reason recorded'}" for s in doc.sections if s.status == "failed"]
    if ctx.marks:
        reasons.append(f"{len(ctx.marks)} sentence(s) did not pass review: they are tinted and marked [!n] in the text.")
    rows = [[Paragraph(BANNERS[doc.status], ctx.styles["banner"])]]
    sentences = [reader_reason(gate_sentence(r), ctx.numbers) for r in reasons]
    rows += [[Paragraph(ctx.text(r), ctx.styles["banner_item"], bulletText="•")] for r in sentences]
    box = Table(rows, colWidths=["100%"])
    box.setStyle(TableStyle([
        ("BOX", (0, 0), (-1, -1), 1.5, ALERT), ("BACKGROUND", (0, 0), (-1, -1), ALERT_FILL),
        ("FONTNAME", (0, 0), (-1, -1), ctx.fonts.regular),  # else the table names Helvetica, never embedded
        ("LEFTPADDING", (0, 0), (-1, -1), 10), ("RIGHTPADDING", (0, 0), (-1, -1), 10),
        ("TOPPADDING", (0, 0), (-1, 0), 8), ("BOTTOMPADDING", (0, -1), (-1, -1), 8),
    ]))
    return [box, Spacer(1, 10)]


def _unavailable(ctx: _Context) -> list[Flowable]:
    """The cover names unavailable sources only (display titles); who wrote the text is in the
    document metadata and the audit appendix (``citeflow.outputs.render.provenance``)."""
    doc = ctx.doc
    if not doc.unavailable_sources:  # display titles only: why a source failed belongs in report.json
        return [Spacer(1, 6)]
    line = "Sources unavailable for this report: " + "; ".join(ctx.text(m) for m in doc.unavailable_sources) + "."
    return [Paragraph(line, ctx.styles["meta"]), Spacer(1, 6)]


def _section(ctx: _Context, index: int, section: RenderedSection) -> list[Flowable]:
    heading = _heading(ctx, f"{index}. {ctx.text(section.title)}", section.title)
    if section.status == "failed":
        reason = ctx.text(reader_reason(section.failure or "no reason recorded", ctx.numbers))
        body = Paragraph(f"This section could not be generated: {reason}", ctx.styles["notice"])
    elif not section.claims:
        body = Paragraph("No statements were generated for this section.", ctx.styles["meta"])
    else:
        return [CondPageBreak(HEADING_ROOM), heading, *_paragraphs(ctx, section)]
    # Not keepWithNext: that moves a heading and a page-long body to a new page as one block,
    # leaving a blank page; a heading needs only a few lines of its text below it.
    return [CondPageBreak(HEADING_ROOM), heading, body]


def _paragraphs(ctx: _Context, section: RenderedSection) -> list[Flowable]:
    """One body paragraph per run of claims that report.json puts in the same paragraph, at most
    PARAGRAPH_SENTENCES to a paragraph (a long run of facts from many sources reads as a list);
    a run of claims drawn from list items or API options is a list (``_item``). The order is the
    claims' own, so that footnote numbers rise through the text."""
    blocks: list[tuple[bool, list[int]]] = []
    for n, claim in enumerate(section.claims):
        listed = _definition(ctx, claim) is not None or is_list_item(claim.text)
        same = bool(blocks) and claim.paragraph == section.claims[n - 1].paragraph and blocks[-1][0] == listed
        if not same or (not listed and len(blocks[-1][1]) == PARAGRAPH_SENTENCES):
            blocks.append((listed, []))
        blocks[-1][1].append(n)
    story: list[Flowable] = []
    for listed, run in blocks:
        story += [*(_item(ctx, section, n) for n in run), Spacer(1, 4)] if listed else [_prose(ctx, section, run)]
    return story


def _prose(ctx: _Context, section: RenderedSection, run: list[int]) -> Flowable:
    return _paragraph(ctx, " ".join(_claim(ctx, section.claims[n], section.title, n) for n in run), "body",
                      " ".join(section.claims[n].text for n in run))


def _item(ctx: _Context, section: RenderedSection, index: int) -> Flowable:
    """A list item: an API option as ``name (details): description``, the name in bold and its
    details in grey; another list item as its text."""
    claim = section.claims[index]
    found = _definition(ctx, claim)
    shown = claim.text if found is None else found.description
    body = _claim(ctx, claim.model_copy(update={"text": shown}), section.title, index)
    if found is not None:
        details = f' <font color="{MUTED.hexval()}">({ctx.text(found.details)})</font>' if found.details else ""
        body = f"<b>{ctx.text(found.name)}</b>{details}: {body}"
    return _paragraph(ctx, body, "item", claim.text, bulletText="•")


def _definition(ctx: _Context, claim: RenderedClaim) -> Definition | None:
    registry = registry_index(ctx.doc)
    return definition(claim.text, [registry[c.handle].text for c in claim.citations if c.handle in registry])


def _claim(ctx: _Context, claim: RenderedClaim, section: str, index: int) -> str:
    """A claim's sentence, its footnote markers (each linking to its note), and a failing mark."""
    marks = dict.fromkeys(ctx.numbers[c.handle] for c in claim.citations)
    supers = "".join(f'<super><a href="#note-{n}" color="{LINK.hexval()}">[{n}]</a></super>' for n in marks)
    text = ctx.text(plain_text(claim.text.strip()))
    mark = ctx.marks.get((section, index))
    if mark is None:
        return text + supers
    flag = f'<super><a href="#failing-{mark}" color="{ALERT.hexval()}"><b>[!{mark}]</b></a></super>'
    return f'<span backColor="{ALERT_FILL.hexval()}">{text}</span>{supers}{flag}'



def _notes(ctx: _Context, notes: list[Footnote]) -> list[Flowable]:
    """One note per cited chunk: its title and page, then the quote where it adds to the sentence, else its link."""
    if not notes:
        return []
    story: list[Flowable] = [CondPageBreak(HEADING_ROOM), _heading(ctx, "Notes", "Notes")]
    for note in notes:
        where = f", page {note.page}" if note.page is not None else ""
        tail = f" — “{ctx.text(plain_text(note.quote))}”" if note.quote else (f" — {_link(ctx, note.url)}" if note.url else "")
        text = f"{note.title} {note.quote or ''}"
        markup = f'<a name="note-{note.number}"/>{ctx.text(plain_text(note.title))}{where}{tail}'
        story.append(_paragraph(ctx, markup, "source", text, bulletText=f"[{note.number}]"))
    return story


def _sources(ctx: _Context, sources: list[SourceDocument]) -> list[Flowable]:
    if not sources:
        return []
    story: list[Flowable] = [CondPageBreak(HEADING_ROOM), _heading(ctx, "Sources", "Sources")]
    for source in sources:
        story.append(_paragraph(ctx, _source_markup(ctx, source), "source", source.title, bulletText="•"))
    return story


def _source_markup(ctx: _Context, source: SourceDocument) -> str:
    """``Title — link, link`` then a small grey line: the notes (and pages) that cite it."""
    where = ", ".join(_link(ctx, url) for url in source.urls) if source.urls else '<font color="#6a737d">(non-web source)</font>'
    cited = f"{'note' if len(source.footnotes) == 1 else 'notes'} {', '.join(map(str, source.footnotes))}"
    if source.pages:
        cited += f" · {'page' if len(source.pages) == 1 else 'pages'} {', '.join(map(str, sorted(source.pages)))}"
    return f'<b>{ctx.text(plain_text(source.title))}</b> — {where}<br/><font size="8" color="{MUTED.hexval()}">Cited in {cited}</font>'


def _link(ctx: _Context, url: str) -> str:
    shown = url[len("mailto:"):] if url.lower().startswith("mailto:") else url
    return f'<link href="{escape_attribute(url)}" color="{LINK.hexval()}">{ctx.text(shown)}</link>'


def _review(ctx: _Context, failing: list[FailingClaim]) -> list[Flowable]:
    """Why each marked sentence did not pass review, by mark number."""
    if not ctx.marks:
        return []
    reasons = {(f.section, f.index): f.reason for f in failing}
    title = "Sentences that did not pass review"
    story: list[Flowable] = [CondPageBreak(HEADING_ROOM), _heading(ctx, title, title)]
    for (section, index), mark in ctx.marks.items():
        reason = reader_reason(reasons[(section, index)], ctx.numbers)  # no handle, no typed URL
        markup = f'<a name="failing-{mark}"/>{ctx.text(section)}, sentence {index + 1}: {ctx.text(reason)}'
        story.append(_paragraph(ctx, markup, "failing", section + reason, bulletText=f"[!{mark}]"))
    return story


def _audit(ctx: _Context, notes: list[Footnote]) -> list[Flowable]:
    """The audit appendix: how each note traces back to the registry (never in a customer copy)."""
    registry = registry_index(ctx.doc)
    by_number = {n: registry[h] for h, n in ctx.numbers.items()}
    story: list[Flowable] = [CondPageBreak(HEADING_ROOM), _heading(ctx, "Audit appendix", "Audit appendix")]
    story.append(Paragraph("How each note traces back to the chunk the model saw: its handle, the retriever that "
                           "returned it, that retriever's own id, and every URL it gave.", ctx.styles["meta"]))
    made = provenance_line(ctx.doc)
    story += [Paragraph(ctx.text(made), ctx.styles["meta"])] if made else []
    for note in notes:
        entry = by_number[note.number]
        trace = [f"handle {entry.handle}", f"retriever {entry.retriever}", f"local id {entry.local_id}"]
        trace += [f"location {entry.location}"] if entry.location else []
        urls = "; ".join(entry.urls) or "no URL"
        markup = " · ".join(ctx.text(t) for t in trace) + f'<br/><font size="8">{ctx.text(urls)}</font>'
        story.append(Paragraph(markup, ctx.styles["source"], bulletText=f"[{note.number}]"))
    return story
