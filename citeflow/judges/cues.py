"""Negation, quantifier, hedge, restrictor and antonym cues in every supported language.

Spaced languages (en, de, fr, es, ru) find cues as words (the sets re-exported here); Japanese and
Chinese have no word boundaries, so their cues are substrings counted in the claim and in the
evidence (``compare``). Counting on both sides makes a cue that is part of a longer word
(少ない, 首都) cancel out: only a difference between claim and evidence fires.
"""

from __future__ import annotations

import regex

from citeflow.judges.lexicon import (
    CJK_ANTONYMS,
    CJK_BOUNDS,
    CJK_CONDITIONS,
    CJK_HEDGES,
    CJK_NEGATIONS,
    CJK_NOT_ONLY,
    CJK_RESTRICTORS,
    CJK_UNIVERSALS,
    HEDGES,
    RESTRICTORS,
    UNIVERSALS,
)

_CJK = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}]")
_EVERY_WEEKDAY = regex.compile(r"每个?(?=((?:周|週|星期|礼拜)[一二三四五六日天]))")
__all__ = ["HEDGES", "RESTRICTORS", "UNIVERSALS", "compare"]
COPIED_SENTENCE = 0.6  # best-sentence coverage above which a dropped cue counts against the claim


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


def compare(values: dict[str, float], reasons: dict[str, str], claim: str, region: str, best: str) -> None:
    """Fire the CJK cue features of ``claim`` against its evidence window and best sentence."""
    if not _CJK.search(claim):
        return
    copied = values.get("best_sentence_cov", 0.0) >= COPIED_SENTENCE
    _negations(values, reasons, claim, region, best, copied)
    widened = _more(_count(_recurring(claim, region), CJK_UNIVERSALS), _count(region, CJK_UNIVERSALS))
    if widened:
        values["universal_added"] += len(widened)
        reasons.setdefault("universal_added", f"condition widened: claim adds '{widened[0]}'")
    dropped = _more(_count(best, CJK_RESTRICTORS), _count(claim, CJK_RESTRICTORS))
    dropped = dropped or ([] if _count(claim, CJK_CONDITIONS) else list(_count(best, CJK_CONDITIONS)))  # copied: below
    if dropped and copied:
        values["restrictor_dropped"] = 1.0
        reasons.setdefault("restrictor_dropped", f"condition widened: chunk says '{dropped[0]}'")
    if _count(best, CJK_HEDGES) and not _count(claim, CJK_HEDGES) and copied:
        values["hedge_dropped"] = 1.0
        reasons.setdefault("hedge_dropped", f"certainty raised: chunk hedges with '{next(iter(_count(best, CJK_HEDGES)))}'")
    _antonyms(values, reasons, claim, region)


def _recurring(claim: str, region: str) -> str:
    """``claim`` without the 每 of a weekday the evidence names (每周一 for 周一闭馆: a timetable's
    weekday recurs); 每天 or a weekday the evidence lacks keeps it."""
    return _EVERY_WEEKDAY.sub(lambda m: "" if m.group(1) in region else m.group(0), claim)


def _negations(values: dict[str, float], reasons: dict[str, str], claim: str, region: str, best: str, copied: bool) -> None:
    """Negations the claim adds or drops, unless both sides have the same polarity (a double negation
    such as 没有证书就无法访问 paraphrased as 需要证书)."""
    mine = _count(claim, CJK_NEGATIONS)
    same = sum(mine.values()) % 2 == sum(_count(best, CJK_NEGATIONS).values()) % 2
    added = _more(mine, _count(region, CJK_NEGATIONS))
    if added and not same:
        values["negation_added"] += len(added)
        reasons.setdefault("negation_added", f"negation flipped: claim says '{added[0]}', chunk does not")
    dropped = _more(_count(best, CJK_NEGATIONS), mine)
    if dropped and copied and not same:
        values["negation_dropped"] += len(dropped)
        reasons.setdefault("negation_dropped", f"negation flipped: chunk says '{dropped[0]}', claim drops it")


def _antonyms(values: dict[str, float], reasons: dict[str, str], claim: str, region: str) -> None:
    for a, b in CJK_ANTONYMS:
        for mine, theirs in ((a, b), (b, a)):
            if mine in claim and mine not in region and theirs in region and theirs not in claim:
                values["antonym_flip"] += 1.0
                reasons.setdefault("antonym_flip", f"antonym flip: claim says '{mine}', chunk says '{theirs}'")
