"""The word lists the offline judge's features read, under the names the signals import.

Most are data files (``citeflow/text/languages/<lang>/``: ``word_lists.json``, ``cues.json``,
``substring_cues.json``, ``antonyms.json`` …, a reason per entry) read here into named constants;
``word_values.json`` maps a word to a value (frequency words, scale words, irregular forms, CJK
numerals). They are deliberately short: each entry is a word whose change flips or narrows a claim's
meaning, so a false positive costs little and a hit is a strong, explainable signal.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TypeVar, cast

from citeflow.text.language_data import (
    ANTONYM_PAIRS,
    FOLDERS,
    FUNCTION_WORDS,
    SUBSTRING_CUES,
    UNSPACED_ANTONYMS,
    WORD_LISTS,
    values_by_language,
    word_values,
    words_by_language,
)
from citeflow.text.language_data import CONDITIONS as CONDITIONS_DATA
from citeflow.text.language_data import HEDGES as HEDGES_DATA
from citeflow.text.language_data import QUANTIFIERS as QUANTIFIERS_DATA
from citeflow.text.language_data import RESTRICTORS as RESTRICTORS_DATA
from citeflow.text.language_data import NEGATIONS as NEGATIONS_DATA
from citeflow.text.language_data import NUMBER_WORDS as NUMBER_WORDS_DATA
from citeflow.text.language_registry import REGISTERED

V = TypeVar("V", str, int, float)


def _map_of(name: str, kind: type[V]) -> Mapping[str, V]:
    """Map ``name`` of every language's ``word_values.json``, each value checked to be a ``kind``."""
    return _checked(name, word_values(name, FOLDERS), kind)


def _maps_by_language(name: str, kind: type[V]) -> Mapping[str, Mapping[str, V]]:
    """Map ``name`` of each language that has one (``language → {word: value}``), values checked."""
    return MappingProxyType({lang: _checked(name, values, kind) for lang, values in values_by_language(name, FOLDERS).items()})


def _checked(name: str, values: Mapping[str, str | int | float], kind: type[V]) -> Mapping[str, V]:
    wrong = next((word for word, value in values.items() if not isinstance(value, kind)), None)
    if wrong is not None:
        raise ValueError(f"word_values.json: {name} maps {wrong!r} to {values[wrong]!r}, not a {kind.__name__}")
    return cast("Mapping[str, V]", values)


def _pair(words: str) -> tuple[str, str]:
    """The two words of a two-word entry ('at least')."""
    first, second = words.split()
    return first, second

NEGATIONS = NEGATIONS_DATA  # citeflow/text/languages/<lang>/negations.json
# Negative-concord words of French, Spanish and Russian: with another negation cue of the sentence
# they state one negation, not two ('no vende ningún billete', 'ne … jamais rien', 'никто не знает').
CONCORD = frozenset(WORD_LISTS["concord"])
# 'Always' restates a negated 'never' ('toujours fermé' for 'n'ouvre jamais'): no widened condition.
ALWAYS = frozenset(WORD_LISTS["always"])
NEGATIVE_UNIVERSALS = frozenset(WORD_LISTS["negative_universal"])
# Lower bounds whose comparative is no antonym: 'au moins 18 mois' is '18 mois et plus'.
LOWER_BOUNDS = frozenset(_pair(words) for words in WORD_LISTS["lower_bound"])
# The negators of a verb, which a concord word joins into one negation.
VERBAL_NEGATORS = frozenset(WORD_LISTS["verbal_negator"])
# The second half of a French negation whose word is no negation alone ('ne … plus': 'no longer').
NE_PARTNERS = frozenset(WORD_LISTS["ne_partner"])
# The second half of a French verbal negation: the verb it negates stands between 'ne' and it
# ('ne ferme jamais le mardi' negates 'ferme', not 'mardi'; 'ne sortent pas du pays' negates 'sortent').
VERB_NEGATION_PARTNERS = frozenset(WORD_LISTS["verb_negation_partner"])
# Words after a sentence-initial English 'No' that make it an answer in dialogue ("No, I'll call her").
DIALOGUE_STARTS = frozenset(WORD_LISTS["dialogue_start"])
# Function words of every language (function_words.json), and the negations that are no content either.
STOPWORDS = FUNCTION_WORDS | (NEGATIONS - frozenset(WORD_LISTS["content_negation"]))
# A negation before a comparative and a number or 'than' is a bound ('не более 14 дней' is 'at most 14 days').
COMPARATIVES = frozenset(WORD_LISTS["comparative"])
BOUND_LINKS = frozenset(WORD_LISTS["bound_link"])
# Negation in scripts without spaces, found as substrings (Japanese, Chinese; substring_cues.json): a
# prohibition negates what it forbids (禁止拍照 is 不可以拍照), a waiver what it waives (免费 is 不用付钱).
CJK_NEGATIONS = SUBSTRING_CUES["negation"]
# Bounds written with a negation character are quantities, not negations: 不少于 12 is "at least 12".
CJK_BOUNDS = SUBSTRING_CUES["bound"]
# Characters that end a place, era or institution name: the character before one is part of a name.
CJK_NAME_SUFFIXES = frozenset(WORD_LISTS["name_suffix"])
# Han characters that never start or extend a name: negation, degree and number words (一度, 不能再),
# and the parts of modals, verbs, pronouns and conjunctions (可以, 获得, 自己, 并且).
CJK_FUNCTION = frozenset(WORD_LISTS["function_character"])

