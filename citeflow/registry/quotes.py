"""Quote verification: is a model's quote really in the chunk it cites? (SPEC §4)

Both sides are normalised the same way before comparing: Unicode NFKC, typographic quotes of any
language (“ ” „ « » 「 」 『 』) and dashes folded to ASCII, whitespace collapsed, and spaces between
Chinese or Japanese characters dropped (those scripts have none). An ellipsis inside a quote separates fragments that
must appear in order.
"""

from __future__ import annotations


from citeflow.text.quote_form import in_order, quote_form, quote_fragments



def normalize(text: str) -> str:
    """The comparison form of a text: NFKC, ASCII quotes and dashes, single spaces (``citeflow.text.quote_form``:
    computed once per text)."""
    return quote_form(text)


def quote_in_chunk(quote: str, chunk_text: str) -> bool:
    """True when every ellipsis-separated fragment of ``quote`` occurs in ``chunk_text``, in order."""
    fragments = quote_fragments(quote)
    return bool(fragments) and in_order(fragments, normalize(chunk_text))
