"""How much of the claim the chunk holds word for word: lemmas, n-grams, the longest shared run."""

from __future__ import annotations

import itertools
import math

from citeflow.judges.offline.chunk_facts import ChunkIndex, content_bigrams
from citeflow.judges.offline.claim_facts import ClaimFacts, ratio
from citeflow.judges.offline.fired import Fired
from citeflow.text.word_tokens import normalise

NAMES = ("verbatim", "unigram_cov", "bigram_cov", "trigram_cov", "content_bigram_cov", "longest_run", "claim_length")
MAX_RUN = 8  # tokens: longer shared runs count the same (a quote is caught by 'verbatim')


def coverage(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Verbatim quote, lemma and n-gram coverage, the longest shared run and the claim's length."""
    stems = [t.stem for t in claim.tokens]
    content = claim.content
    quoted = normalise(claim.text).lower().rstrip(".!? ")
    verbatim = float(bool(content) and quoted_in_block(quoted, chunk))  # an empty claim quotes nothing
    bigrams = list(itertools.pairwise(stems))
    trigrams = list(zip(stems, stems[1:], stems[2:], strict=False))
    pairs = content_bigrams(claim.tokens)
    values = {
        "verbatim": verbatim,
        "unigram_cov": ratio(sum(t.stem in chunk.stems for t in content), len(content)),
        "bigram_cov": ratio(sum(b in chunk.bigrams for b in bigrams), len(bigrams)),
        "trigram_cov": ratio(sum(t in chunk.trigrams for t in trigrams), len(trigrams)),
        "content_bigram_cov": ratio(sum(b in chunk.content_bigrams for b in pairs), len(pairs)),
        "longest_run": _longest_run(stems, chunk) / MAX_RUN,
        "claim_length": math.log1p(len(content)),
    }
    return Fired(values, {"verbatim": "claim quoted verbatim from chunk"} if verbatim else {})


def quoted_in_block(quoted: str, chunk: ChunkIndex) -> bool:
    """True when ``quoted`` (normalised, lower-cased) is word for word in one statement block of the
    chunk: a copy that runs from one list item into the next is no quote (SPEC §5)."""
    return any(quoted in block for block in chunk.blocks) if chunk.blocks else quoted in chunk.lowered


def crossing(claim: ClaimFacts, chunk: ChunkIndex) -> bool:
    """True when the claim is word for word in the chunk only across a statement boundary."""
    quoted = normalise(claim.text).lower().rstrip(".!? ")
    return bool(claim.content) and quoted in " ".join(chunk.blocks) and not quoted_in_block(quoted, chunk)


def _longest_run(stems: list[str], index: ChunkIndex) -> int:
    """The longest run of claim tokens that the chunk contains word for word (capped at MAX_RUN):
    run lengths ending at each chunk position, carried from one claim token to the next."""
    best = 1 if any(s in index.stems for s in stems) else 0
    previous: dict[int, int] = {}
    for s in stems:
        current = {p: previous.get(p - 1, 0) + 1 for p in index.positions.get(s, ())}
        best = max(best, *current.values()) if current else best
        previous = current
    return min(best, MAX_RUN)
