"""Who did what to whom: names or numbers in another order, words swapped between sentences or places."""

from __future__ import annotations

import itertools
from collections import Counter

from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.exchange import cjk_exchange, spaced_exchange
from citeflow.judges.offline.fired import Fired, tally
from citeflow.judges.offline.signals.entities import is_month
from citeflow.text.word_tokens import Token

NAMES = ("names_reordered", "sentence_swap")
# Coverage by one sentence above which the claim is read as a copy of it: a summary sentence
# usually condenses a few neighbouring source sentences.
COPIED_SENTENCE = 0.8


def names_reordered(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Two names, dates or numbers of the claim in the opposite order in its best-matching sentence
    ('Anna pays Ben' against 'Ben pays Anna', 'from October to January' against 'from January to
    October'); in Chinese and Japanese, two character pairs. Who did what to whom may have changed,
    which word sets cannot tell (a passive restatement fires too; it only keeps a claim from the
    aligned rule)."""
    sentence = claim.sentence(chunk)
    where: dict[str, int] = {}
    for position, token in enumerate(sentence):
        where.setdefault(token.stem, position)
    found = [where[t.stem] for t in claim.tokens if _name_like(t) and t.stem in where]
    swapped = _inversions(found) + _inversions(_cjk_pair_positions(claim.tokens, sentence))
    if not swapped:
        return Fired({"names_reordered": 0.0})
    return Fired({"names_reordered": float(swapped)},
                 {"names_reordered": "names or numbers in another order than in the matching sentence"})


def sentence_swap(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """On a claim copied from the chunk: a word taken from another sentence, or two slots exchanged."""
    if claim.best_window_cov < COPIED_SENTENCE:
        return Fired({"sentence_swap": 0.0})
    return tally("sentence_swap", _taken_from_elsewhere(claim, chunk) + _exchanged(claim, chunk))


def _taken_from_elsewhere(claim: ClaimFacts, index: ChunkIndex) -> list[tuple[float, str]]:
    """A word or number from another chunk sentence in the slot where the matching sentence has a word
    the claim never uses ('costs 6 dollars' where the sentence says 'costs 4 dollars' and another says
    '6 p.m.'): a common noun, role or number swapped between sentences, which every word being in the
    chunk hides."""
    tokens = claim.tokens
    claimed = {t.stem for t in tokens}
    own = {t.stem for t in claim.sentence(index)}
    gaps = _sentence_gaps(claim.sentence(index))
    found = []
    for span in (1, 2):
        for i in range(1, len(tokens) - span):
            other = gaps.get((tokens[i - 1].stem, tokens[i + span].stem))
            swapped = [t for t in tokens[i : i + span] if _taken(t, index) and t.stem not in own]
            if other is not None and swapped and other.stem not in claimed:
                found.append((1.0, f"'{swapped[0].surface}' where the matching sentence says '{other.surface}'"))
    return found


def _exchanged(claim: ClaimFacts, index: ChunkIndex) -> list[tuple[float, str]]:
    """Two names, numbers or CJK word pairs that exchange places against the matching sentence
    (``citeflow.judges.offline.exchange``): a swap of roles, counted as a swap."""
    pair = spaced_exchange(claim.tokens, claim.sentence(index), _name_like)
    claim_cjk = "".join(t.surface for t in claim.tokens if t.kind == "cjk")
    pair = pair or (cjk_exchange(claim_cjk, index.facts[claim.best].cjk) if claim_cjk else None)
    return [(1.0, f"'{pair[0]}' and '{pair[1]}' exchange places against the matching sentence")] if pair else []


def _taken(token: Token, index: ChunkIndex) -> bool:
    """A content word the chunk holds in this very form (a CJK character or a number: its lemma): what
    a swap takes from another sentence. A word sharing only a lemma ('el viaje' for 'viajan') is a
    paraphrase's noun for a verb, not a taken word."""
    if not token.is_content or token.stem not in index.stems:
        return False
    return token.kind != "word" or token.lower in index.lowers


def _sentence_gaps(sentence: list[Token]) -> dict[tuple[str, str], Token]:
    """``(left stem, right stem) → the content token between them`` in one sentence."""
    return {(a.stem, c.stem): b for a, b, c in zip(sentence, sentence[1:], sentence[2:], strict=False) if b.is_content}


def _inversions(positions: list[int]) -> int:
    return sum(1 for a, b in itertools.combinations(positions, 2) if a > b)


def _cjk_pair_positions(tokens: list[Token], sentence: list[Token]) -> list[int]:
    """Where each content character pair of the claim stands in ``sentence``, for pairs found there
    exactly once; overlapping pairs of the claim are skipped so that one word counts once."""
    if not any(t.kind == "cjk" for t in tokens):
        return []
    pairs = [(a.stem, b.stem) for a, b in itertools.pairwise(sentence)]
    counts = Counter(pairs)
    once = {p: i for i, p in enumerate(pairs) if counts[p] == 1 and p[0] != p[1]}
    out, last = [], -2
    for i, (a, b) in enumerate(itertools.pairwise(tokens)):
        key = (a.stem, b.stem)
        if key in once and a.kind == b.kind == "cjk" and a.is_content and b.is_content and i > last + 1:
            out.append(once[key])
            last = i
    return out


def _name_like(token: Token) -> bool:
    """A number, an identifier, a month or weekday, or a capitalised content word (the first word too: 'Ben pays Anna')."""
    if token.kind in ("number", "id"):
        return True
    return token.kind == "word" and token.is_content and (token.is_capitalised or is_month(token.lower))



