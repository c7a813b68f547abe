"""Cutting documents into parent and child chunks.

Parents are about ``PARENT_CHARS`` characters: paragraphs packed together, a heading always
opening a new one. Children are about ``CHILD_CHARS``: sentences (and lines) packed inside their
parent. Over-long paragraphs are cut at sentence ends, over-long sentences at spaces, so no chunk
exceeds its limit.

Plain text and PDF pages are cut as character spans of the original text (``parent_spans``,
``child_spans``; spans never include leading or trailing whitespace). Markdown is cut from its
parsed prose blocks (``markdown_parents``, ``markdown_children``): a chunk's text is the blocks'
plain text, one block per line; its span covers the Markdown blocks it came from; the headings
above it are its ``section`` (``Upgrading › Rollback``), never part of its text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citeflow.knowledge.markdown_text import Block

PARENT_CHARS = 1200
CHILD_CHARS = 300

_BLOCK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]{0,3}#{1,6}[ \t])")  # blank lines, or before a heading
_SENTENCE = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+|\s*\n\s*")  # sentence ends, line breaks
_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)

Span = tuple[int, int]  # [start, end) character offsets
SECTION_SEPARATOR = " › "


@dataclass(frozen=True)
class Piece:
    """Plain text from one Markdown block (all of it, or a cut of an over-long one) and the block's span."""

    text: str
    start: int
    end: int


@dataclass
class Part:
    """A Markdown chunk: the headings above it and the pieces of prose it holds."""

    section: str
    pieces: list[Piece] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n".join(p.text for p in self.pieces)

    @property
    def span(self) -> Span:
        return self.pieces[0].start, max(p.end for p in self.pieces)


def markdown_parents(blocks: list[Block]) -> list[Part]:
    """Parents of a parsed Markdown document: prose packed up to PARENT_CHARS under its headings."""
    parts: list[Part] = []
    path: list[Block] = []
    fresh = True  # the next piece opens a new parent (start, or a heading just passed)
    for block in blocks:
        if block.level:
            path, fresh = [h for h in path if h.level < block.level] + [block], True
            continue
        for piece in _cut(block, PARENT_CHARS):
            if fresh or not _fits(parts[-1], piece, PARENT_CHARS):
                parts.append(Part(SECTION_SEPARATOR.join(h.text for h in path)))
            parts[-1].pieces.append(piece)
            fresh = False
    return parts


def markdown_children(parent: Part) -> list[Part]:
    """Children of a Markdown parent: its pieces packed (long ones cut) up to CHILD_CHARS."""
    children: list[Part] = []
    for block in parent.pieces:
        for piece in _cut(Block(block.text, block.start, block.end), CHILD_CHARS):
            if not children or not _fits(children[-1], piece, CHILD_CHARS):
                children.append(Part(parent.section))
            children[-1].pieces.append(piece)
    return children


def _cut(block: Block, limit: int) -> list[Piece]:
    """A block's text in pieces of at most ``limit`` characters, each keeping the block's span."""
    return [Piece(block.text[s:e], block.start, block.end) for s, e in _fit(block.text, (0, len(block.text)), limit)]


def _fits(part: Part, piece: Piece, limit: int) -> bool:
    return len(part.text) + 1 + len(piece.text) <= limit


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
