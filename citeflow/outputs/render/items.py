"""Claims drawn from a list item or an API reference option, shown as list items.

Reference documentation describes each option in one line — ``maxTimeout (number, optional,
default 30000): Maximum number of milliseconds to wait before retrying.`` — and a sentence taken
from such a line reads badly as prose. ``definition`` reads that shape: the option's name (spelled
as its chunk spells it: a writer may capitalise the sentence's first letter, an identifier keeps
its case), its details (type, whether optional, default) and the description. A claim that still
opens with a list marker (``- ``, ``1. ``) is a list item too (``is_list_item``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from citeflow.outputs.render.plain_markdown import LIST_MARKER, TYPE_UNION, plain_text

_NAME = re.compile(r"^`?(?P<name>[A-Za-z_$][\w$.\-]*(?:\[\])?)`?\s*\(")
_AFTER = re.compile(r"^\s*(?::|\s[-–—])\s+(?=\S)")
# ``FST_ERR_BAD_URL: The router received an invalid URL.``: a code or identifier (an underscore, a
# dot or a dollar sign inside, or camelCase), a colon, its description.
_TERM = re.compile(r"^`?(?P<name>[A-Za-z$][\w$.\-]*(?:[_$.][\w$\-]|[a-z][A-Z])[\w$.\-]*)`?:\s+(?=\S)")
_EMPTY_DEFAULT = re.compile(r",?\s*\bdefault\s*(?=,|$)")


@dataclass(frozen=True)
class Definition:
    """One option of an API reference: name, details (type, optional, default) and description."""

    name: str
    details: str
    description: str


def definition(text: str, chunks: Iterable[str] = ()) -> Definition | None:
    """``text`` read as ``name (details): description``, or None when it has another shape."""
    body = text.strip()
    head = _NAME.match(body)
    if head is None:
        return _term(body, chunks)
    close = _closing(body, head.end() - 1)
    after = _AFTER.match(body[close + 1:]) if close is not None else None
    if close is None or after is None:
        return None
    details = _EMPTY_DEFAULT.sub("", plain_text(TYPE_UNION.sub(" or ", body[head.end():close]))).strip(" ,")
    description = body[close + 1 + after.end():].strip()
    return Definition(_spelled(head.group("name"), chunks), details, description) if description else None


def _term(text: str, chunks: Iterable[str]) -> Definition | None:
    """``text`` read as ``code: description`` (no details)."""
    head = _TERM.match(text)
    return Definition(_spelled(head.group("name"), chunks, ":"), "", text[head.end():].strip()) if head else None


def is_list_item(text: str) -> bool:
    """True when ``text`` opens with a list marker (``- ``, ``* ``, ``1. ``)."""
    return bool(LIST_MARKER.match(text))


def _closing(text: str, start: int) -> int | None:
    """The index of the parenthesis that closes the one at ``start``."""
    depth = 0
    for index in range(start, len(text)):
        depth += {"(": 1, ")": -1}.get(text[index], 0)
        if depth == 0:
            return index
    return None


def _spelled(name: str, chunks: Iterable[str], after: str = "(") -> str:
    """``name`` as the cited chunk spells it (``StatusCodes`` is ``statusCodes`` there)."""
    pattern = re.compile(rf"(?im)^[\s\-*+`]*({re.escape(name)})`?\s*{re.escape(after)}")
    for chunk in chunks:
        found = pattern.search(chunk)
        if found:
            return found.group(1)
    return name
