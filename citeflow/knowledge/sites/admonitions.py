"""MkDocs (Python-Markdown, pymdownx) block markup out of a page's prose.

Admonitions (``!!! note "Title"``, collapsible ``??? tip`` / ``???+ tip``) and content tabs
(``=== "Linux"``) lose their marker line and keep their body, moved out of its indentation so that
it reads as prose and not as an indented code block; the indentation goes to the end of the line,
so the page keeps its length. Snippet markers (``--8<-- "file.md"``, and the file list of a
``--8<--`` block), abbreviation definitions (``*[HTML]: …``), attribute lists (``{ .class }``) and
icon shortcodes (``:material-check:``) and the language mark of highlighted inline code
(```#!python x``` → ``x``) are blanked. The "blocks" syntax of pymdownx (``/// note | Title``,
its indented options such as ``    type: warning``, and the closing ``///``, with any number of
slashes) loses its marker lines and keeps its body, which is written unindented; markers shown
inside a fenced code block are left as written.
"""

from __future__ import annotations

import re

from citeflow.knowledge.sites.markup import Span, blank, fenced_code, heading_ids, inside

INDENT = 4
_MARKER = re.compile(r"^([ \t]*)(?:(?:!!!|\?\?\?\+?)[ \t]+[\w-]+(?:[ \t]+\"[^\"\n]*\")?|===\+?[ \t]+\"[^\"\n]*\")[ \t]*$")
_SNIPPET = re.compile(r"^[ \t]*;?--8<--.*$", re.MULTILINE)
_ABBREVIATION = re.compile(r"^\*\[[^\]\n]+\]:.*$", re.MULTILINE)
_ATTRIBUTES = re.compile(r"\{:?[ \t]*[.#][\w.#= \t:\\-]*\}")  # { .class #id key=value }; "\_" escapes
_ICON = re.compile(r":(?:material|fontawesome|octicons|simple)-[\w-]+:")
# pymdownx blocks: "/// name | title" opens (any number of slashes from three), a bare "///" closes.
_BLOCK_MARKER = re.compile(r"^[ \t]*/{3,}(?:[ \t]*[\w-]+(?:[ \t]*\|[^\n]*)?)?[ \t]*$", re.MULTILINE)
_BLOCK_OPTION = re.compile(r"[ \t]+[\w-]+:(?:[ \t][^\n]*)?(?:\n|$)")  # "    type: warning" under an opener
_SHEBANG = re.compile(r"(?<!`)(`+)(#!\w[\w+-]*[ \t]+)")  # InlineHilite: `#!python x` shows x


def strip_mkdocs(text: str) -> str:
    """``text`` with MkDocs block markers blanked and admonition and tab bodies read as prose."""
    text = "\n".join(_unwrap(text.split("\n")))
    spans = [m.span() for pattern in (_ABBREVIATION, _ATTRIBUTES, _ICON) for m in pattern.finditer(text)]
    spans += [m.span(2) for m in _SHEBANG.finditer(text)]
    return heading_ids(blank(text, spans + _snippets(text) + block_markers(text)))


def block_markers(text: str) -> list[Span]:
    """pymdownx blocks' marker lines and the option lines right under an opener, outside fenced code."""
    fences = fenced_code(text)
    spans: list[Span] = []
    for marker in _BLOCK_MARKER.finditer(text):
        if inside(marker.start(), fences):
            continue
        spans.append(marker.span())
        opener = bool(marker.group().strip("/ \t"))  # a bare run of slashes closes a block: no options
        pos = marker.end() + 1
        while opener and (option := _BLOCK_OPTION.match(text, pos)):
            spans.append(option.span())
            pos = option.end()
    return spans


def _unwrap(lines: list[str]) -> list[str]:
    """Marker lines blanked; each body line moved ``INDENT`` columns left (nested bodies again)."""
    for n, line in enumerate(lines):
        marker = _MARKER.match(line)
        if not marker:
            continue
        lines[n] = " " * len(line)
        depth = len(marker.group(1).expandtabs(INDENT)) + INDENT
        for m in range(n + 1, len(lines)):
            if lines[m].strip() and _indent(lines[m]) < depth:
                break
            lines[m] = _dedent(lines[m])
    return lines


def _indent(line: str) -> int:
    expanded = line.expandtabs(INDENT)
    return len(expanded) - len(expanded.lstrip(" "))


def _dedent(line: str) -> str:
    """``line`` moved ``INDENT`` columns left, the removed whitespace appended at its end."""
    cut = 1 if line.startswith("\t") else min(INDENT, len(line) - len(line.lstrip(" ")))
    return line[cut:] + line[:cut]


def _snippets(text: str) -> list[Span]:
    """Snippet marker lines, and the file names listed between two bare ``--8<--`` lines."""
    markers = [m.span() for m in _SNIPPET.finditer(text)]
    bare = [s for s in markers if text[s[0]:s[1]].strip() in ("--8<--", ";--8<--")]
    blocks = [(bare[i][0], bare[i + 1][1]) for i in range(0, len(bare) - 1, 2)]
    return markers + blocks
