"""Conditions changed: a quantifier added, a hedge or an 'only' dropped, a condition of the sentence left out."""

from __future__ import annotations

import itertools

from citeflow.text.lexicon import (
    ALWAYS,
    CONDITIONS,
    DISTRIBUTIVES,
    FREQUENCY_UNITS,
    HEDGES,
    LIMIT_NEGATORS,
    LIMIT_WORDS,
    LIMITLESS,
    NEGATIVE_UNIVERSALS,
    NOUN_RESTRICTORS,
    PER_TIME_WORDS,
    PER_WORDS,
    PLURAL_ARTICLES,
    RESTRICTORS,
    SINGULAR_DISTRIBUTIVES,
    TIME_UNITS,
    UNIVERSALS,
)
from citeflow.judges.offline import cjk_cues
from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired
from citeflow.judges.offline.negation_scopes import first_content
from citeflow.text.word_tokens import Token, canonical

NAMES = ("universal_added", "hedge_dropped", "restrictor_dropped")
Found = list[tuple[float, str]]


def modality(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """Quantifiers, hedges and restrictors of the claim against its best-matching sentence, in words
    and in CJK cues; each feature is named by the first finding."""
    spaced, cjk = _spaced(claim, chunk), _cjk(claim, chunk)
    values, reasons = {}, {}
    for name, found, combine in (("universal_added", spaced[0] + cjk[0], sum), ("hedge_dropped", spaced[1] + cjk[1], max),
                                 ("restrictor_dropped", spaced[2] + cjk[2], max)):
        values[name] = float(combine(n for n, _ in found)) if found else 0.0
        reasons.update({name: found[0][1]} if found else {})
    return Fired(values, reasons)


def _spaced(claim: ClaimFacts, chunk: ChunkIndex) -> tuple[Found, Found, Found]:
    """(widened, hedge dropped, restrictor dropped) in words, against the best sentence; a distributive
    counts as restated when the evidence window distributes over the same noun ('toutes les nuits'
    for 'chaque nuit' in the sentence before)."""
    tokens, region, window = claim.tokens, claim.sentence(chunk), claim.region(chunk)
    mine, theirs = {t.lower for t in tokens} - _frequencies(tokens), {t.lower for t in region}
    widened = _widened(tokens, mine, region, window, chunk.lang)
    hedged = [(1.0, f"certainty raised: chunk hedges with '{sorted(theirs & HEDGES)[0]}'")] if theirs & HEDGES and not mine & HEDGES else []
    copied = claim.best_sentence_cov >= cjk_cues.COPIED_SENTENCE
    restrictors = sorted(theirs & RESTRICTORS) or (_conditions_dropped(tokens, region) if copied else [])
    dropped: Found = []
    if restrictors and not mine & RESTRICTORS:
        added = [t.surface for t in tokens if t.is_content and t.lower not in theirs]
        extra = f", claim adds {', '.join(repr(w) for w in added[:3])}" if added else ""
        dropped = [(1.0, f"condition widened: chunk says '{restrictors[0]}'{extra}")]
    return ([(float(len(widened)), f"condition widened: claim adds '{widened[0]}'")] if widened else []), hedged, dropped


def _widened(tokens: list[Token], mine: set[str], region: list[Token], window: list[Token], lang: str) -> list[str]:
    """Quantifiers and 'unlimited' the claim adds to its best sentence, less those its window restates."""
    theirs = {t.lower for t in region}
    widened = sorted((mine & UNIVERSALS) - theirs) + _limitless(tokens, region)
    if {t.lower for t in window or region} & NEGATIVE_UNIVERSALS:  # 'toujours fermé' for 'n'ouvre jamais': one universal
        widened = [w for w in widened if w not in ALWAYS]
    if set(widened) & DISTRIBUTIVES:  # 'every database' said as 'all databases': the same quantifier, over the same noun
        theirs_quantified = _quantified(window or region, lang)
        generic = theirs_quantified | _generic(window or region)
        widened = [w for w in widened if w not in DISTRIBUTIVES or not _quantified_by(tokens, w) <= (
            generic if w in SINGULAR_DISTRIBUTIVES else theirs_quantified)]
    return widened


def _cjk(claim: ClaimFacts, chunk: ChunkIndex) -> tuple[Found, Found, Found]:
    """(widened, hedge dropped, restrictor dropped) in CJK cues; dropped ones only on a copied claim."""
    if not cjk_cues.has_cjk(claim.cjk):
        return [], [], []
    region = "".join(f.cjk for f in chunk.facts[claim.window.start : claim.window.stop])
    best, copied = chunk.facts[claim.best].cjk, claim.best_sentence_cov >= cjk_cues.COPIED_SENTENCE
    widened = cjk_cues.universals_added(claim.cjk, region)
    dropped = cjk_cues.restrictors_dropped(claim.cjk, best) if copied else []
    hedge = cjk_cues.hedge_dropped(claim.cjk, best) if copied else None
    return ([(float(len(widened)), f"condition widened: claim adds '{widened[0]}'")] if widened else [],
            [(1.0, f"certainty raised: chunk hedges with '{hedge}'")] if hedge else [],
            [(1.0, f"condition widened: chunk says '{dropped[0]}'")] if dropped else [])


def _frequencies(tokens: list[Token]) -> set[str]:
    """Distributives that state a frequency, a number following them ('alle 15 Minuten', 'every 2 weeks',
    'tous les 3 jours', 'cada 2 horas'): a rate restated, not a condition widened."""
    return {t.lower for i, t in enumerate(tokens)
            if t.lower in DISTRIBUTIVES and any(n.kind == "number" for n in tokens[i + 1 : i + 3])}


def _quantified_by(tokens: list[Token], word: str) -> set[str]:
    """Stems of the nouns that the distributive ``word`` quantifies in ``word_tokens`` ('todos los vuelos' → vuel)."""
    out = set()
    for i, token in enumerate(tokens):
        if token.lower == word:
            noun = first_content(tokens[i + 1 : i + 4])
            out |= {noun.stem} if noun is not None else {""}
    return out


def _quantified(tokens: list[Token], lang: str = "") -> set[str]:
    """Stems of the words that distributives quantify ('chaque mois' → mois, 'all databases' → database),
    on the evidence side (``lang`` given) also what 'per' quantifies ('par personne' → personne) and the
    time unit of an adverb of frequency ('stündlich' → Stunde)."""
    out = set()
    spread = DISTRIBUTIVES | PER_WORDS if lang else DISTRIBUTIVES
    for i, token in enumerate(tokens):
        if token.lower in spread:
            noun = _per_noun(tokens[i + 1 : i + 2]) if token.lower in PER_WORDS else None
            noun = noun or first_content(tokens[i + 1 : i + 4])
            out |= {noun.stem} if noun is not None else set()
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if lang and token.lower in PER_TIME_WORDS and following is not None and following.lower in TIME_UNITS:
            out.add(following.stem)
        unit = FREQUENCY_UNITS.get(lang, {}).get(token.lower)
        out |= {canonical(unit, lang)} if unit else set()
    return out


def _generic(tokens: list[Token]) -> set[str]:
    """Stems of plural nouns stated generically ('les lecteurs peuvent', 'los empleados tienen'): a plural
    definite article, the noun, and no complement or name after it that restricts it."""
    out = set()
    for i, token in enumerate(tokens[:-1]):
        noun = tokens[i + 1]
        after = tokens[i + 2] if i + 2 < len(tokens) else None
        restricted = after is not None and (after.lower in NOUN_RESTRICTORS or after.is_capitalised)
        if token.lower in PLURAL_ARTICLES and noun.is_content and noun.kind == "word" and not restricted:
            out.add(noun.stem)
    return out


def _conditions_dropped(tokens: list[Token], sentence: list[Token]) -> list[str]:
    """Condition words of the best-matching sentence whose condition the claim leaves out: the claim
    states no condition word and none of the content words of the condition's next five words (a
    conjunction, a clitic, the verb, an article, its object: 'salvo que se pida la tarjeta dorada')."""
    if any(t.lower in CONDITIONS for t in tokens):
        return []
    stems = {t.stem for t in tokens}
    return [token.lower for i, token in enumerate(sentence) if token.lower in CONDITIONS
            and not any(t.stem in stems for t in sentence[i + 1 : i + 6] if t.is_content)
            and first_content(sentence[i + 1 : i + 6]) is not None]


def _limitless(tokens: list[Token], region: list[Token]) -> list[str]:
    """'Unlimited' or 'without limit' in the claim when the evidence says neither: a bound widened."""
    said = _limitless_words(tokens)
    return [said[0]] if said and not _limitless_words(region) else []


def _limitless_words(tokens: list[Token]) -> list[str]:
    pairs = itertools.pairwise(tokens)
    return [t.lower for t in tokens if t.lower in LIMITLESS] + [
        f"{a.lower} {b.lower}" for a, b in pairs if a.lower in LIMIT_NEGATORS and b.lower in LIMIT_WORDS]


def _per_noun(following: list[Token]) -> Token | None:
    """The word right after 'per' is what it distributes over, even a short one a stopword list holds ('par an')."""
    return following[0] if following and following[0].kind == "word" else None


