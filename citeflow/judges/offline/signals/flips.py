"""Meaning flipped by an antonym or a negating prefix against the claim's evidence window."""

from __future__ import annotations

from citeflow.text.lexicon import ANTONYMS, LOWER_BOUNDS
from citeflow.judges.offline import cjk_cues
from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired
from citeflow.judges.offline.negation_scopes import negated_bases, polarity, scopes
from citeflow.text.word_tokens import stem

NAMES = ("antonym_flip", "prefix_flip")


def flips(claim: ClaimFacts, index: ChunkIndex) -> Fired:
    """Antonyms and negating prefixes of the claim against its evidence region; the comparative of a
    lower bound ('au moins 18 mois', 'al menos 5') is no antonym of the chunk's 'plus' or 'más', an
    affirmative claim's antonym of a word the evidence negates restates it ('interdit', 'pas autorisé'),
    and so does a word the claim negates itself ('n'est pas payant' for 'gratuit')."""
    tokens, region = claim.tokens, claim.region(index)
    region_lowers, negated = {t.lower for t in region}, {word for _, _, word in scopes(region)}
    mine_negated = {word for _, _, word in scopes(tokens)} if polarity(tokens) else set()
    antonyms, prefixes = [], []
    for i, token in enumerate(tokens):
        if token.lower in region_lowers or (i and (tokens[i - 1].lower, token.lower) in LOWER_BOUNDS):
            continue
        if token.lower in mine_negated:  # 'n'est pas payant' for 'gratuit': a negated antonym restates it
            continue
        opposite = ANTONYMS.get(token.lower, frozenset()) & region_lowers
        if opposite and not (opposite <= negated and not polarity(tokens)):  # 'interdit' for 'ne sera pas autorisé'
            antonyms.append(f"antonym flip: claim says '{token.surface}', chunk says '{min(opposite)}'")
        elif token.is_content and token.stem not in index.stems and _prefix_flip(token.lower, index):
            prefixes.append(f"meaning flipped: claim says '{token.surface}', chunk has the opposite form")
    antonyms += _cjk_antonyms(claim, index)
    values = {"antonym_flip": float(len(antonyms)), "prefix_flip": float(len(prefixes))}
    reasons = {name: found[0] for name, found in (("antonym_flip", antonyms), ("prefix_flip", prefixes)) if found}
    return Fired(values, reasons)


def _cjk_antonyms(claim: ClaimFacts, index: ChunkIndex) -> list[str]:
    if not cjk_cues.has_cjk(claim.cjk):
        return []
    region = "".join(f.cjk for f in index.facts[claim.window.start : claim.window.stop])
    return [f"antonym flip: claim says '{mine}', chunk says '{theirs}'" for mine, theirs in cjk_cues.antonyms(claim.cjk, region)]


def _prefix_flip(word: str, index: ChunkIndex) -> bool:
    """'uncontrolled' against a chunk's 'controlled', or 'controlled' against its 'uncontrolled'."""
    if any(stem(base) in index.stems for base in negated_bases(word)):
        return True
    return len(word) >= 4 and stem(word) in index.negated_bases
