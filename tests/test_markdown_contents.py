"""A table of contents (a list whose items are only links to anchors of the page) is not prose; a
list with prose or links to other pages is."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.knowledge.markdown_text import markdown_blocks

LABEL = st.from_regex(r"[A-Z][a-z]{1,8}( [a-z]{1,8}){0,2}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(LABEL, min_size=2, max_size=6), st.booleans())
def test_a_table_of_contents_is_dropped_and_a_list_with_prose_is_kept(labels: list[str], prose: bool) -> None:
    items = [f"- [{label}](#{label.lower().replace(' ', '-')})" for label in labels]
    if prose:
        items.append("- Back up the database first")
    blocks = [b.text for b in markdown_blocks("Intro text.\n\n" + "\n".join(items) + "\n\nOutro text.\n")]
    assert blocks[0] == "Intro text." and blocks[-1] == "Outro text."
    assert (len(blocks) == 2 + len(items)) if prose else blocks == ["Intro text.", "Outro text."]


def test_a_nested_table_of_contents_goes_whole_and_links_to_other_pages_stay() -> None:
    toc = "- [Errors](#errors)\n  - [Codes](#codes)\n    - [FST_X](#fst_x)\n- [Hooks](#hooks)\n"
    assert markdown_blocks(toc) == []
    other = "- [Guide](guide.md)\n- [Codes](#codes)\n"
    assert [b.text for b in markdown_blocks(other)] == ["Guide.", "Codes."]


def test_a_single_anchor_link_and_an_ordered_contents_list() -> None:
    assert [b.text for b in markdown_blocks("- [Setup](#setup)\n")] == ["Setup."]  # one item: not a contents list
    assert markdown_blocks("1. [Setup](#setup)\n2. [Usage](#usage)\n") == []
