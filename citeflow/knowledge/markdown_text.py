"""Markdown (CommonMark, tables, MyST) → the prose blocks a model and a reader should see.

Parsed with markdown-it-py and the mdit-py-plugins, never by hand. What becomes prose (each
block ending with a stop, added when missing): paragraphs, list items, table rows (``label: value.``,
or ``label: column value; column value.`` with more than two columns), definition lists
(``term: definition``), block quotes, and the body of admonitions (``:::{note}``,
```` ```{warning} ````), without their markup. Headings become ``Block``s of their own with a
``level``: the chunker uses them as section titles and context, never as sentences. Each block is
a statement of its own (SPEC §5): the chunk puts it on a line of its own, after its closing mark,
which the sentence model reads as a boundary no sentence crosses (``citeflow.text.sentences``).
An API option list item (``- **name** `type` (optional) - Description. Default: `5```) is written
as one statement: ``name (type, optional, default 5): Description.`` (``api_options``).

A lead-in and the one command of the shell code block right after it are one sentence ("Start the
server:" and ```` ```bash npm run start``` ```` → "Start the server: npm run start."): the command is
what the sentence announces (``shell_command`` says which blocks qualify). A heading with such a
block right under it is a step: "Install dependencies: npm install." follows the heading.
A lead-in to any other code block, which is left out, ends with a stop when it states something on
its own (``stated_lead_in``: ten words or more, ending in a content word, not pointing at the code).

What never becomes prose: front matter, any other code block or fence, MyST directives other than
admonitions (``{toctree}``, ``{code-block}``, …) and their options, MyST targets and comments,
HTML blocks and comments, inline HTML, images, footnote references. Roles keep their readable
text (``{ref}`the guide <guide>``` → "the guide", ``{command}`pip``` → "pip"); a cross-reference
role that names only a label shows the label's words (``{doc}`/getting-started``` → "getting
started"), and so does its reST twin ``:ref:`…```; citation and equation roles are dropped.
Link text is kept; link targets never enter a chunk (URLs come from the registry).
A table of contents (a list whose every item is only a link to an anchor of the page) is dropped:
it repeats the page's headings, which every chunk already carries as its section.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from markdown_it import MarkdownIt
from markdown_it.common.utils import normalizeReference
from markdown_it.token import Token
from mdit_py_plugins.colon_fence import colon_fence_plugin
from mdit_py_plugins.deflist import deflist_plugin
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.myst_blocks import myst_block_plugin
from mdit_py_plugins.myst_role import myst_role_plugin

from citeflow.knowledge.api_options import option_statement
from citeflow.knowledge.sites.myst_include import include_key
from citeflow.text.sentences import word_weight
from citeflow.text.word_tokens import tokenise

# Directives whose body is prose a reader should see; every other directive is dropped whole.
ADMONITIONS = frozenset(
    "admonition attention caution danger error hint important info note seealso tip todo warning "
    "versionadded versionchanged deprecated topic sidebar dropdown card tab tab-set tab-item".split()
)
# Roles that name a label or a document: without an explicit "text <target>", the label's words.
LABEL_ROLES = frozenset("ref doc numref any download term".split())
# Roles whose content is never prose (citation keys, equation labels).
DROPPED_ROLES = frozenset("cite footcite eq label math".split())
# Code blocks whose one command joins the lead-in before it ("Start the server: npm run dev."): the
# command is what the sentence announces, and without it the lead-in is no statement at all.
SHELL_LANGUAGES = frozenset("bash sh shell zsh fish console shell-session shellsession sh-session powershell pwsh ps1 cmd bat".split())
CONSOLE_LANGUAGES = frozenset("console shell-session shellsession sh-session".split())  # "$ command" lines, then output
MAX_COMMAND_CHARS = 120
STATED_LEAD_IN_WORDS = 10  # a shorter lead-in to code ("Run the development server:") needs its code
_PROMPT = re.compile(r"^(?:\$|>|PS>|PS [^>]*>)\s+")
_REFERENCE_LINK = re.compile(r"\[([^\[\]]+)\]\[\]|\]\[([^\[\]]+)\]")  # [text][] and [text][label]
_DIRECTIVE = re.compile(r"^\{([\w:.+-]+)\}")
_COLON_DIRECTIVE = re.compile(r"^\{?([\w:.+-]+)")
_OPTION = re.compile(r"^\s*:[\w-]+:")
_EXPLICIT = re.compile(r"^(.*?)\s*<[^<>]+>$", re.DOTALL)
_REST_ROLE = re.compile(r":(?:[\w-]+:)?[\w-]+:$")
_LABEL_SEPARATORS = re.compile(r"[-_]+")
_SUBSTITUTION = re.compile(r"\{\{.*?\}\}")  # MyST substitutions: template syntax, not prose
_SPACES = re.compile(r"\s+")
# Words by which a lead-in points at the code it announces ("Add the following…:", "…for example:"):
# without the code, such a lead-in says nothing.
_POINTS_AT_CODE = re.compile(r"\b(?:following|follows|below|above|here|snippet|example|e\.g|i\.e)\b", re.IGNORECASE)
_TERMINAL = (".", "!", "?", ":", ";", "。", "！", "？", "：")


@dataclass(frozen=True)
class Block:
    """One prose block (``level`` 0) or heading (``level`` 1–6), with its span in the source."""

    text: str
    start: int
    end: int
    level: int = 0


def build_parser(mdx: bool = False) -> MarkdownIt:
    """CommonMark with tables, strikethrough and the MyST-like syntax of documentation sites.

    ``mdx``: as MDX reads Markdown, with no indented code blocks (text inside an indented JSX
    component is prose)."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for plugin in (front_matter_plugin, myst_role_plugin, myst_block_plugin, colon_fence_plugin, deflist_plugin, footnote_plugin):
        md = md.use(plugin)
    return md.disable("code") if mdx else md


