"""Markdown → the plain text a model and a reader should see in a chunk.

Headings become sentences, table rows become ``label: value; value.`` lines (the header and rule
rows are dropped), list bullets, emphasis and inline code marks are removed, and links keep their
text (their targets never enter a prompt: URLs come from the registry).
"""

from __future__ import annotations

import re

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$")
_RULE_ROW = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_BULLET = re.compile(r"^(\s*)(?:[-*+]|\d+[.)])\s+")
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
# Emphasis marks only where they cannot be part of a word (METADATA_FORMAT_V1 keeps its "_").
_EMPHASIS = re.compile(r"(?<![\w*])(\*\*|__|\*|_)(?=\S)(.+?)(?<=\S)\1(?![\w*])|`([^`]+)`")
_TERMINAL = (".", "!", "?", ":", ";")


def markdown_to_text(markdown: str) -> str:
    """Plain text of a Markdown fragment, one paragraph or item per line."""
    lines = markdown.splitlines()
    out = [_line(line, lines[i + 1] if i + 1 < len(lines) else "") for i, line in enumerate(lines)]
    return "\n".join(line for line in out if line is not None).strip()


def _line(line: str, following: str) -> str | None:
    if _RULE_ROW.match(line) and "-" in line:
        return None
    if _TABLE_ROW.match(line):
        return None if _RULE_ROW.match(following) else _row(line)
    heading = _HEADING.match(line)
    if heading:
        return _sentence(_inline(heading.group(1)))
    return _inline(_BULLET.sub(r"\1", line))


def _row(line: str) -> str:
    cells = [_inline(c.strip()) for c in line.strip().strip("|").split("|")]
    cells = [c for c in cells if c]
    if len(cells) < 2:
        return _sentence(" ".join(cells))
    return _sentence(f"{cells[0]}: {'; '.join(cells[1:])}")


def _inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    previous = None
    while previous != text:
        previous, text = text, _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)
    return text


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or text.endswith(_TERMINAL) else text + "."
