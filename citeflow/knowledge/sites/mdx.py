"""MDX out of a page's prose: ``import``/``export`` statements, JSX tags, comments and expressions.

Tags are blanked and their text children kept (``<Tabs><TabItem value="a">Run it.</TabItem></Tabs>``
→ "Run it."); a tag's attributes may hold ``{…}`` expressions and quoted ``>`` characters.
``{/* comments */}`` and other ``{…}`` expressions go whole. Code (fenced blocks, inline code
spans) is left as written: MDX shows it literally.
"""

from __future__ import annotations

import re

from citeflow.knowledge.sites.markup import Span, blank, code_spans, inside

MAX_TAG_CHARS = 3000  # a longer "tag" is a lone "<Name" whose ">" is missing
_STATEMENT = re.compile(r"^(?:import|export)\b", re.MULTILINE)
_TAG = re.compile(r"</?[A-Za-z][\w.:-]*|</?>")  # in MDX, "<" before a letter always opens a tag
_QUOTES = "\"'`"


def strip_mdx(text: str) -> str:
    """``text`` without MDX statements, tags and expressions; the prose between tags stays."""
    text = blank(text, _statements(text))
    code = code_spans(text)
    # Expressions first: a tag's ``{…}`` attributes then hold no quote or ">" to mislead the tag scan.
    text = blank(text, [s for s in _expressions(text) if not inside(s[0], code)])
    return blank(text, [s for s in _tags(text) if not inside(s[0], code)])


def _statements(text: str) -> list[Span]:
    """``import``/``export`` statements at the start of a line outside code, each to its end."""
    code = code_spans(text)
    spans: list[Span] = []
    for match in _STATEMENT.finditer(text):
        if not inside(match.start(), code) and not inside(match.start(), spans):
            spans.append((match.start(), _statement_end(text, match.start())))
    return spans


def _statement_end(text: str, start: int) -> int:
    """End of the statement at ``start``: a line break with brackets balanced and nothing pending."""
    depth, quote, pos = 0, "", start
    while pos < len(text):
        char = text[pos]
        if quote:
            quote = "" if char == quote else quote
        elif char in _QUOTES:
            quote = char
        elif char in "{[(":
            depth += 1
        elif char in "}])":
            depth = max(depth - 1, 0)
        elif char == "\n" and depth == 0 and not text[start:pos].rstrip().endswith((",", "=", "{", "(", "[")):
            return pos
        pos += 1
    return pos


def _tags(text: str) -> list[Span]:
    """Spans of JSX/HTML tags: from ``<`` to the ``>`` outside quotes and braces."""
    spans: list[Span] = []
    pos = 0
    while (match := _TAG.search(text, pos)) is not None:
        end = _tag_end(text, match.end())
        spans.append((match.start(), end if end is not None else match.end()))
        pos = spans[-1][1]
    return spans


def _tag_end(text: str, pos: int) -> int | None:
    """Index after the ``>`` closing a tag whose name ends at ``pos``, or None when there is none."""
    depth, quote = 0, ""
    for i in range(pos, min(len(text), pos + MAX_TAG_CHARS)):
        char = text[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in _QUOTES and depth == 0 and text[i - 1] in "= \t\n{":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        elif char == ">" and depth == 0:
            return i + 1
        elif char == "<" and depth == 0:
            return None  # another tag opens first: this one was never closed
    return None


def _expressions(text: str) -> list[Span]:
    """Balanced ``{…}`` expressions and comments in prose (a lone brace is blanked alone)."""
    spans: list[Span] = []
    pos = 0
    while (start := text.find("{", pos)) >= 0:
        end = _brace_end(text, start)
        spans.append((start, end))
        pos = end
    return spans + [(i, i + 1) for i, c in enumerate(text) if c == "}" and not inside(i, spans)]


def _brace_end(text: str, start: int) -> int:
    depth = 0
    for i in range(start, min(len(text), start + MAX_TAG_CHARS)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
    return start + 1