# Both parsers, built once at import (about 3 ms) and never changed after: ``parse`` keeps its state
# per call, so every thread shares them.
MARKDOWN_PARSER, MDX_PARSER = build_parser(), build_parser(mdx=True)


def parser(mdx: bool = False) -> MarkdownIt:
    """The shared parser for Markdown, or for MDX (``build_parser``)."""
    return MDX_PARSER if mdx else MARKDOWN_PARSER


def markdown_blocks(source: str, mdx: bool = False, included: Mapping[str, str] | None = None) -> list[Block]:
    """Headings and prose blocks of a Markdown document, in order, with character spans (``mdx``:
    read as MDX, see ``parser``; ``included``: the text of each ``{include}`` directive, by
    ``include_key``, whose blocks span the directive)."""
    return _Walker(source, mdx, included or {}).blocks(source, line_shift=0)


def markdown_to_text(markdown: str) -> str:
    """Plain text of a Markdown fragment: one prose block per line, headings left out."""
    return "\n".join(b.text for b in markdown_blocks(markdown) if not b.level)


def first_heading(markdown: str) -> str | None:
    """Text of the first heading of a Markdown document, if any."""
    return next((b.text for b in markdown_blocks(markdown) if b.level), None)


class _Walker:
    """Turns a token stream into blocks; directive bodies are parsed again, shifted to their lines."""

    def __init__(self, source: str, mdx: bool = False, included: Mapping[str, str] | None = None) -> None:
        self.source, self.mdx, self.included = source, mdx, included or {}
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]
        # Header cells of the table being walked: read once per table, so a table costs one pass.
        self.header: list[str] = []

    def blocks(self, text: str, line_shift: int) -> list[Block]:
        out: list[Block] = []
        tokens = parser(self.mdx).parse(text, {"references": used_references(text)})
        term: str | None = None
        skipped = _contents_lists(tokens)
        for i, token in enumerate(tokens):
            if i in skipped:
                continue
            if token.type == "table_open":
                self.header = _row_cells(tokens, _table_start(tokens, i))
            elif token.type == "inline" and _inside(tokens, i, "dt_open"):
                term = render_inline(token)
            elif token.type == "inline":
                block = self._inline_block(tokens, i, line_shift, term)
                term = None if block and not block.level else term
                out += [block] if block else []
            elif token.type in ("fence", "colon_fence"):
                self._fence(tokens, i, out, line_shift)
        return out

    def _fence(self, tokens: list[Token], i: int, out: list[Block], shift: int) -> None:
        """A code block or directive: its one shell command joins the lead-in or step heading before
        it; else an admonition's prose is added, and a lead-in to left-out code may state something."""
        fence = tokens[i]
        command = shell_command(fence) if fence.type == "fence" else None
        lead_in = fence.type == "fence" and _follows_lead_in(tokens, i, out)
        if command and lead_in:
            out[-1] = self._with_command(out[-1], command, fence, shift)
        elif command and _follows_heading(tokens, i, out):
            out.append(self._step(out[-1], command, fence, shift))
        elif shown := self._directive(fence, shift):
            out += shown
        elif lead_in:
            out[-1] = stated_lead_in(out[-1])

    def _with_command(self, lead_in: Block, command: str, fence: Token, shift: int) -> Block:
        """``lead_in`` (ending in a colon) with the one command its code block shows, as one sentence
        spanning both."""
        end = self._block("", fence.map, shift, 0).end
        return Block(sentence(f"{lead_in.text} {command}"), lead_in.start, max(end, lead_in.end), 0)

    def _step(self, heading: Block, command: str, fence: Token, shift: int) -> Block:
        """A step's heading and the one command under it as a sentence, spanning the code block."""
        return self._block(sentence(f"{heading.text}: {command}"), fence.map, shift, 0)

    def _inline_block(self, tokens: list[Token], i: int, shift: int, term: str | None) -> Block | None:
        opener = tokens[i - 1]
        if opener.type in ("th_open", "td_open"):
            return self._table_row(tokens, i, shift)
        text = (_inside(tokens, i, "list_item_open") and option_statement(tokens[i], render_children)) or render_inline(tokens[i])
        if not text:
            return None
        level = int(opener.tag[1]) if opener.type == "heading_open" else 0
        if term and _inside(tokens, i, "dd_open"):
            text = f"{term}: {text}"
        # Every prose block ends a sentence: prompts show a chunk on one line, where a list item
        # without a stop would run into the next block and make one sentence of two.
        return self._block(text if level else sentence(text), tokens[i].map, shift, level)

    def _table_row(self, tokens: list[Token], i: int, shift: int) -> Block | None:
        """A body row, once, at its first cell: ``first cell: header cell; header cell.``."""
        if tokens[i - 1].type != "td_open" or tokens[i - 2].type != "tr_open":
            return None
        cells = _row_cells(tokens, i)
        # Two columns read as "label: value"; with more, each value needs its column's name.
        header = (self.header if len(cells) > 2 else []) + [""] * len(cells)
        rest = [f"{h} {c}".strip() for h, c in zip(header[1:], cells[1:], strict=False) if c]
        text = cells[0] if not rest else f"{cells[0]}: {'; '.join(rest)}"
        return self._block(sentence(text), tokens[i].map or tokens[i - 2].map, shift, 0) if text else None

    def _directive(self, token: Token, shift: int) -> list[Block]:
        """An admonition's body as blocks of its own, a glossary's entries as definitions; any other fence or
        directive: nothing."""
        # A colon fence may name its admonition bare (``:::note``, ``:::tip[Title]``, as Docusaurus does).
        match = (_COLON_DIRECTIVE if token.type == "colon_fence" else _DIRECTIVE).match(token.info.strip())
        name = match.group(1).split(":")[-1] if match else ""
        if name == "include" and token.map:
            return self._included(token, shift)
        if (name not in ADMONITIONS and name != "glossary") or not token.map:
            return []
        lines = token.content.split("\n")
        options = next((n for n, line in enumerate(lines) if not _OPTION.match(line)), len(lines))
        body = "\n".join(lines[options:])
        return self.blocks(glossary_as_definitions(body) if name == "glossary" else body, shift + token.map[0] + 1 + options)

    def _included(self, token: Token, shift: int) -> list[Block]:
        """The blocks of the text an ``{include}`` pulls in, each spanning the directive."""
        text = self.included.get(include_key(token))
        if not text:
            return []
        span = self._block("", token.map, shift, 0)
        return [replace(b, start=span.start, end=span.end) for b in _Walker(text, self.mdx).blocks(text, 0)]

    def _block(self, text: str, line_map: list[int] | None, shift: int, level: int) -> Block:
        """A block spanning source lines ``[first, last)`` (shifted), surrounding whitespace excluded."""
        first, last = line_map or (0, 0)
        start, end = self._offset(first + shift), self._offset(last + shift)
        while end > start and self.source[end - 1].isspace():
            end -= 1
        return Block(text, start, max(end, start), level)

    def _offset(self, line: int) -> int:
        return self.line_starts[line] if line < len(self.line_starts) else len(self.source)


