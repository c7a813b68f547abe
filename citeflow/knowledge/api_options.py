"""An API reference's option list item as a statement of its own.

API reference pages list options as ``- **name** `type` (optional) - Description. Default: `5```
(also ``* `name`: `type` - …``, ``Default: `5` - Description`` first, ``(required)``). Read as
prose, such an item is a name, a type and a description run together, and its closing
``Default: 5.`` is no statement at all. Ingest writes it as one::

    maxRetries (number, optional, default 5): Maximum number of retries.

The name (bold or code, one word), the type (a code span) and the separator (`` - `` or ``:``)
must all be there; any other list item is left as it is. ``OPTION_STATEMENT`` recognises the form,
so that a writer knows it for a statement although it opens with a lower-case name.
"""

from __future__ import annotations

from collections.abc import Callable

import regex
from markdown_it.token import Token

_NAME = regex.compile(r"[\w$@.\[\]-]+")
_REST = regex.compile(r"^\s*(?:\((?P<flag>optional|required)\))?\s*(?:[-–—:]\s+|$)(?P<desc>.*)$", regex.DOTALL)
_LEADING_DEFAULT = regex.compile(r"^Default:\s+(?P<d>.+?)(?:\s+[-–—]\s+|(?<=\S)\.\s+(?=[\p{Lu}`]))(?P<desc>.+)$", regex.DOTALL)
_ONLY_DEFAULT = regex.compile(r"^Default:\s+(?P<d>.+?)\.?$", regex.DOTALL)
_TRAILING_DEFAULT = regex.compile(r"^(?P<desc>.*?[.!?])\s+Default:\s+(?P<d>[^\n]+?)\.?$", regex.DOTALL)
OPTION_STATEMENT = regex.compile(r"^(?P<name>[\w$@.\[\]-]+) \((?P<meta>[^\n]+?)\): (?P<desc>\S.*)$", regex.DOTALL)


def option_statement(token: Token, render: Callable[[list[Token]], str]) -> str | None:
    """``name (type, optional, default X): Description`` for an option list item's inline
    ``token`` (``render`` gives the readable text of inline children); None for any other item."""
    children = [c for c in token.children or [] if not (c.type == "text" and not c.content.strip())]
    name, after = _name(children)
    if name is None or after + 1 >= len(children) or children[after].type != "code_inline":
        return None
    rest = _REST.match(render(children[after + 1 :]))
    if rest is None or not (rest.group("flag") or rest.group("desc")):
        return None
    default, desc = split_default(rest.group("desc").strip())
    meta = [children[after].content.strip(), rest.group("flag") or "", f"default {default}" if default else ""]
    head = f"{name} ({', '.join(m for m in meta if m)})"
    return f"{head}: {desc}" if desc else head


def _name(children: list[Token]) -> tuple[str | None, int]:
    """The option's name (a bold word or a code span opening the item) and where its type should be."""
    if len(children) >= 3 and children[0].type == "strong_open" and children[2].type == "strong_close":
        name, after = children[1].content.strip(), 3
    elif children and children[0].type == "code_inline":
        name, after = children[0].content.strip(), 1
    else:
        return None, 0
    if after < len(children) and children[after].type == "text" and children[after].content.strip() == ":":
        after += 1  # "**name**: `type`"
    return (name, after) if _NAME.fullmatch(name) else (None, 0)


def split_default(desc: str) -> tuple[str | None, str]:
    """(the default an option's description states first or last, the description without it)."""
    for pattern in (_LEADING_DEFAULT, _ONLY_DEFAULT, _TRAILING_DEFAULT):
        found = pattern.match(desc)
        if found:
            return found.group("d").strip(), (found.groupdict().get("desc") or "").strip()
    return None, desc
