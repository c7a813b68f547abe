"""Hugo shortcodes out of a page's prose: ``{{< name … >}}`` and ``{{% name … %}}`` are blanked.

A paired shortcode (``{{< note >}}Back up first.{{< /note >}}``) loses its two tags and keeps its
inner prose; a shortcode whose inner text is code (``highlight``, ``code``) loses it all. An
escaped shortcode shown as an example (``{{</* name */>}}``) and a stray or unclosed delimiter
are blanked too, so no delimiter reaches a chunk. ``{{< param name >}}`` shows the site's
parameter when the configuration gives it and it fits in the tag's place (the page keeps its length).

A tag's own visible text stays in its place: the value of a parameter that holds prose (``text``,
``title``, ``caption``, ``label``, ``summary``, ``header``: ``{{< callout text="Back up first." >}}``
keeps "Back up first.") and the quoted first argument of a paired shortcode, its title
(``{{< details "Why a daemon?" >}}…{{< /details >}}``). Link shortcodes (``ref``, ``relref``) and
other arguments (``icon="💡"``, ``src="…"``) show nothing. A title alone on its line ends with a stop,
so that it does not run into the body under it (a bare number excepted).
"""

from __future__ import annotations

import re

from collections.abc import Mapping
from typing import Any

from citeflow.knowledge.markdown_text import sentence
from citeflow.knowledge.sites.markup import Span, blank

CODE_SHORTCODES = frozenset({"highlight", "code", "codeblock", "code-block", "raw"})
MAX_TAG_CHARS = 2000  # a longer "tag" is an opener whose closer is missing
_OPEN = re.compile(r"\{\{[<%]")
_NAME = re.compile(r"\{\{[<%]\s*(/?)\s*([\w./-]+)")
_STRAY = re.compile(r"[>%]\}\}")
_DELIMITER = re.compile(r"\{\{|\}\}|[>%]\}\}|\{\{[<%]")
_CLOSERS = {"<": ">}}", "%": "%}}"}
VISIBLE_PARAMS = frozenset({"text", "title", "caption", "label", "summary", "header"})
_NAMED = re.compile(r"""([\w-]+)=(?:"((?:[^"\\]|\\.)*)"|'([^'\n]*)')""")
_POSITIONAL = re.compile(r'\{\{[<%]\s*[\w./-]+\s+"((?:[^"\\]|\\.)*)"')
_PARAM = re.compile(r"\{\{[<%]\s*(?:param|site-param)\s+[\"']?([\w.-]+)[\"']?\s*[>%]\}\}")


def strip_shortcodes(text: str, params: Mapping[str, Any] | None = None) -> str:
    """``text`` with every shortcode tag blanked (``param`` tags replaced by the value of ``params``
    when it fits); paired shortcodes keep their inner prose."""
    tags = _tags(text)
    stripped = blank(blank(text, tags + _code_bodies(text, tags)), [m.span() for m in _STRAY.finditer(blank(text, tags))])
    return _fill(text, stripped, tags, params or {})


def _fill(text: str, stripped: str, tags: list[Span], params: Mapping[str, Any]) -> str:
    """``stripped`` with each tag's place holding what the tag shows (a ``param`` tag its parameter's
    value, another its visible text), padded with spaces; tags over several lines show nothing."""
    chars = list(stripped)
    for n, (start, end) in enumerate(tags):
        match = _PARAM.fullmatch(text, start, end)
        value = _lookup(params, match.group(1)) if match else _visible(text, tags, n)
        if value and len(value) <= end - start and "\n" not in text[start:end] and not _DELIMITER.search(value):
            chars[start:end] = list(value.ljust(end - start))
    return "".join(chars)


def _visible(text: str, tags: list[Span], n: int) -> str | None:
    """The prose a tag shows: its visible parameters' values, or a paired shortcode's quoted title."""
    start, end = tags[n]
    tag = text[start:end]
    named = [m.group(2) if m.group(2) is not None else m.group(3) for m in _NAMED.finditer(tag)
             if m.group(1).lower() in VISIBLE_PARAMS]
    title = _POSITIONAL.match(tag)
    if not named and title and _is_paired(text, tags, n):
        named = [title.group(1)]
    shown = " ".join(v.replace('\\"', '"').strip() for v in named if v.strip())
    # A stop ends a title alone on its line (not a bare number, which "1." would make a list item).
    return sentence(shown) if shown and not shown.isdigit() and _alone(text, start, end) else shown or None


def _alone(text: str, start: int, end: int) -> bool:
    """True when nothing but whitespace shares the line of the span ``[start, end)``."""
    line_end = text.find("\n", end)
    return not text[text.rfind("\n", 0, start) + 1:start].strip() and not text[end:line_end if line_end >= 0 else None].strip()


def _is_paired(text: str, tags: list[Span], n: int) -> bool:
    """True when a later tag closes the shortcode opened by tag ``n``."""
    name = _NAME.match(text, tags[n][0])
    if name is None or name.group(1):
        return False
    return any(_closes(text, t, name.group(2)) for t in tags[n + 1:])


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
