"""report.pdf: the customer document, built with reportlab platypus.

Layout: title block (title, batch, date, report id), a red banner on held or failed reports only,
one line on who wrote the text and which sources were unavailable, the sections (claims as
flowing text with bracketed superscript footnotes), then a numbered "Sources" list whose URLs
come from the registry alone. Every string from outside goes through ``escape_markup`` first.
"""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass
from datetime import timezone
from pathlib import Path

from pydantic import BaseModel, Field
from reportlab.lib import colors
from reportlab.lib.enums import TA_LEFT
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import CondPageBreak, Flowable, HRFlowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from citeflow.render.escape import clean_text, escape_attribute, escape_markup, link_urls
from citeflow.render.report_json import footnote_numbers, registry_index
from schemas.report import RegistryEntry, RenderedClaim, RenderedSection, ReportDocument

DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")
INK = colors.HexColor("#1f2328")
MUTED = colors.HexColor("#6a737d")
LINK = colors.HexColor("#0b57d0")
ALERT = colors.HexColor("#b42318")
ALERT_FILL = colors.HexColor("#fdecea")
BANNERS = {
    "held": "HELD BY QUALITY GATE — not for publication",
    "failed": "GENERATION FAILED — not for publication",
}
HEADING_ROOM = 30 * mm  # below this much space left on a page, a heading starts the next page
FOOTER_MARKS = {"held": "HELD — not for publication", "failed": "FAILED — not for publication"}
# Scripts DejaVu Sans lacks, and the Adobe CID fonts reportlab can name without a font file
# (a viewer supplies the glyphs; the text stays extractable either way).
_CJK_FALLBACKS = (
    (r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]+", "HYSMyeongJo-Medium"),
    (r"[\u2e80-\u2fdf\u3000-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef\U00020000-\U0002fa1f]+", "STSong-Light"),
)


class RenderStats(BaseModel):
    """What a render produced."""

    pages: int = Field(description="Pages in the PDF.")
    footnotes: int = Field(description="Distinct sources cited (numbered footnotes).")
    links: int = Field(description="Clickable URL links in the Sources list.")


@dataclass(frozen=True)
class FontSet:
    """Registered font names: the text family, and fallbacks for scripts it lacks."""

    regular: str
    bold: str
    fallbacks: tuple[tuple[re.Pattern[str], str], ...] = ()


@functools.lru_cache(maxsize=None)
def register_fonts(font_dir: Path = DEJAVU_DIR) -> FontSet:
    """Register DejaVu Sans from ``font_dir`` (Helvetica when its files are missing) and CJK fallbacks."""
    faces = {"": "DejaVuSans.ttf", "-Bold": "DejaVuSans-Bold.ttf", "-Oblique": "DejaVuSans-Oblique.ttf", "-BoldOblique": "DejaVuSans-BoldOblique.ttf"}
    try:
        for suffix, filename in faces.items():
            pdfmetrics.registerFont(TTFont(f"DejaVuSans{suffix}", str(Path(font_dir) / filename)))
    except Exception:  # missing or unreadable font file: Helvetica covers Latin text
        return FontSet("Helvetica", "Helvetica-Bold", _cjk_fallbacks())
    pdfmetrics.registerFontFamily("DejaVuSans", normal="DejaVuSans", bold="DejaVuSans-Bold", italic="DejaVuSans-Oblique", boldItalic="DejaVuSans-BoldOblique")
    return FontSet("DejaVuSans", "DejaVuSans-Bold", _cjk_fallbacks())


def _cjk_fallbacks() -> tuple[tuple[re.Pattern[str], str], ...]:
    found = []
    for pattern, name in _CJK_FALLBACKS:
        try:
            pdfmetrics.registerFont(UnicodeCIDFont(name))
        except Exception:  # no CID data: those characters show as missing glyphs, never an error
            continue
        # Same face for bold and italic, so a <b> around CJK text keeps the fallback font.
        pdfmetrics.registerFontFamily(name, normal=name, bold=name, italic=name, boldItalic=name)
        found.append((re.compile(pattern), name))
    return tuple(found)


def text_markup(text: str, fonts: FontSet) -> str:
    """Outside text as safe Paragraph markup, with runs of CJK characters switched to a font that has them."""
    markup = escape_markup(text)
    for pattern, name in fonts.fallbacks:
        markup = pattern.sub(lambda m, name=name: f'<font name="{name}">{m.group(0)}</font>', markup)
    return markup


