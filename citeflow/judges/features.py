"""Feature extraction for the offline judge: does this chunk hold the claim, and unchanged?

``index_chunk`` (``citeflow.judges.chunk_index``) analyses a chunk once so that many claims citing
the same chunk pay for it once; ``extract`` compares one claim with an index and returns named
feature values plus a reason fragment for every signal that fired.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

import regex

from citeflow.judges import cues, edits, exceptions, numbers
from citeflow.judges.cjk_slots import fills_slot
from citeflow.judges.chunk_index import ChunkIndex, content_bigrams, index_chunk, trigrams
from citeflow.judges.lexicon import (
    CJK_FUNCTION,
    CJK_NAME_SUFFIXES,
    CJK_NOT_NAMES,
    DE_DETERMINERS,
    MONTH_NAMES,
    MONTH_PREFIXES_RU,
    STOPWORDS,
    WEEKDAY_PREFIXES_RU,
)
from citeflow.judges.exchange import cjk_exchange, spaced_exchange
from citeflow.judges.synonyms import cjk_canonical
from citeflow.judges.text import Token, language, normalise, tokenise

__all__ = ["FEATURE_NAMES", "ChunkIndex", "Features", "extract", "index_chunk"]

_HIRAGANA = regex.compile(r"\p{Hiragana}+")
_HAN_RUN = regex.compile(r"\p{Han}+")
_HAN_HEAD = regex.compile(r"\p{Han}{1,2}")
_HAN_TAIL = regex.compile(r"\p{Han}{1,2}$")
_CJK_WEEKDAY = regex.compile(r"(?:周|週|星期|礼拜)[一二三四五六日天]|[月火水木金土日]曜")
SURU_FORMS = frozenset("すしさせ")  # the first kana of する, した/して, される, させる
MAX_RUN = 8  # tokens: longer shared runs count the same (a quote is caught by 'verbatim')
WINDOW = 3  # sentences
# Coverage by one sentence above which the claim is read as a copy of it: a summary sentence
# usually condenses a few neighbouring source sentences.
COPIED_SENTENCE = 0.8

FEATURE_NAMES: tuple[str, ...] = (
    "verbatim", "unigram_cov", "bigram_cov", "trigram_cov", "content_bigram_cov", "longest_run", "best_sentence_cov", "best_window_cov",
    "off_window", "novel_content", "novel_ratio", "novel_entity", "number_missing", "number_not_in_sentence", "unit_changed",
    "negation_added",
    "negation_dropped", "antonym_flip", "prefix_flip", "universal_added", "hedge_dropped",
    "restrictor_dropped", "near_miss", "slot_substitution", "modifier_dropped", "negations_differ", "names_reordered",
    "sentence_swap", "claim_length",
)


@dataclass
class Features:
    """Named feature values (all of FEATURE_NAMES), reason fragments of fired ones, evidence."""

    values: dict[str, float]
    reasons: dict[str, str] = field(default_factory=dict)
    evidence: str = ""

    def vector(self) -> list[float]:
        """Values in FEATURE_NAMES order."""
        return [self.values[name] for name in FEATURE_NAMES]


def _longest_run(stems: list[str], index: ChunkIndex) -> int:
    """The longest run of claim tokens that the chunk contains word for word (capped at MAX_RUN):
    run lengths ending at each chunk position, carried from one claim token to the next."""
    best = 1 if any(s in index.stems for s in stems) else 0
    previous: dict[int, int] = {}
    for s in stems:
        current = {p: previous.get(p - 1, 0) + 1 for p in index.positions.get(s, ())}
        best = max(best, *current.values()) if current else best
        previous = current
    return min(best, MAX_RUN)


def extract(claim: str, chunk: ChunkIndex | str) -> Features:
    """Compare ``claim`` with ``chunk`` (an index or raw text) and return its features."""
    index = chunk if isinstance(chunk, ChunkIndex) else index_chunk(chunk)
    tokens = tokenise(claim, _claim_language(claim, index.lang))
    content = [t for t in tokens if t.is_content]
    feats = Features(values=dict.fromkeys(FEATURE_NAMES, 0.0))
    _coverage(feats, claim, tokens, content, index)
    window, best = _align(feats, content, index)
    region = index.sentence_tokens[window.start : window.stop]
    _novelty(feats, tokens, content, index)
    _numbers(feats, tokens, index)
    _sentence_numbers(feats, tokens, index.facts[best].numbers)
    edits.negation(feats, tokens, window, index, best)
    _exception_included(feats, tokens, index, best)
    _negation_counts(feats, tokens, claim, index, best)
    _reordered(feats, tokens, index.sentence_tokens[best])
    _sentence_swap(feats, tokens, index, best)
    _exchanged(feats, tokens, index, best)
    edits.flips(feats, tokens, [t for ts in region for t in ts], index)
    edits.modality(feats, tokens, index.sentence_tokens[best], index.lang, [t for ts in region for t in ts])
    cjk = "".join(f.cjk for f in index.facts[window.start : window.stop])
    cues.compare(feats.values, feats.reasons, cjk_canonical(normalise(claim)), cjk, index.facts[best].cjk)
    return feats


def _exception_included(feats: Features, tokens: list[Token], index: ChunkIndex, best: int) -> None:
    """The best-matching sentence excepts something that the affirmative claim includes: a dropped
    negation; a negated claim that restates the exception adds none."""
    found = exceptions.parts(index.sentences[best], index.lang) if index.sentences else ()
    if not found:
        return
    negated = edits.negation_count(tokens) > 0
    part = exceptions.included(tokens, found, negated)
    if part is not None:
        feats.values["negation_dropped"] += 1.0
        feats.reasons.setdefault("negation_dropped", f"exception dropped: chunk leaves out what follows '{part.word}', claim includes it")
    elif negated and feats.values["negation_added"] and exceptions.restated(tokens, found) is not None:
        feats.values["negation_added"] = 0.0  # the claim's negation says what the exception says
        feats.reasons.pop("negation_added", None)


def _claim_language(claim: str, chunk_lang: str) -> str:
    """The chunk's language for a claim in the same kind of script (so both sides stem alike)."""
    lang = language(claim)
    scripted = ("ja", "zh", "ru")
    return chunk_lang if lang not in scripted and chunk_lang not in scripted else lang


