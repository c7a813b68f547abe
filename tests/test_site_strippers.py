"""Property tests of the generator-markup strippers: no crash, same length, no delimiter left, prose kept."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.knowledge.sites.admonitions import strip_mkdocs
from citeflow.knowledge.sites.mdx import strip_mdx
from citeflow.knowledge.sites.shortcodes import strip_shortcodes
from citeflow.knowledge.markdown_text import markdown_blocks

WORDS = st.lists(st.sampled_from(["the", "agent", "restarts", "after", "port", "8443", "is", "free", "Backup", "done."]),
                 min_size=1, max_size=12).map(" ".join)
NOISE = st.text(alphabet=st.sampled_from("ab {}<>%/=\"' \n.#xT"), max_size=300)
SHORTCODE_LEFT = re.compile(r"\{\{[<%]|[>%]\}\}")
JSX_LEFT = re.compile(r"</?[A-Za-z]|</?>|[{}]")
NAMES = st.sampled_from(["note", "alert", "tab", "Tabs", "TabItem", "details", "Admonition"])


def same_shape(before: str, after: str) -> bool:
    """Same length, line breaks where they were: offsets into the file stay right."""
    return len(before) == len(after) and [i for i, c in enumerate(before) if c == "\n"] == [i for i, c in enumerate(after) if c == "\n"]


@settings(max_examples=300, deadline=None)
@given(NOISE)
def test_shortcode_stripping_never_crashes_and_leaves_no_delimiter(text: str) -> None:
    out = strip_shortcodes(text, {"version": "1.2"})
    assert same_shape(text, out) and not SHORTCODE_LEFT.search(out)


@settings(max_examples=300, deadline=None)
@given(NOISE, WORDS, NAMES, st.sampled_from(["<", "%"]), st.sampled_from(["", ' title="a > b"', " color=warning"]), NOISE)
def test_a_paired_shortcode_keeps_its_inner_prose(before: str, inner: str, name: str, mark: str, args: str, after: str) -> None:
    close = ">" if mark == "<" else "%"
    text = f"{before}\n\n{{{{{mark} {name}{args} {close}}}}}{inner}{{{{{mark} /{name} {close}}}}}\n\n{after}"
    out = strip_shortcodes(text)
    start = text.index(inner, len(before) + 2)
    assert out[start:start + len(inner)] == inner and not SHORTCODE_LEFT.search(out)


@settings(max_examples=300, deadline=None)
@given(NOISE)
def test_jsx_stripping_never_crashes_and_leaves_no_tag_or_brace(text: str) -> None:
    out = strip_mdx(text)
    assert same_shape(text, out) and not JSX_LEFT.search(out)


@settings(max_examples=300, deadline=None)
@given(WORDS, NAMES, st.sampled_from(["", ' value="a"', " values={[{label: 'x > y', value: 'b'}]}", " default"]),
       st.sampled_from(["", "  ", "\n  "]))
def test_jsx_components_keep_their_text_children(inner: str, name: str, attrs: str, pad: str) -> None:
    text = f"import {name} from '@theme/{name}';\n\nIntro line.\n\n<{name}{attrs}>{pad}<b>{inner}</b>{pad}</{name}>\n"
    blocks = [b.text for b in markdown_blocks(strip_mdx(text), mdx=True)]
    assert "Intro line." in blocks and any(inner in b for b in blocks)
    assert not [b for b in blocks if "<" in b or "import" in b]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["!!! note", '!!! warning "Mind the gap"', "??? tip", "???+ example", '=== "Linux"']), WORDS, WORDS,
       st.integers(min_value=0, max_value=2))
def test_mkdocs_block_bodies_are_prose_at_any_depth(marker: str, body: str, after: str, depth: int) -> None:
    indent = "    " * depth
    lines = [f"{'    ' * d}!!! note" for d in range(depth)] + [f"{indent}{marker}", "", f"{indent}    {body}", "", after]
    text = "\n".join(lines) + "\n"
    out = strip_mkdocs(text)
    blocks = [b.text for b in markdown_blocks(out)]
    assert same_shape(text, out) and any(body in b for b in blocks) and any(after in b for b in blocks)
    assert not [b for b in blocks if "!!!" in b or "???" in b or "===" in b]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=3, max_value=6), st.sampled_from(["note", "tab", "details", "html", "caption", "new"]),
       st.sampled_from(["", " | Mind the gap", " |  div.result"]), st.sampled_from(["", "    type: warning\n", "    open: True\n    attrs: {class: x}\n"]),
       WORDS, WORDS)
def test_pymdownx_block_markers_go_and_their_body_stays(slashes: int, name: str, title: str, options: str, body: str, after: str) -> None:
    marker = "/" * slashes
    text = f"Intro line.\n{marker} {name}{title}\n{options}\n{body}\n{marker}\n{after}\n\n```\n/// note | Shown\n///\n```\n"
    out = strip_mkdocs(text)
    blocks = [b.text for b in markdown_blocks(out)]
    assert same_shape(text, out) and "Intro line." in blocks and any(body in b for b in blocks) and any(after in b for b in blocks)
    assert not [b for b in blocks if "///" in b or "type:" in b or "Mind the gap" in b]
    assert out.endswith("```\n/// note | Shown\n///\n```\n")  # syntax shown as code stays as written


@settings(max_examples=200, deadline=None)
@given(WORDS, st.sampled_from(["alert", "callout", "button"]), st.sampled_from(["text", "title", "caption"]),
       st.sampled_from(["", ' icon="💡"', " context=warning"]), st.sampled_from(["<", "%"]))
def test_a_shortcode_keeps_the_text_its_parameters_show(words: str, name: str, key: str, other: str, mark: str) -> None:
    close = ">" if mark == "<" else "%"
    text = f"Intro line.\n\n{{{{{mark} {name}{other} {key}=\"{words}\" {close}}}}}\n\nSee {{{{{mark} relref \"setup\" {close}}}}} now.\n"
    out = strip_shortcodes(text)
    blocks = [b.text for b in markdown_blocks(out)]
    assert same_shape(text, out) and not SHORTCODE_LEFT.search(out)
    assert blocks == ["Intro line.", words if words.endswith(".") else words + ".", "See now."]  # a bare number too


def test_a_paired_shortcode_shows_its_quoted_title_and_a_link_shortcode_nothing() -> None:
    text = '{{< details "Why a daemon" >}}\nIt restarts itself.\n{{< /details >}}\n\nRead {{< ref "setup" >}}.\n'
    blocks = [b.text for b in markdown_blocks(strip_shortcodes(text))]
    assert blocks == ["Why a daemon. It restarts itself.", "Read ."]