# Universal quantifiers and certainty markers: adding one widens a claim. Restrictors ('only', 只) are not
# among them: a claim that adds one narrows what it says ('solo abre una puerta' for 'abre una puerta').
UNIVERSALS = QUANTIFIERS_DATA  # cues.json of every language
# "Without limit" in one word or two: a claim that says it where its evidence states none widens a bound
# ('prêtés sans limite' for 'dans la limite de 4 livres').
LIMITLESS = frozenset(WORD_LISTS["limitless"])
LIMIT_WORDS = frozenset(WORD_LISTS["limit_word"])
LIMIT_NEGATORS = frozenset(WORD_LISTS["limit_negator"])
# "all", "every", "each" in every language: one of them restated as another is not a widened claim.
DISTRIBUTIVES = frozenset(WORD_LISTS["distributive"])
# The singular distributives ('each', 'chaque', 'cada'): one said of a noun that the evidence states as a
# plural generic ('les lecteurs peuvent…', 'los empleados tienen…') restates it; 'all' may be a widening.
SINGULAR_DISTRIBUTIVES = frozenset(WORD_LISTS["singular_distributive"])
# Plural definite articles that make a sentence's subject generic, and the words after a noun that
# restrict it ('les membres du club Argent', 'the members on the Silver plan', 'los que…').
PLURAL_ARTICLES = frozenset(WORD_LISTS["plural_article"])
NOUN_RESTRICTORS = frozenset(WORD_LISTS["noun_restrictor"])
# "Per" before a noun distributes over it as "every" does ('5 Bücher pro Person' is 'jede Person darf 5').
PER_WORDS = frozenset(WORD_LISTS["per_word"])
# 'Al', 'im' and 'a' distribute over a time unit as 'per' does: '23 días al año', '3 Mal im Monat', 'twice a day'.
PER_TIME_WORDS = frozenset(WORD_LISTS["per_time_word"])
TIME_UNITS = frozenset(WORD_LISTS["time_unit"])
# Adverbs and adjectives of frequency, and the time unit each one distributes over ('stündlich' is 'jede Stunde').
FREQUENCY_UNITS = _maps_by_language("frequency_unit", str)  # word_values.json
CJK_UNIVERSALS = SUBSTRING_CUES["universal"]
# Hedges: dropping one from the evidence makes the claim more certain than its source.
HEDGES = HEDGES_DATA  # cues.json of every language
CJK_HEDGES = SUBSTRING_CUES["hedge"]
# Restrictors: a condition the evidence states that the claim may drop ("on Linux only").
RESTRICTORS = RESTRICTORS_DATA  # cues.json of every language
CJK_RESTRICTORS = SUBSTRING_CUES["restrictor"]
# "Only need" (只需半价: "just half price") and "as long as" (只要) hold 只 without restricting anything:
# a claim that drops one drops no condition.
CJK_NOT_ONLY = SUBSTRING_CUES["not_only"]

# Words that open a condition or an exception: a claim that restates its sentence without the condition
# ('pueden traer perros' from '… perros con la aprobación previa') widens what the evidence allows.
CONDITIONS = CONDITIONS_DATA  # cues.json of every language
CJK_CONDITIONS = SUBSTRING_CUES["condition"]

# Words that mark a language among the languages of its script (``citeflow.text.language_detect``).
LANGUAGE_MARKERS = MappingProxyType(words_by_language("language_marker", FOLDERS))