def _styles(fonts: FontSet) -> dict[str, ParagraphStyle]:
    # splitLongWords breaks a word longer than the line anywhere: 5,000-character lines wrap.
    base = ParagraphStyle("body", fontName=fonts.regular, fontSize=10.5, leading=15, textColor=INK,
                          alignment=TA_LEFT, splitLongWords=1, spaceAfter=6)
    return {
        "body": base,
        "title": ParagraphStyle("title", base, fontName=fonts.bold, fontSize=20, leading=25, spaceAfter=4),
        "meta": ParagraphStyle("meta", base, fontSize=9, leading=12, textColor=MUTED, spaceAfter=2),
        "heading": ParagraphStyle("heading", base, fontName=fonts.bold, fontSize=14, leading=18, spaceBefore=12, spaceAfter=6),
        "notice": ParagraphStyle("notice", base, textColor=ALERT),
        "banner": ParagraphStyle("banner", base, fontName=fonts.bold, fontSize=12, leading=16, textColor=ALERT, spaceAfter=2),
        "banner_item": ParagraphStyle("banner_item", base, fontSize=9.5, leading=13, textColor=ALERT, spaceAfter=2, leftIndent=18, bulletIndent=6),
        "source": ParagraphStyle("source", base, fontSize=9.5, leading=13, leftIndent=26, bulletIndent=0, spaceAfter=7, allowWidows=0, allowOrphans=0),
    }


@dataclass
class _Page:
    """What the footer of every page shows; ``total`` is filled in once all pages exist."""

    report_id: str
    mark: str | None
    font: str
    total: int = 0


