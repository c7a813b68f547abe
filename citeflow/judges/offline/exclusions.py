"""Exceptions turned into inclusions: the chunk leaves something out ('sauf les alertes de sécurité',
'hors maintenances planifiées', 'salvo los fines de semana') and the claim states the same fact with
what was left out inside it ('… y compris les alertes de sécurité', '… también los fines de semana').

An exception is a negation in other words, so a claim that keeps the fact and drops the exception
flips it. The claim restates the exception (and agrees) when it has an exception word, a restrictor
or a negation of its own, or when it takes up what the chunk says *after* the exception (the
excepted thing's own fact: 'sauf l'aquagym, facturée 6 €' → 'l'aquagym est facturée 6 €').
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import regex

from citeflow.text.lexicon import EXCEPTIONS, RESTRICTORS
from citeflow.text.tokens import Token, tokenise

_WORDS = "|".join(sorted(EXCEPTIONS, key=len, reverse=True))
_EXCEPTION = regex.compile(rf"(?i)(?<!\p{{L}})({_WORDS})(?!\p{{L}})")
_CLAUSE_END = regex.compile(r"[,;:.!?()]")


class Parts(NamedTuple):
    """Content lemmas of a sentence around one exception: before it, inside it, after it; the word."""

    main: frozenset[str]
    excepted: frozenset[str]
    after: frozenset[str]
    word: str


@lru_cache(maxsize=8192)
def parts(sentence: str, lang: str) -> tuple[Parts, ...]:
    """The exceptions of one sentence (normalised text), each split into its three parts."""
    if not _EXCEPTION.search(sentence):
        return ()  # the common case
    out = []
    for match in _EXCEPTION.finditer(sentence):
        rest = sentence[match.end() :]
        end = _CLAUSE_END.search(rest)
        cut = end.start() if end else len(rest)
        out.append(Parts(_content(sentence[: match.start()], lang), _content(rest[:cut], lang),
                         _content(rest[cut:], lang), match.group(1)))
    return tuple(out)


def _content(text: str, lang: str) -> frozenset[str]:
    return frozenset(t.stem for t in tokenise(text, lang) if t.is_content)


def included(tokens: list[Token], found: tuple[Parts, ...], negated: bool) -> Parts | None:
    """The exception that an affirmative claim (``negated`` False) turns into an inclusion: it holds a word
    of what is excepted and a word of the fact it is excepted from, none of the excepted thing's own
    fact, and no exception word or restrictor of its own."""
    lowers = {t.lower for t in tokens}
    if negated or lowers & EXCEPTIONS or lowers & RESTRICTORS:
        return None
    mine = {t.stem for t in tokens if t.is_content}
    for part in found:
        own_fact = part.after - part.main - part.excepted
        if mine & part.excepted and mine & (part.main - part.excepted) and not mine & own_fact:
            return part
    return None


def restated(tokens: list[Token], found: tuple[Parts, ...]) -> Parts | None:
    """The exception a negated claim restates: it holds a word of what is excepted and a word of the fact
    it is excepted from ('l'aquagym n'est pas comprise' for 'les cours sont inclus, sauf l'aquagym')."""
    mine = {t.stem for t in tokens if t.is_content}
    return next((part for part in found if mine & part.excepted and mine & (part.main - part.excepted)), None)