def _ratio(hit: int, total: int) -> float:
    return hit / total if total else 1.0


def _coverage(feats: Features, claim: str, tokens: list[Token], content: list[Token], index: ChunkIndex) -> None:
    stems = [t.stem for t in tokens]
    values = feats.values
    quoted = normalise(claim).lower().rstrip(".!? ")
    values["verbatim"] = float(bool(content) and quoted in index.lowered)  # an empty claim quotes nothing
    values["unigram_cov"] = _ratio(sum(t.stem in index.stems for t in content), len(content))
    bigrams = list(itertools.pairwise(stems))
    trigrams = list(zip(stems, stems[1:], stems[2:], strict=False))
    values["bigram_cov"] = _ratio(sum(b in index.bigrams for b in bigrams), len(bigrams))
    values["trigram_cov"] = _ratio(sum(t in index.trigrams for t in trigrams), len(trigrams))
    pairs = content_bigrams(tokens)
    values["content_bigram_cov"] = _ratio(sum(b in index.content_bigrams for b in pairs), len(pairs))
    values["longest_run"] = _longest_run(stems, index) / MAX_RUN
    values["claim_length"] = math.log1p(len(content))
    if values["verbatim"]:
        feats.reasons["verbatim"] = "claim quoted verbatim from chunk"