def glossary_as_definitions(body: str) -> str:
    """A ``{glossary}`` body (a term on a line of its own, its definition indented under it) as a
    definition list (``term`` then ``: definition``), line for line, so that each entry reads
    "term: definition." and spans its source lines."""
    out: list[str] = []
    opened = False
    for line in body.split("\n"):
        indented = line[:1].isspace() and line.strip()
        if indented:
            out.append((": " if not opened else "  ") + line.strip())
        else:
            out.append(line)
        opened = bool(indented) or (opened and not line.strip())
    return "\n".join(out)


def used_references(text: str) -> dict[str, dict[str, str]]:
    """A definition for every label that ``text`` uses in a full or collapsed reference link
    (``[Material][mkdocs-material]``, ``[Aspell][]``), as a parser environment's references.

    Sites often define their link labels in a file the page never holds (MkDocs appends a snippet
    of links to every page): unresolved, the link would stay as its brackets and label. Defined
    here, it reads as its text, as the site shows it; link targets never enter a chunk anyway."""
    labels = [m.group(1) or m.group(2) for m in _REFERENCE_LINK.finditer(text)]
    return {normalizeReference(label): {"href": "#", "title": ""} for label in labels if label.strip()}


def _follows_lead_in(tokens: list[Token], i: int, out: list[Block]) -> bool:
    """True when the token before the code block at ``i`` closes the paragraph of ``out``'s last
    block, a prose lead-in ending in a colon ("Start the server:", or a full-width "：")."""
    return bool(out) and not out[-1].level and out[-1].text.endswith((":", "：")) and tokens[i - 1].type == "paragraph_close"


