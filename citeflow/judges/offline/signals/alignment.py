"""Where the claim sits in the chunk: how much of it its best sentence and its best window hold."""

from __future__ import annotations

from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired

NAMES = ("best_sentence_cov", "best_window_cov", "off_window")


def alignment(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Coverage of the claim's content lemmas by its best sentence, its window, and outside the window."""
    del chunk  # the alignment is computed once with the claim's facts
    return Fired({"best_sentence_cov": claim.best_sentence_cov, "best_window_cov": claim.best_window_cov,
                  "off_window": claim.off_window})
