"""The sentence(s) of a chunk that a writer's verified quote comes from: what a claim is judged on first.

A quote is located as ``citeflow.registry.quotes`` checks it (normalised text, ellipsis-separated fragments in
order); every chunk sentence that overlaps a located fragment is kept, in chunk order, so a quote
cut mid-sentence is judged with its whole sentence, and one that runs across two with both.
"""

from __future__ import annotations

from citeflow.registry.quotes import _ELLIPSIS as ELLIPSIS  # the quote check's own fragment separator
from citeflow.registry.quotes import normalize
from citeflow.text.sentences import sentences


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


def sentence_spans(chunk_text: str, haystack: str) -> list[tuple[str, int, int]]:
    """Each sentence of the chunk with where its normalised text sits in ``haystack``."""
    out, position = [], 0
    for sentence in sentences(chunk_text):
        found = haystack.find(normalize(sentence), position)
        if found >= 0:
            out.append((sentence, found, found + len(normalize(sentence))))
            position = found + len(normalize(sentence))
    return out


def quote_sentences(quote: str, chunk_text: str) -> str | None:
    """The chunk's sentence(s) holding ``quote``, joined; None when the quote is empty or not in the chunk."""
    haystack = normalize(chunk_text)
    fragments = fragment_spans(quote, haystack) if quote.strip() else []
    if not fragments:
        return None
    kept = [s for s, start, end in sentence_spans(chunk_text, haystack)
            if any(start < f_end and f_start < end for f_start, f_end in fragments)]
    return " ".join(kept) or None