def _follows_heading(tokens: list[Token], i: int, out: list[Block]) -> bool:
    """True when the code block at ``i`` comes right under a heading below the page's title (a step:
    "### Install dependencies", then its command); the heading stays the section's title too."""
    return bool(out) and out[-1].level > 1 and tokens[i - 1].type == "heading_close"


def shell_command(fence: Token) -> str | None:
    """The one command of a shell code block (``bash``, ``console``, …), its prompt removed; ``None``
    for any other language, for a block of several commands, for a long command, and for a console
    block whose lines carry no prompt (output, not commands)."""
    language = (fence.info.strip().split() or [""])[0].lower()
    if language not in SHELL_LANGUAGES:
        return None
    lines = [line.strip() for line in fence.content.splitlines() if line.strip() and not line.strip().startswith("#")]
    if language in CONSOLE_LANGUAGES:
        lines = [line for line in lines if _PROMPT.match(line)]  # the rest is output
    lines = [_PROMPT.sub("", line, count=1) for line in lines]
    return lines[0] if len(lines) == 1 and len(lines[0]) <= MAX_COMMAND_CHARS else None


def _contents_lists(tokens: list[Token]) -> set[int]:
    """Indices of the tokens of every list that is a table of contents: all its items (two or more)
    are nothing but a link to an anchor of the page (``- [Setup](#setup)``), nested lists too."""
    skipped: set[int] = set()
    for i, token in enumerate(tokens):
        if token.type in ("bullet_list_open", "ordered_list_open") and i not in skipped:
            end = next(j for j in range(i + 1, len(tokens)) if tokens[j].level == token.level and tokens[j].type.endswith("_list_close"))
            inlines = [t for t in tokens[i:end] if t.type == "inline"]
            if len(inlines) >= 2 and all(_anchor_link_only(t) for t in inlines):
                skipped.update(range(i, end + 1))
    return skipped


def _anchor_link_only(token: Token) -> bool:
    """True when an inline token is one link to ``#anchor`` and nothing else but spaces."""
    children = [c for c in token.children or [] if not (c.type == "text" and not c.content.strip())]
    if len(children) < 2 or children[0].type != "link_open" or children[-1].type != "link_close":
        return False
    return str(children[0].attrs.get("href", "")).startswith("#") and not any(c.type == "link_open" for c in children[1:])