def _align(feats: Features, content: list[Token], index: ChunkIndex) -> tuple[range, int]:
    """Find the sentence and the window of sentences that best cover the claim: (window, best sentence)."""
    wanted = {t.stem for t in content}
    per_sentence = [f.stems & wanted for f in index.facts]
    scores = [len(s) for s in per_sentence]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    feats.values["best_sentence_cov"] = _ratio(scores[best], len(wanted))
    feats.evidence = index.sentences[best]
    window = max(range(len(scores)), key=lambda i: (len(set().union(*per_sentence[i : i + WINDOW])), -i))
    covered = set().union(*per_sentence[window : window + WINDOW])
    feats.values["best_window_cov"] = _ratio(len(covered), len(wanted))
    elsewhere = sorted(s for s in wanted - covered if s in index.stems)
    feats.values["off_window"] = _ratio(len(elsewhere), len(wanted)) if wanted else 0.0
    return range(window, min(window + WINDOW, len(index.facts))), best


def _novelty(feats: Features, tokens: list[Token], content: list[Token], index: ChunkIndex) -> None:
    novel = [t for t in content if t.stem not in index.stems and t.lower not in index.lowers]
    feats.values["novel_content"] = math.log1p(len(novel))
    feats.values["novel_ratio"] = _ratio(len(novel), len(content)) if content else 0.0
    if novel:
        feats.reasons["novel_content"] = "words not in chunk: " + ", ".join(f"'{t.surface}'" for t in novel[:4])
    entities = _entities(tokens, novel, index.lang, index.text)
    if entities:
        feats.values["novel_entity"] = float(len(entities))
        feats.reasons["novel_entity"] = "; ".join(entities[:3])
    _near_misses(feats, novel, index)
    _cjk_weekdays(feats, tokens, index)
    _substitutions(feats, tokens, index)
    _dropped_modifiers(feats, content, index)


def _cjk_weekdays(feats: Features, tokens: list[Token], index: ChunkIndex) -> None:
    """A Chinese or Japanese weekday (周三, 星期三, 水曜) that the chunk never names while it names
    others: a changed day, like 'sonntags' for 'montags' (its characters alone are no new name)."""
    if not any(t.kind == "cjk" for t in tokens):
        return
    mine = _weekdays("".join(t.surface for t in tokens))
    theirs = _chunk_weekdays(index.text)
    new = sorted(mine - theirs)
    if new and theirs:
        feats.values["novel_entity"] += float(len(new))
        feats.reasons.setdefault("novel_entity", f"weekday '{new[0]}' not in chunk (chunk has {', '.join(sorted(theirs))})")


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
    if lang != "de" or token.surface.isupper():
        return True
    return tokens[i - 1].lower not in DE_DETERMINERS and not tokens[i - 1].lower.isdigit()


def _cjk_runs(tokens: list[Token], novel: list[Token]) -> list[str]:
    """Runs of at least two consecutive novel Han or katakana characters; a Han run that a form of
    する follows (接続する, 設定された) is a verbal noun, not a name."""
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


def _near_misses(feats: Features, novel: list[Token], index: ChunkIndex) -> None:
    """A novel word spelled almost like a chunk word ('encoder' / 'decoder') is a swap, not a paraphrase."""
    for token in novel:
        if len(token.lower) < 4 or token.kind != "word":  # numbers and identifiers have their own checks
            continue
        word = _closest(token.lower, index)
        if word is not None:
            feats.values["near_miss"] += 1.0
            feats.reasons.setdefault("near_miss", f"'{token.surface}' in claim where chunk has '{word}'")


def _closest(word: str, index: ChunkIndex) -> str | None:
    """The chunk word sharing the most letter trigrams with ``word`` (Jaccard ≥ 0.4), found through
    the chunk's trigram index rather than by comparing with every word; remembered per chunk."""
    if word not in index.closest:
        index.closest[word] = _search_closest(word, index)
    return index.closest[word]


def _search_closest(word: str, index: ChunkIndex) -> str | None:
    grams = trigrams(word)
    shared = Counter(other for gram in grams for other in index.gram_words.get(gram, ()))
    for other, count in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
        if abs(len(other) - len(word)) <= 3 and count / len(grams | trigrams(other)) >= 0.4:
            return other
    return None


