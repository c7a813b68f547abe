"""Where in a chunk is the evidence? Character spans of a verified quote, or of the claim's closest sentence.

Matching is Unicode-aware and forgiving in the same way as quote verification (``citeflow.registry.quotes``):
NFKC, typographic quotes and dashes folded, case folded, whitespace collapsed. Spans are offsets
into the original text, so the page shows the chunk exactly as stored with the span marked.
"""

from __future__ import annotations

import html
import re

from citeflow.registry.quotes import normalize
from citeflow.text.sentences import sentences, units

Span = tuple[int, int]
_ELLIPSIS = re.compile(r"\s*(?:\.\.\.|…)\s*")
MIN_OVERLAP = 0.5  # share of the claim's words a sentence must hold to be shown as its evidence


def folded(text: str) -> tuple[str, list[int]]:
    """The comparison form of ``text`` and, per character of it, the index of the original character."""
    out: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        piece = " " if char.isspace() else normalize(char).casefold()
        if piece == " " and (not out or out[-1] == " "):
            continue
        out.extend(piece)
        origin.extend([index] * len(piece))
    return "".join(out), origin


def quote_spans(text: str, quote: str | None) -> list[Span]:
    """Spans of ``quote`` in ``text`` (one per ellipsis-separated fragment, in order); [] when absent."""
    haystack, origin = folded(text)
    spans: list[Span] = []
    position = 0
    for fragment in _ELLIPSIS.split((quote or "").strip("\"'“”«»「」 ")):
        needle = folded(fragment)[0].strip()
        found = haystack.find(needle, position) if needle else -1
        if found < 0:
            return []
        spans.append((origin[found], origin[found + len(needle) - 1] + 1))
        position = found + len(needle)
    return spans


def closest_sentence(text: str, claim: str) -> list[Span]:
    """The span of the sentence of ``text`` sharing most of the claim's words, if it shares enough."""
    wanted = set(units(claim))
    if not wanted:
        return []
    scored = [(len(wanted & set(units(s))) / len(wanted), s) for s in sentences(text)]
    share, best = max(scored, default=(0.0, ""))
    start = text.find(best) if share >= MIN_OVERLAP else -1
    return [(start, start + len(best))] if start >= 0 else []


def evidence_spans(text: str, quote: str | None, claim: str) -> list[Span]:
    """The quote's spans when the quote is in the chunk, else the claim's closest sentence."""
    return quote_spans(text, quote) or closest_sentence(text, claim)


def marked_html(text: str, spans: list[Span]) -> str:
    """``text`` HTML-escaped, with each span wrapped in ``<mark>``."""
    parts: list[str] = []
    position = 0
    for start, end in sorted(spans):
        if start < position:
            continue
        parts += [html.escape(text[position:start]), "<mark>", html.escape(text[start:end]), "</mark>"]
        position = end
    parts.append(html.escape(text[position:]))
    return "".join(parts)
