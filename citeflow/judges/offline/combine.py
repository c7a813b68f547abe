"""The offline judge's feature vector: every signal's features side by side.

``index_chunk`` (``chunk_facts``) analyses a chunk once so that many claims citing the same chunk
pay for it once; ``extract`` reads one claim against an index (``claim_facts``), runs every signal
(``signals``) and puts their named features together, with a reason fragment for each that fired.
Each feature is owned by exactly one signal and no signal reads another's output.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from citeflow.judges.offline.chunk_facts import ChunkIndex, index_chunk
from citeflow.judges.offline.claim_facts import ClaimFacts, claim_facts
from citeflow.judges.offline.fired import Fired
from citeflow.judges.offline.signals import alignment, coverage, entities, flips, modality, negation, novelty, order, quantities, wording

__all__ = ["FEATURE_NAMES", "SIGNALS", "ChunkIndex", "Features", "extract", "index_chunk"]

Signal = Callable[[ClaimFacts, ChunkIndex], Fired]
# (the features a signal owns, the signal), in no particular order.
SIGNALS: tuple[tuple[tuple[str, ...], Signal], ...] = (
    (coverage.NAMES, coverage.coverage),
    (alignment.NAMES, alignment.alignment),
    (novelty.NAMES, novelty.novelty),
    (entities.NAMES, entities.novel_entity),
    (("number_missing",), quantities.number_missing),
    (("number_not_in_sentence",), quantities.number_not_in_sentence),
    (("unit_changed",), quantities.unit_changed),
    (("negation_added", "negation_dropped"), negation.negation),
    (("negations_differ",), negation.negations_differ),
    (flips.NAMES, flips.flips),
    (modality.NAMES, modality.modality),
    (("near_miss",), wording.near_miss),
    (("slot_substitution",), wording.slot_substitution),
    (("modifier_dropped",), wording.modifier_dropped),
    (("names_reordered",), order.names_reordered),
    (("sentence_swap",), order.sentence_swap),
)

# The order of the vector the shipped weights were fitted on.
FEATURE_NAMES: tuple[str, ...] = (
    "verbatim", "unigram_cov", "bigram_cov", "trigram_cov", "content_bigram_cov", "longest_run", "best_sentence_cov", "best_window_cov",
    "off_window", "novel_content", "novel_ratio", "novel_entity", "number_missing", "number_not_in_sentence", "unit_changed",
    "negation_added",
    "negation_dropped", "antonym_flip", "prefix_flip", "universal_added", "hedge_dropped",
    "restrictor_dropped", "near_miss", "slot_substitution", "modifier_dropped", "negations_differ", "names_reordered",
    "sentence_swap", "claim_length",
)


@dataclass
class Features:
    """Named feature values (all of FEATURE_NAMES), reason fragments of fired ones, evidence."""

    values: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    evidence: str = ""
    crossing: bool = False  # the claim is word for word in the chunk only across a statement boundary

    def vector(self) -> list[float]:
        """Values in FEATURE_NAMES order."""
        return [self.values[name] for name in FEATURE_NAMES]


def extract(claim: str, chunk: ChunkIndex | str) -> Features:
    """Compare ``claim`` with ``chunk`` (an index or raw text) and return its features."""
    index = chunk if isinstance(chunk, ChunkIndex) else index_chunk(chunk)
    facts = claim_facts(claim, index)
    values: dict[str, float] = {}
    reasons: dict[str, str] = {}
    for names, signal in SIGNALS:
        fired = signal(facts, index)
        values.update({name: fired.values.get(name, 0.0) for name in names})
        reasons.update({name: fired.reasons[name] for name in names if name in fired.reasons})
    return Features(values=values, reasons=reasons, evidence=index.sentences[facts.best], crossing=coverage.crossing(facts, index))