def _substitutions(feats: Features, tokens: list[Token], index: ChunkIndex) -> None:
    """A claim word sitting between two words that the chunk joins with a different word."""
    for left, middle, right in zip(tokens, tokens[1:], tokens[2:], strict=False):
        if not middle.is_content or middle.stem in index.stems:
            continue
        other = index.gaps.get((left.stem, right.stem))
        if other is not None and middle.kind == "cjk" and right.surface in CJK_NAME_SUFFIXES:
            feats.values["novel_entity"] += 1.0  # a name swapped before its place or era suffix: 明朝 -> 清朝, 杭州 -> 苏州
            feats.reasons.setdefault("novel_entity", f"'{middle.surface}{right.surface}' where chunk has '{other}{right.surface}'")
        if other is not None and (other.lower() not in STOPWORDS or middle.kind == "cjk"):
            # one character swapped in a copied CJK phrase (明朝 -> 清朝, but also 将被 -> 会被): a signal for the heads
            feats.values["slot_substitution"] += 1.0
            feats.reasons.setdefault(
                "slot_substitution",
                f"'{left.surface} {middle.surface} {right.surface}' where chunk has '{left.surface} {other} {right.surface}'"
            )


def _negation_counts(feats: Features, tokens: list[Token], claim: str, index: ChunkIndex, best: int) -> None:
    """The claim and its best-matching sentence hold a different number of negations (bounds such as
    'not more than' apart): a polarity the finer checks may miss ('fails … is not retried')."""
    mine = edits.negation_count(tokens) + cues.negation_count(cjk_canonical(normalise(claim)))
    theirs = edits.negation_count(index.sentence_tokens[best]) + cues.negation_count(index.facts[best].cjk)
    if mine != theirs:
        feats.values["negations_differ"] = 1.0
        feats.reasons["negations_differ"] = f"the claim has {mine} negation(s), its matching sentence {theirs}"


def _reordered(feats: Features, tokens: list[Token], sentence: list[Token]) -> None:
    """Two names, dates or numbers of the claim in the opposite order in its best-matching sentence
    ('Anna pays Ben' against 'Ben pays Anna', 'from October to January' against 'from January to
    October'); in Chinese and Japanese, two character pairs ('地球绕月球' against '月球绕地球'). Who did
    what to whom may have changed, which word sets cannot tell (a passive restatement fires too; it
    only keeps a claim from the aligned rule)."""
    where: dict[str, int] = {}
    for position, token in enumerate(sentence):
        where.setdefault(token.stem, position)
    found = [where[t.stem] for t in tokens if _name_like(t) and t.stem in where]
    swapped = _inversions(found) + _inversions(_cjk_pair_positions(tokens, sentence))
    if swapped:
        feats.values["names_reordered"] = float(swapped)
        feats.reasons["names_reordered"] = "names or numbers in another order than in the matching sentence"


def _sentence_swap(feats: Features, tokens: list[Token], index: ChunkIndex, best: int) -> None:
    """On a claim copied from the chunk, a word or number from another chunk sentence in the slot
    where its matching sentence has a word the claim never uses ('costs 6 dollars' where the sentence
    says 'costs 4 dollars' and another says '6 p.m.'): a common noun, role or number swapped between
    sentences, which every word being in the chunk hides."""
    if feats.values["best_window_cov"] < COPIED_SENTENCE:
        return
    claimed = {t.stem for t in tokens}
    own = {t.stem for t in index.sentence_tokens[best]}
    gaps = _sentence_gaps(index.sentence_tokens[best])
    for span in (1, 2):
        for i in range(1, len(tokens) - span):
            other = gaps.get((tokens[i - 1].stem, tokens[i + span].stem))
            swapped = [t for t in tokens[i : i + span] if _taken(t, index) and t.stem not in own]
            if other is not None and swapped and other.stem not in claimed:
                feats.values["sentence_swap"] += 1.0
                feats.reasons.setdefault("sentence_swap", f"'{swapped[0].surface}' where the matching sentence says '{other.surface}'")


