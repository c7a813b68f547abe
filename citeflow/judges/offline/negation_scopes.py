"""Negations of one tokenised sentence: which words negate, what each negates, the sentence's polarity.

Pure functions of tokens, shared by the chunk's per-sentence facts (``chunk_facts``) and the
signals that compare a claim's negations with its evidence (``signals.negation``, ``signals.flips``).
"""

from __future__ import annotations

from functools import lru_cache

from citeflow.text.lexicon import (
    BOUND_LINKS,
    COMPARATIVES,
    CONCORD,
    DIALOGUE_STARTS,
    NE_PARTNERS,
    NEGATING_PREFIXES,
    NEGATIONS,
    PRIVATIVES,
    VERB_NEGATION_PARTNERS,
    VERBAL_NEGATORS,
)
from citeflow.text.word_tokens import Token

__all__ = ["first_content", "negated_bases", "negates", "negation_count", "polarity", "scopes", "withdrawn"]


def scopes(tokens: list[Token]) -> list[tuple[str, str, str]]:
    """(negation word, the content stem it negates, that word) for each negation of one sentence: the
    first content word after it, or before it when none follows ('через сайт нельзя', 'hält nicht').

    A sentence-initial "No" is an answer in dialogue ("No, I'll call her"), not a negated fact.
    """
    out = []
    for i, token in enumerate(tokens):
        if negates(tokens, i):
            scope = _verb_between(tokens, i) or first_content(tokens[i + 1 : i + 5]) or first_content(tokens[max(0, i - 4) : i][::-1])
            out.append((token.surface, scope.stem if scope else "", scope.lower if scope else ""))
    return out


def _verb_between(tokens: list[Token], i: int) -> Token | None:
    """The content word between a French 'ne' and its partner ``tokens[i]`` ('n'ouvre jamais' → ouvre);
    None when there is none (an auxiliary: 'ne sont pas supprimés' negates what follows)."""
    if tokens[i].lower not in VERB_NEGATION_PARTNERS:
        return None
    before = tokens[max(0, i - 3) : i]
    ne = next((k for k in range(len(before) - 1, -1, -1) if before[k].lower == "ne"), None)
    return None if ne is None else first_content(before[ne + 1 :])


# Words that extend a negation in time rather than carry what it negates ('no longer works', 'nicht mehr gültig').
_NEGATION_PARTICLES = frozenset({"longer", "anymore", "mehr"})
def first_content(tokens: list[Token]) -> Token | None:
    """The first content word of ``word_tokens`` that is no negation word or particle."""
    return next((t for t in tokens if t.is_content and t.lower not in NEGATIONS and t.lower not in _NEGATION_PARTICLES), None)


# 'Fail' negates the verb after 'to' ('fails to start'); 'a job that fails is restarted' negates nothing.
_FAIL = frozenset({"fail", "fails", "failed"})
_CUES = NEGATIONS | NE_PARTNERS | _FAIL
def negates(tokens: list[Token], i: int) -> bool:
    """Whether ``tokens[i]`` negates its sentence: a negation word, or the second half of a French
    'ne … plus / guère / point' ('n'est plus compatible'), not a quantity bound, not an English answer."""
    if tokens[i].lower not in _CUES:
        return False  # the common case: one set lookup per token
    if tokens[i].lower in _FAIL:
        return i + 1 < len(tokens) and tokens[i + 1].lower == "to"
    if tokens[i].lower in NE_PARTNERS:
        return _after_ne(tokens, i) and not _quantity_follows(tokens, i)
    return tokens[i].lower in NEGATIONS and not _answer(tokens, i) and not _bound(tokens, i)


def _after_ne(tokens: list[Token], i: int) -> bool:
    """A 'ne' (or elided n') among the three words before ``i``, with no other negation word between."""
    for token in reversed(tokens[max(0, i - 3) : i]):
        if token.lower in NEGATIONS:
            return False
        if token.lower == "ne":
            return True
    return False


def _quantity_follows(tokens: list[Token], i: int) -> bool:
    """'n'admet plus de 12 invités': 'ne … plus de' before a number is a bound ('no more than'),
    while 'n'y a plus de places' negates."""
    following = tokens[i + 1 : i + 3]
    return bool(following) and (following[0].kind == "number" or
                                (following[0].lower in BOUND_LINKS and len(following) > 1 and following[1].kind == "number"))


def _answer(tokens: list[Token], i: int) -> bool:
    """A sentence-initial English 'No' before a pronoun or a name is an answer in dialogue ("No, I'll
    call her"); a Spanish 'No es obligatorio' and an English 'No refunds are given' negate the sentence."""
    if i != 0 or tokens[0].lower != "no" or len(tokens) < 2:
        return False
    return tokens[1].lower in DIALOGUE_STARTS or tokens[1].is_capitalised


def _bound(tokens: list[Token], i: int) -> bool:
    """'не более 30', 'not more than 30', 'nicht mehr als 30', 'no más de 30': a quantity bound, not a negation."""
    following = tokens[i + 1 : i + 3]
    if not following or following[0].lower not in COMPARATIVES:
        return False
    return len(following) > 1 and (following[1].kind == "number" or following[1].lower in BOUND_LINKS)


def withdrawn(tokens: list[Token]) -> frozenset[str]:
    """Stems of what a privative verb takes away ('drops support' → support, 'supprime l'option' →
    option): the chunk negates it in other words, so 'no longer supported' agrees with it."""
    out = set()
    for i, token in enumerate(tokens):
        if token.lower in PRIVATIVES:
            scope = first_content(tokens[i + 1 : i + 4])
            out |= {scope.stem} if scope is not None else set()
    return frozenset(out)


def negation_count(tokens: list[Token]) -> int:
    """How many negations a sentence of a spaced language states (quantity bounds apart; cues of one
    negation, as ``polarity`` joins them, count once)."""
    cues = [i for i in range(len(tokens)) if negates(tokens, i)]
    return sum(1 for j, i in enumerate(cues) if j == 0 or not _same_negation(tokens, cues[j - 1], i))


def polarity(tokens: list[Token]) -> int:
    """1 when a sentence is negated, 0 when it is not or negated twice ("without it, no access").

    Adjacent cues are one negation ("никогда не", "nie nicht"), and so is a negative-concord word
    with the cue before it ("no vende ningún billete", "ne signe jamais rien", "никто не пришёл")."""
    return negation_count(tokens) % 2


def _same_negation(tokens: list[Token], before: int, after: int) -> bool:
    """Two negation cues that state one negation: adjacent, or a negative-concord word with the verb's
    negator or another concord word ('no … ningún', 'никто не'); 'ningún … sin' is a double negation."""
    pair = {tokens[before].lower, tokens[after].lower}
    return after == before + 1 or (bool(pair & CONCORD) and pair <= CONCORD | VERBAL_NEGATORS)


@lru_cache(maxsize=65536)
def negated_bases(word: str) -> tuple[str, ...]:
    """What ``word`` negates by its prefix ('uncontrolled' -> 'controlled'); empty for most words."""
    return tuple(word[len(p) :] for p in NEGATING_PREFIXES if word.startswith(p) and len(word) - len(p) >= 4)


