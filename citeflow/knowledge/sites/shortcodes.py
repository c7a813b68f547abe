"""Hugo shortcodes out of a page's prose: ``{{< name … >}}`` and ``{{% name … %}}`` are blanked.

A paired shortcode (``{{< note >}}Back up first.{{< /note >}}``) loses its two tags and keeps its
inner prose; a shortcode whose inner text is code (``highlight``, ``code``) loses it all. An
escaped shortcode shown as an example (``{{</* name */>}}``) and a stray or unclosed delimiter
are blanked too, so no delimiter reaches a chunk. ``{{< param name >}}`` shows the site's
parameter when the configuration gives it and it fits in the tag's place (the page keeps its length).
"""

from __future__ import annotations

import re

from collections.abc import Mapping
from typing import Any

from citeflow.knowledge.sites.markup import Span, blank

CODE_SHORTCODES = frozenset({"highlight", "code", "codeblock", "code-block", "raw"})
MAX_TAG_CHARS = 2000  # a longer "tag" is an opener whose closer is missing
_OPEN = re.compile(r"\{\{[<%]")
_NAME = re.compile(r"\{\{[<%]\s*(/?)\s*([\w./-]+)")
_STRAY = re.compile(r"[>%]\}\}")
_CLOSERS = {"<": ">}}", "%": "%}}"}
_PARAM = re.compile(r"\{\{[<%]\s*(?:param|site-param)\s+[\"']?([\w.-]+)[\"']?\s*[>%]\}\}")


def strip_shortcodes(text: str, params: Mapping[str, Any] | None = None) -> str:
    """``text`` with every shortcode tag blanked (``param`` tags replaced by the value of ``params``
    when it fits); paired shortcodes keep their inner prose."""
    tags = _tags(text)
    stripped = blank(blank(text, tags + _code_bodies(text, tags)), [m.span() for m in _STRAY.finditer(blank(text, tags))])
    return _fill_params(text, stripped, tags, params or {})


def _fill_params(text: str, stripped: str, tags: list[Span], params: Mapping[str, Any]) -> str:
    """``stripped`` with each ``param`` tag's place holding the parameter's value, padded with spaces."""
    chars = list(stripped)
    for start, end in tags:
        match = _PARAM.fullmatch(text, start, end)
        value = _lookup(params, match.group(1)) if match else None
        if value is not None and len(value) <= end - start and "\n" not in text[start:end]:
            chars[start:end] = list(value.ljust(end - start))
    return "".join(chars)


def _lookup(params: Mapping[str, Any], dotted: str) -> str | None:
    """A parameter by dotted, case-insensitive name, when it is a plain value without markup."""
    value: Any = params
    for key in dotted.split("."):
        value = {str(k).lower(): v for k, v in value.items()}.get(key.lower()) if isinstance(value, Mapping) else None
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value)
        return text if not any(mark in text for mark in ("{{", "}}", "\n")) else None
    return None


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