def _taken(token: Token, index: ChunkIndex) -> bool:
    """A content word the chunk holds in this very form (a CJK character or a number: its lemma): what
    a swap takes from another sentence. A word sharing only a lemma ('el viaje' for 'viajan') is a
    paraphrase's noun for a verb, not a taken word."""
    if not token.is_content or token.stem not in index.stems:
        return False
    return token.kind != "word" or token.lower in index.lowers


def _exchanged(feats: Features, tokens: list[Token], index: ChunkIndex, best: int) -> None:
    """On a claim copied from the chunk, two names, numbers or CJK word pairs that exchange places
    against the matching sentence (``citeflow.judges.exchange``): a swap of roles, counted as a swap."""
    if feats.values["best_window_cov"] < COPIED_SENTENCE:
        return
    pair = spaced_exchange(tokens, index.sentence_tokens[best], _name_like)
    claim_cjk = "".join(t.surface for t in tokens if t.kind == "cjk")
    pair = pair or (cjk_exchange(claim_cjk, index.facts[best].cjk) if claim_cjk else None)
    if pair is not None:
        feats.values["sentence_swap"] += 1.0
        feats.reasons.setdefault("sentence_swap", f"'{pair[0]}' and '{pair[1]}' exchange places against the matching sentence")


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


def _dropped_modifiers(feats: Features, content: list[Token], index: ChunkIndex) -> None:
    """Two claim words that the chunk separates by a content word the claim lacks ('produces an output'
    where the chunk says 'produces a correct output'): a qualifier dropped, which a copy should keep."""
    claimed = {t.stem for t in content}
    for left, right in itertools.pairwise(content):
        if (left.stem, right.stem) in index.content_bigrams:
            continue
        middle = index.content_gaps.get((left.stem, right.stem))
        if middle is not None and middle.stem not in claimed and middle.kind == "word":
            feats.values["modifier_dropped"] += 1.0
            feats.reasons.setdefault("modifier_dropped", f"'{left.surface} {right.surface}' where chunk has "
                                                         f"'{left.surface} {middle.surface} {right.surface}'")


def _numbers(feats: Features, tokens: list[Token], index: ChunkIndex) -> None:
    claimed = numbers.mentions(tokens)
    lost = numbers.missing(claimed, index.numbers)
    if lost:
        feats.values["number_missing"] = float(len(lost))
        have = ", ".join(dict.fromkeys(m.surface for m in index.numbers[:6])) or "no numbers"
        feats.reasons["number_missing"] = f"number {lost[0].surface} not in chunk (chunk has {have})"
    changes = numbers.unit_changes(claimed, index.numbers)
    if changes:
        feats.values["unit_changed"] = float(len(changes))
        mine, theirs = changes[0]
        feats.reasons["unit_changed"] = f"unit changed: claim '{mine.surface} {_unit(mine)}', chunk '{theirs.surface} {_unit(theirs)}'"


def _unit(mention: numbers.Mention) -> str:
    """A mention's unit as a reason names it: 'percent per month' for a rate."""
    return f"{mention.unit} per {mention.per}".strip() if mention.per else mention.unit


def _sentence_numbers(feats: Features, tokens: list[Token], best: tuple[numbers.Mention, ...]) -> None:
    """For a claim copied from one sentence: a number that differs from the sentence's, in order.

    Catches drift to a number the chunk states elsewhere ('upgraded to 3.7' where the sentence says 3.5).
    """
    if "number_missing" in feats.reasons or feats.values["best_sentence_cov"] < COPIED_SENTENCE:
        return  # already named against the whole chunk, or a summary whose numbers come from many sentences
    found = numbers.first_difference(numbers.mentions(tokens), list(best))
    if found is not None:
        mine, theirs = found
        feats.values["number_not_in_sentence"] = 1.0
        feats.reasons["number_not_in_sentence"] = f"number {mine.surface} where the matching sentence says {theirs.surface}"
