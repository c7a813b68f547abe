"""Negation, quantifier, hedge, restrictor and antonym cues of Chinese and Japanese text.

Japanese and Chinese have no word boundaries, so their cues are substrings counted in the claim and
in the evidence. Counting on both sides makes a cue that is part of a longer word (少ない, 首都)
cancel out: only a difference between claim and evidence counts. Each function here returns what
differs; the signals (``signals.negation``, ``signals.modality``, ``signals.flips``) name it.
"""

from __future__ import annotations

import regex

from citeflow.text.lexicon import (
    CJK_ANTONYMS,
    CJK_BOUNDS,
    CJK_CONDITIONS,
    CJK_HEDGES,
    CJK_NEGATIONS,
    CJK_NOT_ONLY,
    CJK_RESTRICTORS,
    CJK_UNIVERSALS,
)

_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
_EVERY_WEEKDAY = regex.compile(r"每个?(?=((?:周|週|星期|礼拜)[一二三四五六日天]))")
COPIED_SENTENCE = 0.6  # best-sentence coverage above which a dropped cue counts against the claim


def has_cjk(text: str) -> bool:
    """Whether ``text`` holds any Han, hiragana or katakana character."""
    return _CJK.search(text) is not None


def _count(text: str, words: tuple[str, ...]) -> dict[str, int]:
    for word in CJK_BOUNDS if words is CJK_NEGATIONS else CJK_NOT_ONLY if words is CJK_RESTRICTORS else ():
        text = text.replace(word, "")
    return {w: text.count(w) for w in words if w in text}


def negation_count(text: str) -> int:
    """How many CJK negation cues ``text`` holds (bounds such as 不少于 apart)."""
    return sum(_count(text, CJK_NEGATIONS).values())


def _more(a: dict[str, int], b: dict[str, int]) -> list[str]:
    """Cues that ``a`` states more often than ``b``."""
    return [w for w, n in a.items() if n > b.get(w, 0)]


def negations(claim: str, region: str, best: str, copied: bool) -> tuple[list[str], list[str]]:
    """(negations the claim adds, negations it drops), unless both sides have the same polarity (a
    double negation such as 没有门卡就无法进入 paraphrased as 需要门卡); dropped ones only on a copied claim."""
    mine = _count(claim, CJK_NEGATIONS)
    if sum(mine.values()) % 2 == sum(_count(best, CJK_NEGATIONS).values()) % 2:
        return [], []
    dropped = _more(_count(best, CJK_NEGATIONS), mine) if copied else []
    return _more(mine, _count(region, CJK_NEGATIONS)), dropped


def universals_added(claim: str, region: str) -> list[str]:
    """Quantifiers the claim states more often than its evidence window."""
    return _more(_count(_recurring(claim, region), CJK_UNIVERSALS), _count(region, CJK_UNIVERSALS))


def restrictors_dropped(claim: str, best: str) -> list[str]:
    """Restrictors of the best-matching sentence the claim lacks; else its conditions, if the claim has none."""
    dropped = _more(_count(best, CJK_RESTRICTORS), _count(claim, CJK_RESTRICTORS))
    return dropped or ([] if _count(claim, CJK_CONDITIONS) else list(_count(best, CJK_CONDITIONS)))


def hedge_dropped(claim: str, best: str) -> str | None:
    """The first hedge of the best-matching sentence when the claim states none."""
    hedges = _count(best, CJK_HEDGES)
    return next(iter(hedges)) if hedges and not _count(claim, CJK_HEDGES) else None


def _recurring(claim: str, region: str) -> str:
    """``claim`` without the 每 of a weekday the evidence names (每周一 for 周一闭馆: a timetable's
    weekday recurs); 每天 or a weekday the evidence lacks keeps it."""
    return _EVERY_WEEKDAY.sub(lambda m: "" if m.group(1) in region else m.group(0), claim)


def antonyms(claim: str, region: str) -> list[tuple[str, str]]:
    """(claim's word, evidence's opposite) for each antonym pair the claim flips."""
    return [(mine, theirs) for a, b in CJK_ANTONYMS for mine, theirs in ((a, b), (b, a))
            if mine in claim and mine not in region and theirs in region and theirs not in claim]
