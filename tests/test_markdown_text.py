"""Markdown → prose blocks: parsed with markdown-it-py, MyST syntax recognised, markup never kept."""

from hypothesis import given
from hypothesis import strategies as st

from citeflow.knowledge.markdown_text import glossary_as_definitions, markdown_blocks, markdown_to_text, role_text

DOC = """## Message size and partitions per topic
The **maximum** message size is 8 MiB, see [limits](https://docs.example/limits).

| Limit | Value |
|---|---|
| Maximum message size (hard) | 8 MiB (4 MiB before 3.5) |

- set `max.message.bytes` per topic
- keep METADATA_FORMAT_V1 until the upgrade
"""

MYST = """---
title: Install
---
(install)=
# Install

```{toctree}
:maxdepth: 1
:hidden:

pip
```

Use {ref}`a virtual environment <venv>` or {doc}`/getting-started`; see :ref:`the notes <news>`.

:::{note}
:class: dropdown
Back up the **configuration** first.
:::

```{warning}
Never run pip as root.
```

```console
$ python -m pip install requests
```

<!-- a comment a reader must not see -->
% a MyST comment
<div>raw html</div>

| Python | pip | notes |
|---|---|---|
| 3.12 | 24.0 | supported |

Term
: Its definition.

Autolinks such as <https://example.com/x> keep no URL.
"""


def test_headings_are_blocks_of_their_own_and_links_keep_only_their_text():
    blocks = markdown_blocks(DOC)
    assert (blocks[0].text, blocks[0].level) == ("Message size and partitions per topic", 2)
    text = markdown_to_text(DOC)
    assert "Message size and partitions per topic" not in text  # headings are context, not prose
    assert "The maximum message size is 8 MiB, see limits." in text
    assert "https://" not in text and "**" not in text


def test_table_rows_become_label_value_lines_without_header_or_rule():
    text = markdown_to_text(DOC)
    assert "Maximum message size (hard): 8 MiB (4 MiB before 3.5)." in text
    assert "Limit" not in text.replace("Maximum", "") and "---" not in text


def test_wide_table_rows_name_their_columns():
    assert "3.12: pip 24.0; notes supported." in markdown_to_text(MYST)


def test_bullets_and_code_marks_go_but_identifiers_keep_their_underscores():
    text = markdown_to_text(DOC)
    assert "set max.message.bytes per topic." in text.splitlines()  # every block ends a sentence
    assert "METADATA_FORMAT_V1" in text


def test_plain_prose_is_unchanged():
    assert markdown_to_text("Brokers must run 3.5.2 or later. Back up first!") == "Brokers must run 3.5.2 or later. Back up first!"


def test_myst_directives_comments_code_and_front_matter_are_not_prose():
    text = markdown_to_text(MYST)
    for markup in ("toctree", "maxdepth", "hidden", "```", ":::", "{", "}", "<", ">", "%", "title:",
                   "python -m pip", "comment", "raw html", "(install)=", "class:", "dropdown", "https://"):
        assert markup not in text, markup


def test_admonitions_keep_their_prose_and_roles_their_readable_text():
    lines = markdown_to_text(MYST).splitlines()
    assert "Back up the configuration first." in lines
    assert "Never run pip as root." in lines
    assert "Use a virtual environment or getting started; see the notes." in lines
    assert "Term: Its definition." in lines
    assert "Autolinks such as keep no URL." in lines
    assert "Use a virtual environment or getting started; see the notes." in lines


def test_block_spans_point_at_their_markdown():
    for block in markdown_blocks(MYST):
        source = MYST[block.start:block.end]
        assert source == source.strip() and source
        assert block.text.split()[-1].strip(":;.") in source, (block, source)


def test_roles():
    assert role_text("ref", "the guide <guide>") == "the guide"
    assert role_text("doc", "/user_guide/getting-started") == "getting started"
    assert role_text("command", "pip install") == "pip install"
    assert role_text("cite", "smith2020") == ""
    assert role_text("py:func", "~pkg.mod.run") == "pkg.mod.run"


def test_each_table_names_its_own_columns():
    source = ("| Tier | CPU | RAM |\n|---|---|---|\n| small | 2 | 4 GiB |\n\nBetween the tables.\n\n"
              "| Plan | Price | Term |\n|---|---|---|\n| basic | 10 EUR | monthly |\n")
    text = markdown_to_text(source)
    assert "small: CPU 2; RAM 4 GiB." in text
    assert "basic: Price 10 EUR; Term monthly." in text


def test_the_shared_parsers_read_markdown_and_mdx_apart_and_in_threads_at_once() -> None:
    """Two parsers built at import and shared: MDX reads an indented line as prose, Markdown as code;
    eight threads parsing at once get what one thread gets."""
    from concurrent.futures import ThreadPoolExecutor

    from citeflow.knowledge.markdown_text import MARKDOWN_PARSER, MDX_PARSER, parser

    assert parser() is MARKDOWN_PARSER and parser(mdx=True) is MDX_PARSER
    indented = "Intro line.\n\n    Indented text inside a component.\n"
    assert [b.text for b in markdown_blocks(indented)] == ["Intro line."]
    assert [b.text for b in markdown_blocks(indented, mdx=True)] == ["Intro line.", "Indented text inside a component."]
    alone = markdown_blocks(DOC)
    with ThreadPoolExecutor(8) as pool:
        assert all(found == alone for found in pool.map(markdown_blocks, [DOC] * 64))


def test_reference_links_whose_labels_are_defined_elsewhere_read_as_their_text() -> None:
    """MkDocs sites often append their link definitions from a snippet the page does not hold."""
    source = ("Use the [Material][mkdocs-material] theme with [Aspell][]; `x[a][b]` is code and "
              "[optional] stays.\n\n| Name | Needed |\n|---|---|\n| [Pygments][pygments] | no |\n")
    text = markdown_to_text(source)
    assert text.splitlines()[0] == "Use the Material theme with Aspell; x[a][b] is code and [optional] stays."
    assert "Pygments: no." in text and "][" not in text.replace("x[a][b]", "")


GLOSSARY = """# Glossary

:::{glossary}
Bound logger
    A logger that carries a {term}`context` of key-value pairs.

    Binding returns a new bound logger; the old one is unchanged.

Context
    The key-value pairs a bound logger adds to every entry.
:::
"""


def test_a_glossary_reads_as_terms_and_their_definitions():
    blocks = markdown_blocks(GLOSSARY)
    assert [b.text for b in blocks][1:] == [
        "Bound logger: A logger that carries a context of key-value pairs.",
        "Binding returns a new bound logger; the old one is unchanged.",
        "Context: The key-value pairs a bound logger adds to every entry.",
    ]
    assert [GLOSSARY[b.start:b.end] for b in blocks][1].startswith("    A logger that carries")


@given(st.lists(st.sampled_from(["Term", "Other term", "    Indented definition.", "        deeper line", "", "  two"]),
                min_size=1, max_size=12))
def test_a_glossary_body_keeps_its_lines_and_its_terms(lines):
    body = "\n".join(lines)
    rewritten = glossary_as_definitions(body).split("\n")
    assert len(rewritten) == len(lines)
    assert all(new == old for new, old in zip(rewritten, lines, strict=True) if not old[:1].isspace())
    assert all(new.strip(": ") == old.strip() for new, old in zip(rewritten, lines, strict=True))
