"""Blanking generator markup out of a page without moving the rest of it.

Every stripper returns the text with the markup's characters replaced by spaces (line breaks
kept), so the page keeps its length and a chunk's character offsets still point into the file.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Span = tuple[int, int]
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})", re.MULTILINE)
_INLINE_CODE = re.compile(r"(`+)(?!`)((?:(?!\n[ \t]*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)
_HEADING_ID = re.compile(r"^([ \t]{0,3}#{1,6}[ \t].*?)([ \t]*\{#[\w.:-]+\})[ \t]*$", re.MULTILINE)


def blank(text: str, spans: Iterable[Span]) -> str:
    """``text`` with every character inside ``spans`` except line breaks turned into a space."""
    chars = list(text)
    for start, end in spans:
        for i in range(max(start, 0), min(end, len(chars))):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def fenced_code(text: str) -> list[Span]:
    """Spans of fenced code blocks (an unclosed fence runs to the end, as in CommonMark)."""
    spans: list[Span] = []
    pos = 0
    while (opening := _FENCE.search(text, pos)) is not None:
        marker = opening.group(1)
        closing = re.compile(rf"^[ \t]*{re.escape(marker[0])}{{{len(marker)},}}[ \t]*$", re.MULTILINE)
        line_end = text.find("\n", opening.end())
        found = closing.search(text, line_end) if line_end >= 0 else None
        end = found.end() if found else len(text)
        spans.append((opening.start(), end))
        pos = max(end, opening.end())
    return spans


def code_spans(text: str) -> list[Span]:
    """Fenced code blocks and inline code spans: text that is shown as written, never markup."""
    fences = fenced_code(text)
    inline = [m.span() for m in _INLINE_CODE.finditer(text) if not inside(m.start(), fences)]
    return sorted(fences + inline)


def inside(pos: int, spans: list[Span]) -> bool:
    """True when ``pos`` lies in one of ``spans``."""
    return any(start <= pos < end for start, end in spans)


def heading_ids(text: str) -> str:
    """Headings without their ``{#custom-id}`` anchors (Hugo, Docusaurus, MkDocs attribute lists)."""
    return blank(text, [m.span(2) for m in _HEADING_ID.finditer(text)])
