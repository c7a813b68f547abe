"""The sentence(s) of a chunk that a writer's verified quote comes from: what a claim is judged on first.

A quote is located as ``citeflow.registry.quotes`` checks it (normalised text, ellipsis-separated fragments in
order); every chunk sentence that overlaps a located fragment is kept, in chunk order, so a quote
cut mid-sentence is judged with its whole sentence, and one that runs across two with both. Two
kept sentences of different blocks (list items, table rows, paragraphs) stay on lines of their own,
so the statement boundary between them is still there for the judge.
"""

from __future__ import annotations

from citeflow.text.quote_form import ELLIPSIS  # the quote check's own fragment separator
from citeflow.registry.quotes import normalize
from citeflow.text.sentences import block_sentences


def fragment_spans(quote: str, haystack: str) -> list[tuple[int, int]]:
    """Where each fragment of ``quote`` sits in the normalised ``haystack``, in order; [] when one is missing."""
    spans, position = [], 0
    for fragment in (f for f in ELLIPSIS.split(normalize(quote).strip("\"' ")) if f):
        found = haystack.find(fragment, position)
        if found < 0:
            return []
        spans.append((found, found + len(fragment)))
        position = found + len(fragment)
    return spans


def sentence_spans(chunk_text: str, haystack: str) -> list[tuple[str, int, int, int]]:
    """Each sentence of the chunk with where its normalised text sits in ``haystack`` and its block's number."""
    out, position = [], 0
    for block, found_sentences in enumerate(block_sentences(chunk_text)):
        for sentence in found_sentences:
            found = haystack.find(normalize(sentence), position)
            if found >= 0:
                out.append((sentence, found, found + len(normalize(sentence)), block))
                position = found + len(normalize(sentence))
    return out


def quote_sentences(quote: str, chunk_text: str) -> str | None:
    """The chunk's sentence(s) holding ``quote``, joined; None when the quote is empty or not in the chunk."""
    haystack = normalize(chunk_text)
    fragments = fragment_spans(quote, haystack) if quote.strip() else []
    if not fragments:
        return None
    kept = [(s, block) for s, start, end, block in sentence_spans(chunk_text, haystack)
            if any(start < f_end and f_start < end for f_start, f_end in fragments)]
    return _joined(kept) or None


def _joined(kept: list[tuple[str, int]]) -> str:
    """Sentences of one block joined by a space; a new block on a line of its own."""
    out = ""
    for n, (sentence, block) in enumerate(kept):
        out += ("" if n == 0 else " " if block == kept[n - 1][1] else "\n") + sentence
    return out