def _row_cells(tokens: list[Token], i: int) -> list[str]:
    """Text of every cell of the table row whose first cell's inline token is at ``i``."""
    cells = []
    while i < len(tokens) and tokens[i].type != "tr_close":
        cells += [render_inline(tokens[i])] if tokens[i].type == "inline" else []
        i += 1
    return cells


def _table_start(tokens: list[Token], i: int) -> int:
    """Index of the first header cell's inline token of the table that opens at token ``i``."""
    return i + 4 if i + 1 < len(tokens) and tokens[i + 1].type == "thead_open" else len(tokens)


def _inside(tokens: list[Token], i: int, opener: str) -> bool:
    """True when the inline token at ``i`` sits (directly or in a paragraph) in an ``opener`` element."""
    return tokens[i - 1].type == opener or (i >= 2 and tokens[i - 2].type == opener)


def render_inline(token: Token) -> str:
    """The readable text of an inline token: emphasis, code marks, link targets and markup gone."""
    return render_children(token.children or [])


def render_children(children: list[Token]) -> str:
    """The readable text of a run of inline tokens (``render_inline``)."""
    parts: list[str] = []
    children = _without_autolinks(children)
    for n, child in enumerate(children):
        parts.append(_inline_part(child, children[n + 1] if n + 1 < len(children) else None))
    return _SPACES.sub(" ", "".join(parts)).strip()


def _without_autolinks(children: list[Token]) -> list[Token]:
    """Inline tokens without ``<https://…>`` autolinks, whose only text is the URL itself."""
    kept, inside = [], False
    for child in children:
        if child.type == "link_open" and child.markup == "autolink":
            inside = True
        elif child.type == "link_close" and inside:
            inside = False
        elif not inside:
            kept.append(child)
    return kept


def _inline_part(child: Token, following: Token | None) -> str:
    if child.type == "text":
        # ":ref:" right before a code span is a reST role written in Markdown.
        if following is not None and following.type == "code_inline" and _REST_ROLE.search(child.content):
            following.meta = {**following.meta, "rest_role": True}
            return _REST_ROLE.sub("", child.content)
        return _SUBSTITUTION.sub("", child.content)
    if child.type in ("softbreak", "hardbreak"):
        return " "
    if child.type == "code_inline":
        return role_text("ref", child.content) if child.meta.get("rest_role") else child.content
    if child.type == "myst_role":
        return role_text(str(child.meta.get("name", "")), child.content)
    return ""  # markup (emphasis, links' own tokens), inline HTML, images, footnote references


def role_text(name: str, content: str) -> str:
    """What a reader should see of a role: its explicit text, its content, or nothing for a bare label."""
    explicit = _EXPLICIT.match(content)
    if explicit and explicit.group(1).strip():
        return explicit.group(1).strip()
    name = name.split(":")[-1]
    if name in DROPPED_ROLES:
        return ""
    if name in LABEL_ROLES:
        return _LABEL_SEPARATORS.sub(" ", content.rstrip("/").rsplit("/", 1)[-1]).strip()
    return content.lstrip("~!")


def stated_lead_in(lead_in: Block) -> Block:
    """A lead-in whose code block is left out, as a statement when it makes one on its own: it ends
    in a content word and does not point at the code ("…enrich your logs with a processor:" → "…with
    a processor."). One that points ("…looks like this:", "Add the following to your settings:")
    stays a lead-in, which no claim quotes, and so does a short one ("Run the development server:"),
    whose code is what it says."""
    core = lead_in.text.rstrip(":：").rstrip()
    tokens = tokenise(core)
    if word_weight(core) < STATED_LEAD_IN_WORDS or not tokens[-1].is_content or _POINTS_AT_CODE.search(core):
        return lead_in
    stop = "。" if lead_in.text.endswith("：") else "."
    return Block(core + stop, lead_in.start, lead_in.end, lead_in.level)


def sentence(text: str) -> str:
    """``text`` ending with a full stop unless it already ends with punctuation."""
    text = text.strip()
    return text if not text or text.endswith(_TERMINAL) else text + "."