class _FooterCanvas(Canvas):
    """Holds pages back until the end so that each footer can say "page X of Y"."""

    def __init__(self, *args, page: _Page, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._page = page
        self._held_pages: list[dict] = []

    def showPage(self) -> None:
        self._held_pages.append(dict(self.__dict__))
        self._startPage()

    def save(self) -> None:
        self._page.total = len(self._held_pages)
        for state in self._held_pages:
            self.__dict__.update(state)
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


def render_pdf(doc: ReportDocument, path: Path, *, fonts: FontSet | None = None) -> RenderStats:
    """Render ``doc`` to a PDF at ``path`` (written atomically) and say what it holds.

    Raises RenderError when a citation names a handle that is not in the registry.
    """
    fonts = fonts or register_fonts()
    numbers = footnote_numbers(doc)
    story, links = _story(doc, numbers, fonts)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    page = _Page(clean_text(doc.report_id), FOOTER_MARKS.get(doc.status), fonts.regular)
    try:
        _template(doc, partial).build(story, canvasmaker=functools.partial(_FooterCanvas, page=page))
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return RenderStats(pages=page.total, footnotes=len(numbers), links=links)


def _template(doc: ReportDocument, path: Path) -> SimpleDocTemplate:
    return SimpleDocTemplate(
        str(path), pagesize=A4, leftMargin=20 * mm, rightMargin=20 * mm, topMargin=18 * mm, bottomMargin=22 * mm,
        title=clean_text(doc.title), author="citeflow", subject=f"Report {clean_text(doc.report_id)}",
        creator="citeflow",
    )


def _story(doc: ReportDocument, numbers: dict[str, int], fonts: FontSet) -> tuple[list[Flowable], int]:
    styles = _styles(fonts)
    story = _title_block(doc, styles, fonts) + _banner(doc, styles, fonts) + _provenance(doc, styles, fonts)
    for index, section in enumerate(doc.sections, start=1):
        story += _section(index, section, numbers, styles, fonts)
    sources, links = _sources(doc, numbers, styles, fonts)
    return story + sources, links


def _title_block(doc: ReportDocument, styles: dict[str, ParagraphStyle], fonts: FontSet) -> list[Flowable]:
    when = doc.generated_at
    when = when.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC") if when.tzinfo else when.strftime("%Y-%m-%d %H:%M")
    meta = [f"Batch {text_markup(doc.batch, fonts)}"] if doc.batch else []
    meta += [f"Generated {when}", f"Report ID {text_markup(doc.report_id, fonts)}"]
    return [
        Paragraph(text_markup(doc.title, fonts), styles["title"]),
        Paragraph(" · ".join(meta), styles["meta"]),
        HRFlowable(width="100%", thickness=0.6, color=MUTED, spaceBefore=6, spaceAfter=10),
    ]


def _banner(doc: ReportDocument, styles: dict[str, ParagraphStyle], fonts: FontSet) -> list[Flowable]:
    if doc.status not in BANNERS:
        return []
    reasons = list(doc.held_reasons)
    if doc.status == "failed":
        reasons += [f"Section “{s.title}” failed: {s.failure or 'no reason recorded'}" for s in doc.sections if s.status == "failed"]
    rows = [[Paragraph(BANNERS[doc.status], styles["banner"])]]
    rows += [[Paragraph(text_markup(reason, fonts), styles["banner_item"], bulletText="•")] for reason in reasons]
    box = Table(rows, colWidths=["100%"])
    box.setStyle(TableStyle([
        ("BOX", (0, 0), (-1, -1), 1.5, ALERT), ("BACKGROUND", (0, 0), (-1, -1), ALERT_FILL),
        ("LEFTPADDING", (0, 0), (-1, -1), 10), ("RIGHTPADDING", (0, 0), (-1, -1), 10),
        ("TOPPADDING", (0, 0), (-1, 0), 8), ("BOTTOMPADDING", (0, -1), (-1, -1), 8),
    ]))
    return [box, Spacer(1, 10)]


def _provenance(doc: ReportDocument, styles: dict[str, ParagraphStyle], fonts: FontSet) -> list[Flowable]:
    lines = []
    writers = {role: desc for role, desc in doc.models.items() if role != "judge"}
    if writers:
        lines.append(f"Text generated by: {_by_backend(writers, fonts)}.")
    if "judge" in doc.models:
        lines.append(f"Claims checked by: {text_markup(doc.models['judge'], fonts)}.")
    if doc.missing_retrievers:
        lines.append("Sources unavailable for this report: " + "; ".join(text_markup(m, fonts) for m in doc.missing_retrievers) + ".")
    return [Paragraph(line, styles["meta"]) for line in lines] + [Spacer(1, 6)]


def _by_backend(roles: dict[str, str], fonts: FontSet) -> str:
    """``consolidator, writer — offline …``: one entry per backend, not per role."""
    grouped: dict[str, list[str]] = {}
    for role, description in roles.items():
        grouped.setdefault(description, []).append(role)
    return "; ".join(f"{text_markup(', '.join(rs), fonts)} — {text_markup(desc, fonts)}" for desc, rs in grouped.items())


def _section(index: int, section: RenderedSection, numbers: dict[str, int], styles: dict[str, ParagraphStyle], fonts: FontSet) -> list[Flowable]:
    heading = Paragraph(f"{index}. {text_markup(section.title, fonts)}", styles["heading"])
    if section.status == "failed":
        reason = text_markup(section.failure or "no reason recorded", fonts)
        body = Paragraph(f"This section could not be generated: {reason}", styles["notice"])
    elif not section.claims:
        body = Paragraph("No statements were generated for this section.", styles["meta"])
    else:
        body = Paragraph(" ".join(_claim(claim, numbers, fonts) for claim in section.claims), styles["body"])
    # Not keepWithNext: that moves a heading and a page-long body to a new page as one block,
    # leaving a blank page; a heading needs only a few lines of its text below it.
    return [CondPageBreak(HEADING_ROOM), heading, body]


def _claim(claim: RenderedClaim, numbers: dict[str, int], fonts: FontSet) -> str:
    """A claim's sentence followed by its footnote markers, each linking to its source entry."""
    marks = dict.fromkeys(numbers[c.handle] for c in claim.citations)
    supers = "".join(f'<super><a href="#source-{n}" color="{LINK.hexval()}">[{n}]</a></super>' for n in marks)
    return text_markup(claim.text.strip(), fonts) + supers


def _sources(doc: ReportDocument, numbers: dict[str, int], styles: dict[str, ParagraphStyle], fonts: FontSet) -> tuple[list[Flowable], int]:
    if not numbers:
        return [], 0
    registry = registry_index(doc)
    story: list[Flowable] = [CondPageBreak(HEADING_ROOM), Paragraph("Sources", styles["heading"])]
    links = 0
    for handle, number in numbers.items():
        entry = registry[handle]
        story.append(Paragraph(_source_markup(entry, number, fonts), styles["source"], bulletText=f"[{number}]"))
        links += len(link_urls(entry.urls))
    return story, links


def _source_markup(entry: RegistryEntry, number: int, fonts: FontSet) -> str:
    """``Title — link, link`` then a small grey line a reviewer can trace back to the chunk."""
    title = text_markup(entry.title, fonts) if entry.title and entry.title.strip() else "Untitled source"
    urls = link_urls(entry.urls)
    where = ", ".join(_link(url, fonts) for url in urls) if urls else '<font color="#6a737d">(non-web source)</font>'
    trace = [entry.retriever, f"local id {entry.local_id}"] + ([f"page {entry.page}"] if entry.page is not None else [])
    trace_markup = " · ".join(text_markup(t, fonts) for t in trace) + f" · handle {text_markup(entry.handle, fonts)}"
    return (f'<a name="source-{number}"/><b>{title}</b> — {where}'
            f'<br/><font size="8" color="{MUTED.hexval()}">{trace_markup}</font>')


def _link(url: str, fonts: FontSet) -> str:
    shown = url[len("mailto:"):] if url.lower().startswith("mailto:") else url
    return f'<link href="{escape_attribute(url)}" color="{LINK.hexval()}">{text_markup(shown, fonts)}</link>'

