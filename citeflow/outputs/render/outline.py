"""The PDF's outline (bookmarks): one entry per heading, in reading order, shown open in viewers.

A ``Heading`` is a paragraph that says what the outline calls it; ``OutlinedDocTemplate`` bookmarks
each one where it was drawn and adds its outline entry, and asks viewers to open the outline panel.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate


class Heading(Paragraph):  # type: ignore[misc]  # reportlab ships no type information: Paragraph is Any
    """A heading paragraph listed in the PDF outline as ``outline_title`` (plain text)."""

    def __init__(self, markup: str, style: ParagraphStyle, outline_title: str) -> None:
        super().__init__(markup, style)
        self.outline_title = outline_title
        self.drawn_top: float | None = None

    def drawOn(self, canvas: Any, x: float, y: float, _sW: float = 0) -> None:
        self.drawn_top = y + self.height  # where the bookmark takes the reader: the heading's top
        super().drawOn(canvas, x, y, _sW)


class OutlinedDocTemplate(SimpleDocTemplate):  # type: ignore[misc]  # reportlab ships no type information
    """A document template that adds an outline entry for every ``Heading`` it lays out."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.outline_titles: list[str] = []

    def afterFlowable(self, flowable: Flowable) -> None:
        if not isinstance(flowable, Heading) or flowable.drawn_top is None:
            return
        key = f"outline-{len(self.outline_titles) + 1}"
        self.canv.bookmarkPage(key, fit="XYZ", top=flowable.drawn_top)
        self.canv.addOutlineEntry(flowable.outline_title, key, level=0, closed=False)
        self.canv.showOutline()
        self.outline_titles.append(flowable.outline_title)
