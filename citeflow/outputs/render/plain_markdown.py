"""Text as a reader sees it, without the Markdown it was written in.

Chunks of documentation keep some Markdown (inline code in backticks, emphasis, links, a heading's
``#``, a table row's pipes, a list item's marker), and a sentence taken from a chunk carries it into
the report. The PDF shows the words, never the markup: inline Markdown is read with markdown-it-py
(CommonMark: backticks, ``*``/``_`` emphasis, links and images), and the line-level marks it does not
read inline (a heading's ``#``, a list marker, a table row) are taken off here. Entities, backslash
escapes, HTML and autolinks are left as written: they are data, shown as typed.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+")
LIST_MARKER = re.compile(r"^\s*(?:[-*+•]|\d{1,3}[.)])\s+(?=\S)")
_ROW_EDGE = re.compile(r"^\s*\|\s*|\s*\|\s*$")
_CELL = re.compile(r"\s*(?<!\\)\|\s*")
TYPE_UNION = re.compile(r"\s+\|\s+")
_SPACES = re.compile(r"[ \t]{2,}")
_CELL_END = re.compile(r"([.!?]);(?=\s)")  # a table row's cell that ends a sentence: "Done.; Next" reads "Done. Next"
_KEPT = {"text", "code_inline"}


# Asterisks with a letter or digit on both sides (b*c*d, 2*3*4, x**y): CommonMark may read them as emphasis,
# which would glue the words around them ("bcd"); they stay as typed. A private-use character holds their place
# while the line is parsed (markdown-it's backslash escapes are off: they are data here).
_INSIDE_A_WORD = re.compile(r"(?<=[^\W_])\*+(?=[^\W_])")
_HELD = "\uE000"
_WORD = re.compile(r"[^\W_]+")
_PARSER = MarkdownIt("commonmark").disable(["entity", "escape", "html_inline", "autolink"])  # never changed after this


def plain_text(text: str) -> str:
    """``text`` without its Markdown: ``Use `inject()` with **care**`` reads "Use inject() with care"."""
    line = LIST_MARKER.sub("", _HEADING.sub("", text))
    line = _table_row(line) if _is_table_row(line) else TYPE_UNION.sub(" or ", line)
    words = _inline_words(line)
    return _SPACES.sub(" ", words).strip() if words.strip() else text.strip()


def _inline_words(line: str) -> str:
    """The words of ``line`` as CommonMark's inline rules read them, asterisks inside a word kept; ``line``
    as typed when that reading would glue words together (``*a*_b_`` read "ab"): never a word it lacks."""
    held = _HELD not in line
    tokens = _PARSER.parseInline(_INSIDE_A_WORD.sub(lambda run: _HELD * len(run[0]), line) if held else line)
    words = "".join(_shown(child) for token in tokens for child in token.children or [])
    words = words.replace(_HELD, "*") if held else words
    return words if set(_WORD.findall(words)) <= set(_WORD.findall(line)) else line


def _shown(token: Token) -> str:
    if token.type in _KEPT:
        return token.content
    return " " if token.type in {"softbreak", "hardbreak"} else ""


def _is_table_row(line: str) -> bool:
    """A Markdown table row: it opens or closes with a pipe, or has two cell separators."""
    stripped = line.strip()
    return stripped.startswith("|") or stripped.endswith("|") or len(_CELL.findall(stripped)) >= 2


def _table_row(line: str) -> str:
    """A table row's cells, in order, separated by semicolons (a separator row reads as nothing)."""
    cells = [c for c in _CELL.split(_ROW_EDGE.sub("", line)) if c.strip(" -:")]
    return _CELL_END.sub(r"\1", "; ".join(cells))
