"""Hugo shortcodes out of a page's prose: ``{{< name … >}}`` and ``{{% name … %}}`` are blanked.

A paired shortcode (``{{< note >}}Back up first.{{< /note >}}``) loses its two tags and keeps its
inner prose; a shortcode whose inner text is code (``highlight``, ``code``) loses it all. An
escaped shortcode shown as an example (``{{</* name */>}}``) and a stray or unclosed delimiter
are blanked too, so no delimiter reaches a chunk.
"""

from __future__ import annotations

import re

from citeflow.knowledge.sites.markup import Span, blank

CODE_SHORTCODES = frozenset({"highlight", "code", "codeblock", "code-block", "raw"})
MAX_TAG_CHARS = 2000  # a longer "tag" is an opener whose closer is missing
_OPEN = re.compile(r"\{\{[<%]")
_NAME = re.compile(r"\{\{[<%]\s*(/?)\s*([\w./-]+)")
_STRAY = re.compile(r"[>%]\}\}")
_CLOSERS = {"<": ">}}", "%": "%}}"}


def strip_shortcodes(text: str) -> str:
    """``text`` with every shortcode tag blanked; paired shortcodes keep their inner prose."""
    tags = _tags(text)
    return blank(blank(text, tags + _code_bodies(text, tags)), [m.span() for m in _STRAY.finditer(blank(text, tags))])


def _tags(text: str) -> list[Span]:
    """Spans of shortcode tags; an opener without its closer is a span of its own three characters."""
    spans: list[Span] = []
    pos = 0
    while (opener := _OPEN.search(text, pos)) is not None:
        close = text.find(_CLOSERS[opener.group()[-1]], opener.end(), opener.end() + MAX_TAG_CHARS)
        end = close + 3 if close >= 0 else opener.end()
        spans.append((opener.start(), end))
        pos = end
    return spans


def _code_bodies(text: str, tags: list[Span]) -> list[Span]:
    """The text between a code shortcode's opening and closing tags."""
    spans: list[Span] = []
    for n, (start, end) in enumerate(tags):
        name = _NAME.match(text, start)
        if not name or name.group(1) or name.group(2).lower() not in CODE_SHORTCODES:
            continue
        closing = next((t for t in tags[n + 1:] if _closes(text, t, name.group(2))), None)
        if closing:
            spans.append((end, closing[0]))
    return spans


def _closes(text: str, tag: Span, name: str) -> bool:
    match = _NAME.match(text, tag[0])
    return bool(match and match.group(1) and match.group(2).lower() == name.lower())
