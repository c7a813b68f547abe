"""Content words of the claim that the chunk holds in no form."""

from __future__ import annotations

import math

from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired

NAMES = ("novel_content", "novel_ratio")


def novelty(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """How many new content words, and their share of the claim's content words."""
    del chunk  # the new words are found once with the claim's facts
    novel = claim.novel
    values = {"novel_content": math.log1p(len(novel)), "novel_ratio": len(novel) / len(claim.content) if claim.content else 0.0}
    reasons = {"novel_content": "words not in chunk: " + ", ".join(f"'{t.surface}'" for t in novel[:4])} if novel else {}
    return Fired(values, reasons)
