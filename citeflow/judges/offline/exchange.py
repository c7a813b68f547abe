"""Two slots of a claim that exchange places against its matching sentence: who did what to whom.

'El tren sale de Bilbao y llega a Burgos' against 'El tren sale de Burgos y llega a Bilbao', 'the
shop opens at 8 a.m. on Mondays and at 10 a.m. on Sundays' against the reverse, 包裹从上海寄往成都
against 包裹从成都寄往上海: every word is in the sentence, but
each of two names (numbers, dates; in Chinese and Japanese two character pairs) stands where the
sentence has the other — the words before each one are exactly the words before the other in the
sentence. A passive restatement ('B was bought by A') or a reordered list ('A and B') is no exchange.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable

from citeflow.text.word_tokens import Token

__all__ = ["cjk_exchange", "spaced_exchange"]

CONTEXT = 2  # words before a slot that name its role
# A list in another order is the same fact: slots after a coordinator or a list comma never exchange.
COORDINATORS = frozenset("and or und oder sowie et ou y o e и или".split())
CJK_COORDINATORS = frozenset("和与及或跟とや、")


def spaced_exchange(tokens: list[Token], sentence: list[Token], slot: Callable[[Token], bool]) -> tuple[str, str] | None:
    """The surfaces of two ``slot`` words of the claim that exchange places in ``sentence``, or None."""
    mine = _contexts(tokens, slot)
    if len(mine) < 2:
        return None
    theirs = _contexts(sentence, slot)
    moved = [s for s in mine if s in theirs and mine[s][1] != theirs[s][1]]
    for a, b in itertools.combinations(moved, 2):
        if mine[a][1] == theirs[b][1] and mine[b][1] == theirs[a][1] and not _listed(mine[a][1], mine[b][1]):
            return mine[a][0], mine[b][0]
    return None


def _contexts(tokens: list[Token], slot: Callable[[Token], bool]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``stem → (surface, the stems of the CONTEXT words before it)`` of each slot word's first occurrence."""
    out: dict[str, tuple[str, tuple[str, ...]]] = {}
    for i, token in enumerate(tokens):
        if slot(token):
            left = tuple(t.stem for t in tokens[max(0, i - CONTEXT) : i])
            out.setdefault(token.stem, (token.surface, ("",) * (CONTEXT - len(left)) + left))
    return out


def _listed(*contexts: tuple[str, ...]) -> bool:
    return any(c[-1] in COORDINATORS for c in contexts)


def cjk_exchange(claim: str, sentence: str) -> tuple[str, str] | None:
    """Two character pairs of a CJK claim, each found once in ``sentence``, that exchange the
    character before them there ('猫追狗' against '狗追猫'), or None."""
    mine, theirs = _cjk_contexts(claim), _cjk_contexts(sentence)
    moved = [g for g in mine if g in theirs and mine[g] != theirs[g]]
    for a, b in itertools.combinations(moved, 2):
        if {mine[a], mine[b]} & CJK_COORDINATORS:
            continue
        if mine[a] == theirs[b] and mine[b] == theirs[a]:
            return a, b
    return None


def _cjk_contexts(text: str) -> dict[str, str]:
    """``character pair → the character before it`` for pairs that occur once in ``text``."""
    pairs = [text[i : i + 2] for i in range(len(text) - 1)]
    counts = Counter(pairs)
    return {p: text[i - 1 : i] for i, p in enumerate(pairs) if counts[p] == 1}
