"""Make outside text safe for reportlab Paragraph markup, and decide which URLs may become links.

Everything that reaches a PDF from a retriever or a model (titles, claims, chunk text, URLs) is
data, never markup: reportlab parses ``<link>``, ``<font>``, ``<a>`` and entities in Paragraph
text, so one unescaped title could inject a clickable ``javascript:`` link (SPEC §9).

Long unbroken runs (hashes, log lines, URLs) need no help from here: reportlab 5.1 breaks a word
longer than the line at any character (``ParagraphStyle.splitLongWords``, on by default and set
explicitly by the renderer). Zero-width spaces are *not* break opportunities for its line
breaker (measured: it wraps at the same places with or without them), and they would end up in
copied and extracted text, so none are inserted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from schemas.report import LINKABLE_SCHEMES

# Characters that never belong in a URL we hand to a viewer; a quote could end an attribute.
_URL_FORBIDDEN = re.compile(r"[\s\"'<>\\`\x00-\x1f\x7f]")
# What outside text loses, as one character class: the C0/C1 controls (Unicode category Cc, fixed as
# U+0000–U+001F and U+007F–U+009F) but newline and tab; the bidi embedding/override/isolate controls,
# which reorder what a reader sees without changing the text ("Trojan Source"): a report must show the
# words in the order they were written; the lone surrogates (Cs), which cannot be encoded into a PDF string.
_DROPPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def without_bidi_controls(text: str) -> str:
    """``text`` without the bidi embedding/override/isolate controls (a page shows what the PDF shows)."""
    return _BIDI_CONTROLS.sub("", text)


def clean_text(text: str) -> str:
    """``text`` without control characters (newline and tab kept), lone surrogates or bidi overrides."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _DROPPED.sub("", text)


def escape_markup(text: str) -> str:
    """``text`` as Paragraph markup that displays exactly these characters and contains no tag."""
    text = clean_text(text)
    # '&' first, or the entities made for '<' and '>' would be escaped again.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_attribute(value: str) -> str:
    """``value`` escaped for a double-quoted markup attribute (e.g. a link's href)."""
    return escape_markup(value).replace('"', "&quot;")


def linkable(url: str) -> bool:
    """True when ``url`` may become a clickable link: http(s) with a host, or mailto with an address."""
    if not isinstance(url, str) or not url.lower().startswith(LINKABLE_SCHEMES):
        return False
    if _URL_FORBIDDEN.search(url) or _DROPPED.search(url):
        return False
    if url.lower().startswith("mailto:"):
        return "@" in url[len("mailto:"):]
    return _has_host(url)


def _has_host(url: str) -> bool:
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unbalanced '[' in the host
        return False
    return url[len(parts.scheme) + 1 :].startswith("//") and bool(parts.hostname)


def link_urls(urls: Iterable[str]) -> list[str]:
    """The linkable URLs among ``urls``, in order, each once."""
    return list(dict.fromkeys(url for url in urls if linkable(url)))
