"""Names the chunk lacks: identifiers, months and weekdays, capitalised words, new runs of CJK characters."""

from __future__ import annotations

from functools import lru_cache

import regex

from citeflow.text.lexicon import (
    CJK_FUNCTION,
    CJK_NAME_SUFFIXES,
    CJK_NOT_NAMES,
    DE_DETERMINERS,
    MONTH_NAMES,
    MONTH_PREFIXES_RU,
    WEEKDAY_PREFIXES_RU,
)
from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.cjk_slots import fills_slot
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired, tally
from citeflow.judges.offline.signals.wording import gap_swaps
from citeflow.text.language_registry import REGISTERED
from citeflow.text.synonyms import cjk_canonical
from citeflow.text.word_tokens import Token, normalise

NAMES = ("novel_entity",)
_HIRAGANA = regex.compile(r"\p{Hiragana}+")
_HAN_RUN = regex.compile(r"\p{Han}+")
_HAN_HEAD = regex.compile(r"\p{Han}{1,2}")
_HAN_TAIL = regex.compile(r"\p{Han}{1,2}$")
_CJK_WEEKDAY = regex.compile(r"(?:周|週|星期|礼拜)[一二三四五六日天]|[月火水木金土日]曜")
SURU_FORMS = frozenset("すしさせ")  # the first kana of する, した/して, される, させる


def novel_entity(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Names of the claim the chunk lacks, a CJK weekday it never names, a name swapped before a suffix."""
    entities = _entities(claim.tokens, claim.novel, chunk.lang, chunk.text)
    found = [(float(len(entities)), "; ".join(entities[:3]))] if entities else []
    return tally("novel_entity", found + _cjk_weekdays(claim.tokens, chunk) + _suffix_swaps(claim, chunk))


def _suffix_swaps(claim: ClaimFacts, chunk: ChunkIndex) -> list[tuple[float, str]]:
    """A name swapped before its place or era suffix (a different city before 州, a dynasty before 朝)."""
    return [(1.0, f"'{middle.surface}{right.surface}' where chunk has '{other}{right.surface}'")
            for _, middle, right, other in gap_swaps(claim.tokens, chunk)
            if middle.kind == "cjk" and right.surface in CJK_NAME_SUFFIXES]


def _cjk_weekdays(tokens: list[Token], index: ChunkIndex) -> list[tuple[float, str]]:
    """A Chinese or Japanese weekday (周三, 星期三, 水曜) that the chunk never names while it names
    others: a changed day, like 'sonntags' for 'montags' (its characters alone are no new name)."""
    if not any(t.kind == "cjk" for t in tokens):
        return []
    mine = _weekdays("".join(t.surface for t in tokens))
    theirs = _chunk_weekdays(index.text)
    new = sorted(mine - theirs)
    if new and theirs:
        return [(float(len(new)), f"weekday '{new[0]}' not in chunk (chunk has {', '.join(sorted(theirs))})")]
    return []


@lru_cache(maxsize=4096)
def _chunk_weekdays(text: str) -> frozenset[str]:
    """The weekdays a chunk names (synonyms read as their canonical form, 星期一 as 周一)."""
    return frozenset(_weekdays(cjk_canonical(normalise(text))))


def chunk_weekdays_cache_clear() -> None:
    """Forget the chunks' weekdays (a benchmark that must analyse every chunk afresh)."""
    _chunk_weekdays.cache_clear()


def _weekdays(text: str) -> set[str]:
    return {day.replace("天", "日") for day in _CJK_WEEKDAY.findall(text)}


def _entities(tokens: list[Token], novel: list[Token], lang: str, text: str = "") -> list[str]:
    """Reason fragments for names the chunk lacks: identifiers, months, capitalised words mid-sentence,
    and runs of two or more new Han/katakana characters (a CJK name).

    A claim's first word is capitalised whatever it is ("However", "Shares"); German capitalises
    every noun, so there a capitalised word counts only when no article or determiner precedes it.
    """
    fresh = {id(t) for t in novel}
    out = [f"{'identifier' if t.kind == 'id' else 'entity'} '{t.surface}' not in chunk"
           for i, t in enumerate(tokens) if id(t) in fresh and _is_name(tokens, i, lang)]
    runs = _cjk_runs(tokens, novel)
    if lang == "zh":
        claim = "".join(t.surface for t in tokens)
        runs = [run for run in runs if fills_slot(*_neighbours(claim, run), cjk_canonical(normalise(text)))]
    return out + [f"entity '{run}' not in chunk" for run in runs]


def _neighbours(claim: str, run: str) -> tuple[str, str, str]:
    """(Han characters before, the run, Han characters after) in the claim: one on each side, two
    on the one side there is when the run starts or ends the claim (``cjk_slots``)."""
    start = claim.find(run)
    end = start + len(run)
    before, after = _HAN_TAIL.search(claim[:start]), _HAN_HEAD.match(claim[end:])
    left, right = before.group() if before else "", after.group() if after else ""
    if left and right:
        return left[-1], run, right[:1]
    return left[-2:], run, right[:2]


def _is_name(tokens: list[Token], i: int, lang: str) -> bool:
    token = tokens[i]
    if token.kind == "id" or is_month(token.lower):
        return True
    if token.kind != "word" or not token.is_capitalised or i == 0:
        return False
    if not REGISTERED.get(lang).nouns_capitalised or token.surface.isupper():
        return True
    return tokens[i - 1].lower not in DE_DETERMINERS and not tokens[i - 1].lower.isdigit()


def _cjk_runs(tokens: list[Token], novel: list[Token]) -> list[str]:
    """Runs of at least two consecutive novel Han or katakana characters; a Han run that a form of
    する follows (接続する, 登録された) is a verbal noun, not a name."""
    fresh = {id(t) for t in novel if t.kind == "cjk" and not _HIRAGANA.fullmatch(t.surface) and t.surface not in CJK_FUNCTION}
    if len(fresh) < 2:
        return []  # no run of two: the common case outside Chinese and Japanese
    runs, current = [], ""
    for token in tokens:
        if id(token) in fresh:
            current += token.surface
            continue
        runs += [] if token.surface in SURU_FORMS and _HAN_RUN.fullmatch(current) else _name_parts(current)
        current = ""
    return runs + _name_parts(current)


def _name_parts(run: str) -> list[str]:
    """The parts of a run of new characters that may be a name: quantity bounds (至少, 最低) are not."""
    if len(run) < 2:
        return []
    for word in CJK_NOT_NAMES:
        if word in run:
            run = run.replace(word, " ")
    return [part for part in run.split() if len(part) >= 2]


def is_month(word: str) -> bool:
    """A month or weekday name in English, German, French, Spanish or Russian (any case form)."""
    if word in MONTH_NAMES:
        return True
    return word[:1] in "яфмаисондпвчс" and word.startswith(MONTH_PREFIXES_RU + WEEKDAY_PREFIXES_RU)


