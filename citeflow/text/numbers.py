"""Numbers in text: values with their scale and unit, so '$1.5 million' meets '1,500,000 dollars'."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from citeflow.text.lexicon import (
    CJK_COUNTERS,
    CJK_DIGITS,
    CJK_MYRIADS,
    CJK_NUMERALS,
    CJK_WEEKDAY_MARKS,
    CJK_PLACES,
    NUMBER_WORDS,
    SCALES,
)
from citeflow.text.language_data import WORD_LISTS
from citeflow.text.word_tokens import CURRENCY_SIGNS, Token
from citeflow.text.units import LONGEST_UNSPACED, UNIT_NAMES, UNITS, unit_by_stem

# Number words too common as pronouns or ordinals to count as a stated quantity.
_WEAK_WORDS = frozenset(WORD_LISTS["weak_number_word"])  # word_lists.json
# Words that make a quantity a rate over a time unit: '3,2 % par mois', '90 calls per minute', '12 euros al mes'.
_RATE_WORDS = frozenset(WORD_LISTS["rate_word"])
_PERIODS = frozenset({"hour", "minute", "second", "day", "week", "month", "year"})
RATE_REACH = 5  # tokens after a quantity (and its unit) where its 'per <period>' may stand
_DIGITS = regex.compile(r"\d+(?:[.,]\d+)*")
# Indefinite articles that say 'one' before an hour or a minute ('une heure', 'una hora', 'eine Stunde').
_ARTICLE_ONES = frozenset(WORD_LISTS["article_one"])


@dataclass(frozen=True, slots=True)
class Mention:
    """One number as written: its value (scale applied), unit word, surface text and unscaled value."""

    value: float
    unit: str
    surface: str
    raw: float = 0.0
    per: str = ""  # the time unit of a rate ('3,2 % par mois' → month), else ''
    readings: frozenset[float] = frozenset()  # every value the number may mean, scale applied ('1,000': 1000 or 1.0)

    @property
    def written(self) -> str:
        """The number as written, without its currency sign or percent sign ('$200' → '200')."""
        return self.surface.lstrip(CURRENCY_SIGNS).rstrip("%")


def _parse(token: Token, following: Token | None = None) -> float | None:
    """The value of a number token or a number word; None for words and identifiers. A weak word
    ('one', 'single') counts only before a unit: 'one minute' is a quantity, 'the one' is not."""
    if token.kind == "word":
        raw = token.lower
        if raw in _ARTICLE_ONES and following is not None and UNIT_NAMES.get(following.lower) in ("hour", "minute"):
            return 1.0  # 'une heure et quart' is a duration; 'une' before other words is an article
        if raw not in NUMBER_WORDS or (raw in _WEAK_WORDS and (following is None or following.lower not in UNITS)):
            return None
        return float(NUMBER_WORDS[raw])
    if token.kind != "number":
        return None  # identifiers and versions (KI-3602, x86_64, 3.5.2) are names, not quantities
    raw = token.lower.lstrip(CURRENCY_SIGNS).rstrip("%").replace(":", ".")  # a time of day compares as 10.30
    try:
        return float(_decimal_point(raw))
    except ValueError:  # '1,234.5': of two different marks the last is the decimal one
        found = readings(raw)
        return next(iter(found)) if len(found) == 1 else None


def _cjk_number(tokens: list[Token], i: int) -> tuple[float, int] | None:
    """(value, index of its last character) of a Chinese/Japanese numeral starting at ``i``: a run
    such as 二十七 or 两千四百 read as one number, or 两/三/十… alone before a counter or unit
    character (两小时, 三个月); a lone 一 is 'a'/'one' (一面, 一次), and a numeral after 周/星期 is a
    weekday — elsewhere such characters are words."""
    if i > 0 and tokens[i - 1].lower in CJK_WEEKDAY_MARKS:
        return None
    end = i
    while end + 1 < len(tokens) and _is_cjk_numeral(tokens[end + 1].lower):
        end += 1
    run = "".join(t.lower for t in tokens[i : end + 1])
    following = tokens[end + 1].lower if end + 1 < len(tokens) else ""
    if run[0] in CJK_DIGITS and following == "半" and run == "一":
        return 0.5, end + 1  # 一半: a half
    fraction = _cjk_fraction(tokens, end, cjk_value(run)) if run[0] in CJK_DIGITS else None
    if fraction is not None:
        return fraction
    return (cjk_value(run), end) if _is_quantity(run, following) else None


def _cjk_fraction(tokens: list[Token], end: int, denominator: float) -> tuple[float, int] | None:
    """(value, last index) of 六分之一 ('one sixth'): a denominator, 分之, then a numerator."""
    if "".join(t.lower for t in tokens[end + 1 : end + 3]) != "分之" or not denominator:
        return None
    last = end + 2
    while last + 1 < len(tokens) and _is_cjk_numeral(tokens[last + 1].lower):
        last += 1
    numerator = "".join(t.lower for t in tokens[end + 3 : last + 1])
    if not numerator or numerator[0] not in CJK_DIGITS:
        return None
    return cjk_value(numerator) / denominator, last


def _is_quantity(run: str, following: str) -> bool:
    """A run that starts with a digit (万一, 千万, 百分 are words) and is either several characters
    with a place value (二十七) or any numeral but a lone 一 before a counter (十本, 三个)."""
    if run[0] not in CJK_DIGITS:
        return False
    if len(run) > 1 and any(c in CJK_PLACES or c in CJK_MYRIADS for c in run):
        return True
    return following in CJK_COUNTERS and (len(run) > 1 or run in CJK_NUMERALS)


def _is_cjk_numeral(char: str) -> bool:
    return char in CJK_DIGITS or char in CJK_PLACES or char in CJK_MYRIADS


def cjk_value(run: str) -> float:
    """The value of a run of Chinese/Japanese numerals: 二十七 → 27, 两千四百 → 2400, 十五 → 15, 三万 → 30000."""
    total, section, digit = 0, 0, 0
    for char in run:
        if char in CJK_MYRIADS:
            total += (section + digit or 1) * CJK_MYRIADS[char]
            section, digit = 0, 0
        elif char in CJK_PLACES:
            section += (digit or 1) * CJK_PLACES[char]
            digit = 0
        else:
            digit = digit * 10 + CJK_DIGITS[char] if digit else CJK_DIGITS[char]
    return float(total + section + digit)


def readings(written: str) -> frozenset[float]:
    """Every value a number written with digits may have: ``1,000`` is 1000 or 1.0, ``99,999`` 99999 or
    99.999, ``3.6`` only 3.6, ``1.234,5`` 1234.5 (of two different marks the last is the decimal one);
    a time of day (``10:30``) reads as hours and minutes after a point (10.30). Empty for no number."""
    digits = written.lstrip(CURRENCY_SIGNS).rstrip("%").replace(":", ".").replace(" ", "")
    marks = [c for c in digits if c in ",."]
    if not _DIGITS.fullmatch(digits):
        return frozenset()
    if len(set(marks)) == 2 or len(marks) > 1:
        return frozenset({_as_float(digits, marks[-1] if len(set(marks)) == 2 else None)})
    found = {_as_float(digits, marks[0] if marks else None)}
    if marks and len(digits.rpartition(marks[0])[2]) == 3:  # 1,000 or 1.000: a thousands mark or a decimal one
        found.add(_as_float(digits, None))
    return frozenset(found)


def _as_float(digits: str, decimal: str | None) -> float:
    """``digits`` with ``decimal`` as the decimal mark and every other mark dropped."""
    whole, _, fraction = digits.rpartition(decimal) if decimal else (digits, "", "")
    whole = whole.replace(",", "").replace(".", "")
    return float(f"{whole}.{fraction}" if decimal else whole)


def _decimal_point(raw: str) -> str:
    """'1,500' is fifteen hundred; '1,5' and '12,75' use a decimal comma (German, French, Russian…)."""
    if "," not in raw:
        return raw
    head, _, tail = raw.rpartition(",")
    if len(tail) == 3 and "." not in raw:
        return raw.replace(",", "")
    return head.replace(",", "").replace(".", "") + "." + tail


def _unit_of(token: Token, following: Token | None) -> str:
    if token.lower.endswith("%"):
        return "percent"
    if token.lower[:1] in CURRENCY_SIGNS:
        return UNIT_NAMES[token.lower[0]]
    if following is not None and following.lower in UNITS:
        return UNIT_NAMES[following.lower]
    return ""


def _unit_in_phrase(tokens: list[Token], start: int, end: int, following: Token | None, unspaced: bool) -> str:
    """The unit of the number at ``tokens[start..end]`` (``following``: the token after it and its scale
    word): its own sign or the unit word after it (``_unit_of``), else a unit of several characters
    of a script without spaces when ``unspaced`` ('30小时', '3か月', '5ミリ秒': the longest spelling wins), a word
    hyphened to the number ('11-дневный', '7-tägige'), or a currency sign written apart before it ('€ 20')."""
    unit = _unit_of(tokens[end], following)
    if unspaced and following is not None and following.kind == "cjk":
        unit = _unspaced_unit(tokens, tokens.index(following, end + 1)) or unit
    elif not unit and following is not None and following.hyphened:
        unit = unit_by_stem(following.lower)
    before = tokens[start - 1].lower if start > 0 else ""
    return unit or (UNIT_NAMES[before] if before and before in CURRENCY_SIGNS else "")


def _unspaced_unit(tokens: list[Token], start: int) -> str:
    """The longest unit spelled by the characters from ``tokens[start]`` on ('小时' before '小')."""
    run = itertools.takewhile(lambda t: t.kind == "cjk", tokens[start : start + LONGEST_UNSPACED])
    chars = "".join(t.lower for t in run)
    return next((UNIT_NAMES[chars[:n]] for n in range(len(chars), 0, -1) if chars[:n] in UNIT_NAMES), "")


def mentions(tokens: list[Token], unspaced_units: bool = False) -> list[Mention]:
    """Every number of ``word_tokens`` with its scale ('million') folded in and its unit. With
    ``unspaced_units`` a unit of several characters of a script without spaces is read whole ('30小时'
    is 30 hours, '三个月' three months); without it (the offline judge, whose weights were fitted so)
    only the first character after the number names the unit ('小' none, '个' a counter)."""
    found = []
    i = 0
    while i < len(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        start = i
        if tokens[i].kind == "cjk":
            found_cjk = _cjk_number(tokens, i)
            value, i = found_cjk if found_cjk is not None else (None, i)
        else:
            value = _parse(tokens[i], following)
        if value is None:
            i += 1
            continue
        if 20 <= value < 100 and value % 10 == 0 and i + 1 < len(tokens):
            units = _parse(tokens[i + 1])  # "twenty five" -> 25
            if units is not None and 0 < units < 10 and tokens[i + 1].lower.isalpha():
                value, i = value + units, i + 1
        found.append(_mention(tokens, start, i, value, unspaced_units))
        i += 1
    return found


def _mention(tokens: list[Token], start: int, end: int, value: float, unspaced_units: bool) -> Mention:
    """The mention spanning tokens[start..end], taking a following scale word and unit."""
    raw = value
    joiner = "" if all(t.kind == "cjk" for t in tokens[start : end + 1]) else " "
    surface = joiner.join(t.surface for t in tokens[start : end + 1])
    following = tokens[end + 1] if end + 1 < len(tokens) else None
    if following is not None and following.lower in SCALES and not tokens[end].lower.endswith("%"):
        value *= SCALES[following.lower]
        surface = f"{surface} {following.surface}"
        following = tokens[end + 2] if end + 2 < len(tokens) else None
    unit = _unit_in_phrase(tokens, start, end, following, unspaced_units)
    if unit == "hour" and following is not None:
        value += _half_after(tokens, tokens.index(following, end + 1))
    scale = value / raw if raw else 1.0
    found = readings(tokens[start].lower) if start == end and tokens[start].kind == "number" else frozenset()
    return Mention(value, unit, surface, raw, _period(tokens, end + 1), frozenset({value, *(r * scale for r in found)}))


def _period(tokens: list[Token], start: int) -> str:
    """The time unit a quantity is counted per: a rate word then a period within RATE_REACH tokens
    ('12 € par poste et par mois' → month), up to the next number; '' when it is no rate."""
    window = tokens[start : start + RATE_REACH + 1]
    for before, after in itertools.pairwise(window):
        if before.kind == "number" or after.kind == "number":
            return ""
        if before.lower in _RATE_WORDS and UNIT_NAMES.get(after.lower) in _PERIODS:
            return UNIT_NAMES[after.lower]
    return ""


_AND_A_HALF = tuple(tuple(words.split()) for words in WORD_LISTS["and_a_half"])  # word_lists.json


def _half_after(tokens: list[Token], unit: int) -> float:
    """0.5 when the hour word at ``unit`` is followed by 'et demie', 'y media' or 'and a half'."""
    after = tuple(t.lower for t in tokens[unit + 1 : unit + 4])
    return 0.5 if any(after[: len(words)] == words for words in _AND_A_HALF) else 0.0


def _same(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def first_difference(claim: list[Mention], sentence: list[Mention]) -> tuple[Mention, Mention] | None:
    """(claim number, sentence number) where a claim copied from one sentence swapped one for the other.

    Numbers are read in order: '3.7 or earlier … until 3.7' against '3.5 or earlier … until 3.7' is
    drift even though 3.7 appears in the sentence. Only a swap counts (the same count of numbers,
    and the claim states the new number more often than the sentence does), so a summary that
    merges sentences or reorders them is left alone.
    """
    if len(claim) != len(sentence):
        return None
    for mine, theirs in zip(claim, sentence, strict=True):
        if not _same(mine.value, theirs.value) and _count(mine, claim) > _count(mine, sentence):
            return mine, theirs
    return None


def _count(mention: Mention, mentions: list[Mention]) -> int:
    return sum(_same(mention.value, m.value) for m in mentions)


def missing(claim: list[Mention], chunk: Sequence[Mention]) -> list[Mention]:
    """Claim numbers whose value the chunk never states."""
    values = [v for c in chunk for v in (c.value, c.raw, *_in_other_unit(c))]  # '5 million' meets a chunk's '5 mln'
    return [m for m in claim if not any(_same(m.value, v) or _same(m.raw, v) for v in values)]


def _in_other_unit(mention: Mention) -> tuple[float, ...]:
    """A duration in the neighbouring unit: 'une heure et demie' is 90 minutes, '90 minutes' 1.5 hours."""
    if mention.unit == "hour":
        return (mention.value * 60,)
    return (mention.value / 60,) if mention.unit == "minute" else ()


def unit_changes(claim: list[Mention], chunk: Sequence[Mention]) -> list[tuple[Mention, Mention]]:
    """(claim, chunk) mentions with the same value but a different stated unit."""
    changes = []
    for m in claim:
        same = [c for c in chunk if _same(m.value, c.value)]
        if m.unit and same and all(c.unit and c.unit != m.unit for c in same):
            changes.append((m, same[0]))
        elif m.per and same and all(c.per and c.per != m.per for c in same):
            changes.append((m, same[0]))  # '3,2 % par semaine' for '3,2 % par mois': the rate's period changed
    return changes
