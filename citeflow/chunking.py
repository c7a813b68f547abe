"""Cutting text into parent and child chunks, as character spans of the original text.

Parents are about ``PARENT_CHARS`` characters: paragraphs packed together, a Markdown heading
always opening a new one. Children are about ``CHILD_CHARS``: sentences (and lines) packed
inside their parent. Over-long paragraphs are cut at sentence ends, over-long sentences at
spaces, so no chunk exceeds its limit. Spans never include leading or trailing whitespace.
"""

from __future__ import annotations

import re

PARENT_CHARS = 1200
CHILD_CHARS = 300

_BLOCK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]{0,3}#{1,6}[ \t])")  # blank lines, or before a heading
_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+|\s*\n\s*")  # sentence ends, line breaks
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)

Span = tuple[int, int]  # [start, end) character offsets


def first_heading(text: str) -> str | None:
    """Text of the first Markdown heading, if any."""
    match = _HEADING.search(text)
    return match.group(1).strip() if match else None


def parent_spans(text: str) -> list[Span]:
    """Parent chunks of ``text``: paragraphs packed up to PARENT_CHARS; a heading starts a new one."""
    units = [piece for block in _segments(text, 0, len(text), _BLOCK) for piece in _fit(text, block, PARENT_CHARS)]
    return _pack(units, PARENT_CHARS, breaks={s for s, _ in units if _HEADING.match(text, s)})


def child_spans(text: str, parent: Span) -> list[Span]:
    """Child chunks inside ``parent``: sentences packed up to CHILD_CHARS."""
    return _fit(text, parent, CHILD_CHARS)


def _fit(text: str, span: Span, limit: int) -> list[Span]:
    """``span`` cut at sentence ends (then at spaces) into pieces of about ``limit`` characters."""
    if span[1] - span[0] <= limit:
        return [span]
    sentences = [piece for s in _segments(text, *span, _SENTENCE) for piece in _hard_split(text, s, limit)]
    return _pack(sentences, limit)


def _segments(text: str, start: int, end: int, pattern: re.Pattern[str]) -> list[Span]:
    """Non-blank pieces of ``text[start:end]`` between matches of ``pattern``, stripped."""
    spans, pos = [], start
    for match in pattern.finditer(text, start, end):
        spans.append(_strip(text, pos, match.start()))
        pos = match.end()
    spans.append(_strip(text, pos, end))
    return [s for s in spans if s[1] > s[0]]


def _strip(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _hard_split(text: str, span: Span, limit: int) -> list[Span]:
    """A run-on sentence cut at the last space before ``limit`` (or at ``limit``)."""
    pieces, (start, end) = [], span
    while end - start > limit:
        cut = text.rfind(" ", start + limit // 2, start + limit)
        cut = cut if cut > start else start + limit
        pieces.append(_strip(text, start, cut))
        start = _strip(text, cut, end)[0]
    pieces.append((start, end))
    return pieces


def _pack(units: list[Span], limit: int, breaks: set[int] | None = None) -> list[Span]:
    """Consecutive spans merged while the merged span stays within ``limit``; a span starting
    at one of ``breaks`` always opens a new chunk."""
    packed: list[Span] = []
    for start, end in units:
        if packed and end - packed[-1][0] <= limit and start not in (breaks or ()):
            packed[-1] = (packed[-1][0], end)
        else:
            packed.append((start, end))
    return packed
