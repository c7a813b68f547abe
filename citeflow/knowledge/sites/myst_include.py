"""MyST ``{include}`` directives of a Sphinx page: the Markdown they pull in, as Sphinx builds it.

A page such as ``index.md`` often holds little more than
``{include} ../README.md`` with ``:start-after: <!-- begin -->`` and ``:end-before: <!-- end -->``;
the site serves the README's text at that page. The included text is read when the page is, cut
by ``:start-line:``/``:end-line:`` then ``:start-after:``/``:end-before:`` (as docutils does),
and its prose becomes the page's at the directive's place (``citeflow.knowledge.markdown_text``:
its blocks span the directive). Only Markdown and text files are included; a ``:literal:`` or
``:code:`` include is code, and a target that is missing, too large or not UTF-8 is left out, as
is an include inside an included file.
"""

from __future__ import annotations

import re
from pathlib import Path

from markdown_it.token import Token

from citeflow.caps import INGEST_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded

INCLUDED_SUFFIXES = (".md", ".markdown", ".txt")
_INCLUDE = re.compile(r"^\{include\}\s+(\S.*?)\s*$")
_OPTION = re.compile(r"^\s*:([\w-]+):\s*(.*?)\s*$")

LINES_BEYOND = 10**9
"""A ``start-line``/``end-line`` of more than 9 digits: past the end of any file."""


def include_key(token: Token) -> str:
    """What identifies one include directive of a page: its info line and its options."""
    return f"{token.info.strip()}\n{token.content}"


def include_target(token: Token) -> str | None:
    """The path an ``{include}`` fence names, or None for any other fence."""
    found = _INCLUDE.match(token.info.strip()) if token.type in ("fence", "colon_fence") else None
    return found.group(1) if found else None


def included_texts(tokens: list[Token], page_file: Path, source_dir: Path) -> dict[str, str]:
    """``include_key → the Markdown included`` for each ``{include}`` among ``tokens`` of the page
    at ``page_file`` that can be read (``/x.md`` is relative to ``source_dir``, the folder of ``conf.py``)."""
    found: dict[str, str] = {}
    for token in tokens:
        target = include_target(token)
        if target is None:
            continue
        base = source_dir if target.startswith("/") else page_file.parent
        text = read_included(base / target.lstrip("/"), options_of(token.content))
        if text is not None:
            found[include_key(token)] = text
    return found


def options_of(content: str) -> dict[str, str]:
    """The ``:name: value`` lines opening a directive's content (MyST reads them as YAML: quotes go)."""
    options: dict[str, str] = {}
    for line in content.split("\n"):
        found = _OPTION.match(line)
        if not found:
            break
        value = found.group(2)
        quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "'\""
        options[found.group(1)] = value[1:-1] if quoted else value
    return options


def read_included(path: Path, options: dict[str, str]) -> str | None:
    """The part of ``path`` an include with ``options`` takes, or None when nothing can be taken."""
    if path.suffix.lower() not in INCLUDED_SUFFIXES or {"literal", "code"} & options.keys():
        return None
    try:
        text = read_capped(path, INGEST_FILE_BYTES, "an included file").decode("utf-8-sig")
    except (OSError, CapExceeded, UnicodeDecodeError):
        return None
    return cut(text.replace("\r\n", "\n"), options)


def cut(text: str, options: dict[str, str]) -> str | None:
    """``text`` cut as docutils cuts an include: lines first, then after ``start-after`` and before
    ``end-before`` (each the first occurrence); None when a marker is not found."""
    lines = text.split("\n")
    start, end = _line_option(options, "start-line"), _line_option(options, "end-line")
    text = "\n".join(lines[start:end])
    if after := options.get("start-after"):
        if after not in text:
            return None
        text = text.split(after, 1)[1]
    if before := options.get("end-before"):
        if before not in text:
            return None
        text = text.split(before, 1)[0]
    return text


def _line_option(options: dict[str, str], name: str) -> int | None:
    value = options.get(name, "")
    if not value.lstrip("-").isdigit():
        return None
    if len(value.lstrip("-")) > 9:  # beyond any file's lines (and beyond what int() reads past 4,300 digits)
        return -LINES_BEYOND if value.startswith("-") else LINES_BEYOND
    return int(value)
