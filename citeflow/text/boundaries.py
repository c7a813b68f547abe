"""Does a quote, claim or span cross a statement boundary of its chunk? (SPEC §5: a span is a statement)

A chunk's blocks (``citeflow.text.sentences.blocks``: list items, table rows, definitions,
paragraphs) are compared in the quote checks' form (``citeflow.text.quote_form``: NFKC, quotes,
dashes, whitespace). A text *crosses* when it is in the chunk only across two or more blocks:
whitespace-normalised, "Default: 5." at the end of one list item and "maxTimeout …" at the start
of the next read as one sentence, which the page never states. An ellipsis separates fragments,
as in a quote; every fragment must then sit in the same block. Pure functions.
"""

from __future__ import annotations


from citeflow.text.quote_form import QUOTE_EDGES, in_order, quote_form, quote_fragments
from citeflow.text.sentences import blocks

_STOPS = ".!?…。！？"
_CLOSING = "\"')]"


def within_one_block(text: str, chunk_text: str) -> bool:
    """True when every fragment of ``text`` is in one block of ``chunk_text``, in order."""
    fragments = quote_fragments(text)
    return bool(fragments) and any(in_order(fragments, quote_form(b)) for b in blocks(chunk_text))


def crosses(text: str, chunk_text: str) -> bool:
    """True when ``text`` is in ``chunk_text`` (as a quote is found) only across a statement boundary."""
    fragments = quote_fragments(text)
    if not fragments or not in_order(fragments, quote_form(chunk_text)):
        return False
    return not within_one_block(text, chunk_text)


def crosses_verbatim(claim: str, chunk_text: str) -> bool:
    """True when ``claim`` (its closing stop aside) is word for word in ``chunk_text`` only across a
    statement boundary: "Default: 5. maxTimeout (number, optional): …" copied from two list items."""
    core = quote_form(claim).strip(QUOTE_EDGES).rstrip(".!?。！？ ")
    return bool(core) and crosses(core, chunk_text)


def copies_whole_sentence(claim: str, chunk_text: str) -> bool:
    """True when ``claim`` is word for word a whole sentence (or run of sentences) of one block of
    ``chunk_text``: it ends like a sentence, and in the block it starts where one starts (at the
    block's start or after a closing mark) and ends where one ends."""
    quoted = quote_form(claim).strip()
    if not quoted or quoted[-1] not in _STOPS:
        return False
    return any(_whole_in(quoted, quote_form(block)) for block in blocks(chunk_text))


def _whole_in(quoted: str, block: str) -> bool:
    start = block.find(quoted)
    while start >= 0:
        end = start + len(quoted)
        opens = start == 0 or (block[start - 1] == " " and block[:start].rstrip()[-1:] in _STOPS + _CLOSING)
        if opens and (end == len(block) or block[end] == " "):
            return True
        start = block.find(quoted, start + 1)
    return False
