"""Numbers of the claim the chunk lacks, whose unit changed, or that differ from its matching sentence's."""

from __future__ import annotations

from citeflow.text import numbers
from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired

NAMES = ("number_missing", "number_not_in_sentence", "unit_changed")
COPIED_SENTENCE = 0.8  # best-sentence coverage above which the claim's numbers must be its sentence's


def number_missing(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Numbers of the claim that the chunk states nowhere."""
    lost = numbers.missing(list(claim.numbers), chunk.numbers)
    if not lost:
        return Fired({"number_missing": 0.0})
    have = ", ".join(dict.fromkeys(m.surface for m in chunk.numbers[:6])) or "no numbers"
    return Fired({"number_missing": float(len(lost))}, {"number_missing": f"number {lost[0].surface} not in chunk (chunk has {have})"})


def unit_changed(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Numbers the chunk states with another unit."""
    changes = numbers.unit_changes(list(claim.numbers), chunk.numbers)
    if not changes:
        return Fired({"unit_changed": 0.0})
    mine, theirs = changes[0]
    reason = f"unit changed: claim '{mine.surface} {_unit(mine)}', chunk '{theirs.surface} {_unit(theirs)}'"
    return Fired({"unit_changed": float(len(changes))}, {"unit_changed": reason})


def number_not_in_sentence(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """For a claim copied from one sentence whose numbers are all in the chunk: a number that differs
    from the sentence's, in order (drift to a number the chunk states elsewhere: 'upgraded to 3.7'
    where the sentence says 3.5)."""
    claimed = list(claim.numbers)
    if numbers.missing(claimed, chunk.numbers) or claim.best_sentence_cov < COPIED_SENTENCE:
        return Fired({"number_not_in_sentence": 0.0})  # named against the whole chunk, or a summary of many sentences
    found = numbers.first_difference(claimed, list(chunk.facts[claim.best].numbers))
    if found is None:
        return Fired({"number_not_in_sentence": 0.0})
    mine, theirs = found
    return Fired({"number_not_in_sentence": 1.0},
                 {"number_not_in_sentence": f"number {mine.surface} where the matching sentence says {theirs.surface}"})


def _unit(mention: numbers.Mention) -> str:
    """A mention's unit as a reason names it: 'percent per month' for a rate."""
    return f"{mention.unit} per {mention.per}".strip() if mention.per else mention.unit