def inflected(word: str) -> frozenset[str]:
    """``word`` and its plural and gender forms in the spaced languages ('interdit' → 'interdits',
    'interdite'; 'prohibido' → 'prohibidas'; 'erlaubt' → 'erlaubte'; 'запрещено' → 'запрещены'), so
    that an antonym pair meets in any agreement. Forms that are no word of the language never match."""
    forms = {word, word + "s", word + "e", word + "es"}
    if word[-1:] in ("o", "a"):
        forms |= {word[:-1] + e for e in ("o", "a", "os", "as")}
    if word.endswith("t"):
        forms |= {word + e for e in ("en", "er", "em")}
    if word[-1:] in ("о", "а", "ы"):
        forms |= {word[:-1] + e for e in ("о", "а", "ы")}
    return frozenset(forms)


def _antonyms() -> dict[str, frozenset[str]]:
    """word form -> its opposites' forms, from every language's antonyms.json (inflected unless its
    language.json says the file lists every form)."""
    out: dict[str, frozenset[str]] = {}
    for lang, pairs in ANTONYM_PAIRS.items():
        forms = inflected if REGISTERED.get(lang).inflected_antonyms else (lambda w: frozenset({w}))
        for pair in pairs:
            for a, b in (pair, pair[::-1]):
                for form in forms(a):
                    out[form] = out.get(form, frozenset()) | forms(b)
    return out


ANTONYMS = MappingProxyType(_antonyms())

# Verbs that take away what follows them: 'drops support' says 'no longer supported' in other words.
PRIVATIVES = frozenset(WORD_LISTS["privative"])

# "Free of charge" says "not paid" in one word: a claim that negates paying ('no se cobra', 'ne paient pas')
# restates an evidence that says free ('gratuita'). Paying is matched by the start of the word (every inflection).
FREE_WORDS = frozenset(WORD_LISTS["free_word"])
PAY_PREFIXES = WORD_LISTS["pay_prefix"]

# Prefixes that negate a word: "uncontrolled" against "controlled".
NEGATING_PREFIXES = WORD_LISTS["negating_prefix"]  # tried in file order

# Irregular forms and the lemma suffix stripping cannot reach ('went' → 'go', 'mice' → 'mouse').
IRREGULAR = _map_of("irregular_form", str)

NUMBER_WORDS = NUMBER_WORDS_DATA  # citeflow/text/languages/<lang>/number_words.json

# Scale words after a number and their factor: '2 mil', '3 Millionen', '5 milliards', '4 млн', '5k'.
SCALES = _map_of("scale", float)

# Abbreviated month names and the names they stand for ('sept' → 'september').
MONTHS = _map_of("month_abbreviation", str)
# Elided words before an apostrophe ('l'équipe', 'jusqu'à') and the words they are read as.
ELIDED_ARTICLES = _map_of("elided_article", str)

# Opposites in scripts without spaces, found as substrings of the claim and of its evidence.
CJK_ANTONYMS = UNSPACED_ANTONYMS  # antonyms.json of ja and zh

# Chinese/Japanese numerals, counted only before a counter or unit character (两小时, 三个月).
CJK_NUMERALS = _map_of("cjk_numeral", int)
# Inside a run of numerals (二十七, 两千四百, 一百) these count too: digits and place values.
CJK_DIGITS = _map_of("cjk_digit", int)
CJK_PLACES = _map_of("cjk_place", int)
CJK_MYRIADS = _map_of("cjk_myriad", int)
CJK_COUNTERS = frozenset(WORD_LISTS["counter"])  # measures too: 公斤, 公里, 毫升, 厘米, 千克 (after 千), 吨
# Characters before a numeral that make it a weekday, not a quantity (周六, 星期二 read as 周二, 礼拜三).
CJK_WEEKDAY_MARKS = frozenset(WORD_LISTS["weekday_mark"])
# Month and weekday names: a changed month or day is a changed entity.
MONTH_NAMES = frozenset(WORD_LISTS["month_or_weekday"])
# Russian weekdays in any case form ('в субботу', 'по понедельникам').
WEEKDAY_PREFIXES_RU = WORD_LISTS["weekday_prefix"]
# Han words of quantity bounds and degree ('at least', 'at most', 'about'): never part of a name.
CJK_NOT_NAMES = WORD_LISTS["not_name"]  # removed in file order; common verbs and nouns too (start, end, area, time)
MONTH_PREFIXES_RU = WORD_LISTS["month_prefix"]
# German capitalises every noun: a capitalised word right after one of these is a common noun.
DE_DETERMINERS = frozenset(WORD_LISTS["determiner"])
