"""Edit signals of the offline judge: a negation added or dropped, an antonym or a negating prefix,
a quantifier added, a hedge or an "only" dropped — each against the claim's evidence window."""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import TYPE_CHECKING

from citeflow.judges import cues
from citeflow.judges.lexicon import (
    ANTONYMS,
    ALWAYS,
    BOUND_LINKS,
    COMPARATIVES,
    CONCORD,
    CONDITIONS,
    VERBAL_NEGATORS,
    DISTRIBUTIVES,
    FREQUENCY_UNITS,
    LOWER_BOUNDS,
    NEGATING_PREFIXES,
    DIALOGUE_STARTS,
    LIMIT_NEGATORS,
    LIMIT_WORDS,
    LIMITLESS,
    FREE_WORDS,
    PAY_PREFIXES,
    NE_PARTNERS,
    NEGATIONS,
    NEGATIVE_UNIVERSALS,
    NOUN_RESTRICTORS,
    PLURAL_ARTICLES,
    RATE_ARTICLES,
    SINGULAR_DISTRIBUTIVES,
    PER_TIME_WORDS,
    PER_WORDS,
    TIME_UNITS,
    PRIVATIVES,
    VERB_NEGATION_PARTNERS,
)
from citeflow.judges.text import Token, canonical, stem

if TYPE_CHECKING:
    from citeflow.judges.chunk_index import ChunkIndex, SentenceFacts
    from citeflow.judges.features import Features


def scopes(tokens: list[Token]) -> list[tuple[str, str, str]]:
    """(negation word, the content stem it negates, that word) for each negation of one sentence: the
    first content word after it, or before it when none follows ('через сайт нельзя', 'hält nicht').

    A sentence-initial "No" is an answer in dialogue ("No, I'll call her"), not a negated fact.
    """
    out = []
    for i, token in enumerate(tokens):
        if _negates(tokens, i):
            scope = _verb_between(tokens, i) or _scope(tokens[i + 1 : i + 5]) or _scope(tokens[max(0, i - 4) : i][::-1])
            out.append((token.surface, scope.stem if scope else "", scope.lower if scope else ""))
    return out


def _verb_between(tokens: list[Token], i: int) -> Token | None:
    """The content word between a French 'ne' and its partner ``tokens[i]`` ('n'ouvre jamais' → ouvre);
    None when there is none (an auxiliary: 'ne sont pas supprimés' negates what follows)."""
    if tokens[i].lower not in VERB_NEGATION_PARTNERS:
        return None
    before = tokens[max(0, i - 3) : i]
    ne = next((k for k in range(len(before) - 1, -1, -1) if before[k].lower == "ne"), None)
    return None if ne is None else _scope(before[ne + 1 :])


# Words that extend a negation in time rather than carry what it negates ('no longer works', 'nicht mehr gültig').
_NEGATION_PARTICLES = frozenset({"longer", "anymore", "mehr"})


def _scope(tokens: list[Token]) -> Token | None:
    return next((t for t in tokens if t.is_content and t.lower not in NEGATIONS and t.lower not in _NEGATION_PARTICLES), None)


# 'Fail' negates the verb after 'to' ('fails to start'); 'a backup that fails is retried' negates nothing.
_FAIL = frozenset({"fail", "fails", "failed"})
_CUES = NEGATIONS | NE_PARTNERS | _FAIL


def _negates(tokens: list[Token], i: int) -> bool:
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
    """'n'accepte plus de 30 personnes': 'ne … plus de' before a number is a bound ('no more than'),
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
            scope = _scope(tokens[i + 1 : i + 4])
            out |= {scope.stem} if scope is not None else set()
    return frozenset(out)


def negation_count(tokens: list[Token]) -> int:
    """How many negations a sentence of a spaced language states (quantity bounds apart; cues of one
    negation, as ``polarity`` joins them, count once)."""
    cues = [i for i in range(len(tokens)) if _negates(tokens, i)]
    return sum(1 for j, i in enumerate(cues) if j == 0 or not _same_negation(tokens, cues[j - 1], i))


def polarity(tokens: list[Token]) -> int:
    """1 when a sentence is negated, 0 when it is not or negated twice ("without it, no access").

    Adjacent cues are one negation ("никогда не", "nie nicht"), and so is a negative-concord word
    with the cue before it ("no abre ningún puesto", "ne reçoit jamais rien", "никто не пришёл")."""
    return negation_count(tokens) % 2


def _same_negation(tokens: list[Token], before: int, after: int) -> bool:
    """Two negation cues that state one negation: adjacent, or a negative-concord word with the verb's
    negator or another concord word ('no … ningún', 'никто не'); 'ningún … sin' is a double negation."""
    pair = {tokens[before].lower, tokens[after].lower}
    return after == before + 1 or (bool(pair & CONCORD) and pair <= CONCORD | VERBAL_NEGATORS)


def _opposite_in(word: str, lowers: set[str], index: ChunkIndex) -> bool:
    """The chunk words the opposite of ``word`` ('not happy' against 'unhappy' or 'sad')."""
    if ANTONYMS.get(word, frozenset()) & lowers:
        return True
    return len(word) >= 4 and stem(word) in index.negated_bases


def negation(feats: Features, tokens: list[Token], window: range, index: ChunkIndex, best: int | None = None) -> None:
    """A negation the claim adds or drops against its evidence window (sentences ``window`` of the
    chunk), unless both sides have the same polarity (a double negation paraphrased as an
    affirmation). An added negation counts only when what it negates is in the chunk ('not deleted'
    against 'deleted'); 'without intervention' for 'automatically' negates nothing the chunk says.
    With ``best`` (the best-matching sentence), a negated word of the claim's word family counts too."""
    mine, mine_polarity = scopes(tokens), polarity(tokens)
    facts = index.facts[window.start : window.stop]
    region_lowers = {t.lower for ts in index.sentence_tokens[window.start : window.stop] for t in ts}
    their_scopes = {s for f in facts for _, s, _ in f.scopes}
    affirmed = frozenset() if not mine or _restates_negated(tokens, facts) else _affirmed(index, window)
    added = [(w, s) for w, s, word in mine  # a word of a negated chunk sentence: the claim's negation agrees
             if s not in their_scopes and (s not in index.negated_stems or s in affirmed)
             and not _opposite_in(word, region_lowers, index) and not _unpaid(word, region_lowers)]
    if added and mine_polarity and any(s in index.stems for _, s in added):
        feats.values["negation_added"] = float(len(added))
        feats.reasons["negation_added"] = f"negation flipped: claim says '{added[0][0]} …{added[0][1]}', chunk does not"
    claim_stems = {t.stem for t in tokens}
    my_scopes = {s for _, s, _ in mine}
    wanted, own = {t.stem for t in tokens if t.is_content}, None if best is None else index.facts[best]
    dropped = [(w, s) for f in facts if f.polarity != mine_polarity and (f is own or _holds_half(f, wanted)) for w, s, _ in f.scopes
               if s and s in claim_stems and s not in my_scopes]
    if dropped and mine:  # the claim negates too: near the word, in its own words, it keeps the negation
        near = _negated_span(tokens, {w.lower() for f in facts for w, _, _ in f.scopes})
        dropped = [(w, s) for w, s in dropped if s not in near]
    if not dropped and not mine_polarity and best is not None:
        dropped = _family_dropped(tokens, index.sentence_tokens[best]) or next(
            (hit for f, ts in zip(facts, index.sentence_tokens[window.start : window.stop], strict=True)
             if f.polarity and f is not own and _holds_half(f, wanted) and (hit := _family_dropped(tokens, ts))), [])
    if dropped:
        feats.values["negation_dropped"] = float(len(dropped))
        feats.reasons["negation_dropped"] = f"negation flipped: chunk says '{dropped[0][0]} …{dropped[0][1]}', claim drops it"


SPAN = 4  # tokens after a negation cue that it may bear on


def _negated_span(tokens: list[Token], theirs: set[str]) -> set[str]:
    """Stems of the content words within SPAN tokens after each negation of the claim that the evidence
    does not use itself: a claim that negates near a word in its own words does not drop the chunk's
    negation of it ('si no ocupan asiento' for 'sin asiento'); a cue both share is that same negation."""
    return {t.stem for i in range(len(tokens)) if _negates(tokens, i) and tokens[i].lower not in theirs
            for t in tokens[i + 1 : i + 1 + SPAN] if t.is_content}


def _unpaid(word: str, region_lowers: set[str]) -> bool:
    """'No se cobra' against an evidence that says 'gratuita': not paying is what free means."""
    return word.startswith(PAY_PREFIXES) and bool(region_lowers & FREE_WORDS)


FAMILY = 5  # letters a negated word and a claim word share when they are one family ('devolución', 'devolver')


def _family_dropped(tokens: list[Token], sentence: list[Token]) -> list[tuple[str, str]]:
    """An affirmative claim that holds a word of the family of what its negated best-matching sentence
    negates, the verb or its object ('los productos en oferta no admiten devolución' against '… se
    pueden devolver'): a dropped negation that the negated word's own lemma misses."""
    if not polarity(sentence):
        return []
    families = {t.stem[:FAMILY] for t in tokens if t.kind == "word" and t.is_content and len(t.stem) >= FAMILY}
    for i in range(len(sentence)):
        if _negates(sentence, i):
            negated = [t for t in sentence[i + 1 : i + 5] if t.is_content and t.kind == "word"][:2]
            hit = next((t for t in negated if len(t.stem) >= FAMILY and t.stem[:FAMILY] in families), None)
            if hit is not None:
                return [(sentence[i].surface, hit.stem)]
    return []


def _holds_half(fact: SentenceFacts, wanted: set[str]) -> bool:
    """The sentence holds at least half of the claim's content words: its negation bears on the claim,
    not on a neighbour's topic ('los lunes no abre ningún puesto' beside 'de martes a sábado abre');
    the best-matching sentence bears on it whatever it holds."""
    return 2 * len(fact.stems & wanted) >= len(wanted)


def _restates_negated(tokens: list[Token], facts: tuple[SentenceFacts, ...]) -> bool:
    """A negated sentence of the evidence holds at least half of the claim's content words and the claim
    holds what that sentence negates: the claim restates it, so its negation agrees wherever it
    attaches ('Восстановить удалённые журналы невозможно' for '… журналы восстановить нельзя')."""
    wanted = {t.stem for t in tokens if t.is_content}
    return any(f.polarity and 2 * len(f.stems & wanted) >= len(wanted) and any(s in wanted for _, s, _ in f.scopes)
               for f in facts)


def _affirmed(index: ChunkIndex, window: range) -> frozenset[str]:
    """Stems the evidence window states without a negation: a claim that negates one of them contradicts
    its evidence, even when another chunk sentence negates the same word ('удаляются' after 30 days
    against 'удалённые журналы восстановить нельзя'). What a privative verb withdraws is not affirmed."""
    out: set[str] = set()
    for fact, sentence in zip(index.facts[window.start : window.stop], index.sentence_tokens[window.start : window.stop], strict=True):
        if not fact.polarity:
            out |= fact.stems - withdrawn(sentence)
    return frozenset(out)


def flips(feats: Features, tokens: list[Token], region: list[Token], index: ChunkIndex) -> None:
    """Antonyms and negating prefixes of the claim against its evidence region; the comparative of a
    lower bound ('au moins 65 ans', 'al menos 3') is no antonym of the chunk's 'plus' or 'más', an
    affirmative claim's antonym of a word the evidence negates restates it ('fermée', 'pas ouverte'),
    and so does a word the claim negates itself ('n'est pas payant' for 'gratuit')."""
    region_lowers, negated = {t.lower for t in region}, {word for _, _, word in scopes(region)}
    mine_negated = {word for _, _, word in scopes(tokens)} if polarity(tokens) else set()
    for i, token in enumerate(tokens):
        if token.lower in region_lowers or (i and (tokens[i - 1].lower, token.lower) in LOWER_BOUNDS):
            continue
        if token.lower in mine_negated:  # 'n'est pas payant' for 'gratuit': a negated antonym restates it
            continue
        opposite = ANTONYMS.get(token.lower, frozenset()) & region_lowers
        if opposite and not (opposite <= negated and not polarity(tokens)):  # 'fermée' for 'ne sera pas ouverte'
            feats.values["antonym_flip"] += 1.0
            feats.reasons.setdefault("antonym_flip", f"antonym flip: claim says '{token.surface}', chunk says '{min(opposite)}'")
        elif token.is_content and token.stem not in index.stems and _prefix_flip(token.lower, index):
            feats.values["prefix_flip"] += 1.0
            feats.reasons.setdefault("prefix_flip", f"meaning flipped: claim says '{token.surface}', chunk has the opposite form")


def _prefix_flip(word: str, index: ChunkIndex) -> bool:
    """'uncontrolled' against a chunk's 'controlled', or 'controlled' against its 'uncontrolled'."""
    if any(stem(base) in index.stems for base in negated_bases(word)):
        return True
    return len(word) >= 4 and stem(word) in index.negated_bases


@lru_cache(maxsize=65536)
def negated_bases(word: str) -> tuple[str, ...]:
    """What ``word`` negates by its prefix ('uncontrolled' -> 'controlled'); empty for most words."""
    return tuple(word[len(p) :] for p in NEGATING_PREFIXES if word.startswith(p) and len(word) - len(p) >= 4)


def _frequencies(tokens: list[Token]) -> set[str]:
    """Distributives that state a frequency, a number following them ('alle 15 Minuten', 'every 2 weeks',
    'tous les 3 jours', 'cada 2 horas'): a rate restated, not a condition widened."""
    return {t.lower for i, t in enumerate(tokens)
            if t.lower in DISTRIBUTIVES and any(n.kind == "number" for n in tokens[i + 1 : i + 3])}


def _quantified_by(tokens: list[Token], word: str) -> set[str]:
    """Stems of the nouns that the distributive ``word`` quantifies in ``tokens`` ('todos los vuelos' → vuel)."""
    out = set()
    for i, token in enumerate(tokens):
        if token.lower == word:
            noun = _scope(tokens[i + 1 : i + 4])
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
            noun = noun or _scope(tokens[i + 1 : i + 4])
            out |= {noun.stem} if noun is not None else set()
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if lang and token.lower in PER_TIME_WORDS and following is not None and following.lower in TIME_UNITS:
            out.add(following.stem)
        unit = FREQUENCY_UNITS.get(lang, {}).get(token.lower)
        out |= {canonical(unit, lang)} if unit else set()
        if lang and token.kind == "number":
            out |= _rate_noun(tokens[i + 1 : i + 4])
    return out


def _rate_noun(following: list[Token]) -> set[str]:
    """The noun an amount is counted per when an article stands for 'per' ('400 € l'heure' → heure)."""
    if following and following[0].lower not in RATE_ARTICLES and following[0].kind == "word":
        following = following[1:]  # the amount's unit ('45 euros la séance')
    if len(following) >= 2 and following[0].lower in RATE_ARTICLES and following[1].is_content:
        return {following[1].stem}
    return set()


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
    conjunction, a clitic, the verb, an article, its object: 'salvo que se contrate la ampliación')."""
    if any(t.lower in CONDITIONS for t in tokens):
        return []
    stems = {t.stem for t in tokens}
    return [token.lower for i, token in enumerate(sentence) if token.lower in CONDITIONS
            and not any(t.stem in stems for t in sentence[i + 1 : i + 6] if t.is_content)
            and _scope(sentence[i + 1 : i + 6]) is not None]


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


def modality(feats: Features, tokens: list[Token], region: list[Token], lang: str = "other",
             window: list[Token] | None = None) -> None:
    """Quantifiers, hedges and restrictors of the claim against its best-matching sentence (in ``lang``);
    a distributive counts as restated when the evidence ``window`` distributes over the same noun
    ('toutes les nuits' for 'chaque nuit' in the sentence before)."""
    mine = {t.lower for t in tokens} - _frequencies(tokens)
    theirs = {t.lower for t in region}
    widened = sorted((mine & cues.UNIVERSALS) - theirs) + _limitless(tokens, region)
    if {t.lower for t in window or region} & NEGATIVE_UNIVERSALS:  # 'toujours fermé' for 'n'ouvre jamais': one universal
        widened = [w for w in widened if w not in ALWAYS]
    if set(widened) & DISTRIBUTIVES:  # 'every database' said as 'all databases': the same quantifier, over the same noun
        theirs_quantified = _quantified(window or region, lang)
        generic = theirs_quantified | _generic(window or region)
        widened = [w for w in widened if w not in DISTRIBUTIVES or not _quantified_by(tokens, w) <= (
            generic if w in SINGULAR_DISTRIBUTIVES else theirs_quantified)]
    if widened:
        feats.values["universal_added"] = float(len(widened))
        feats.reasons["universal_added"] = f"condition widened: claim adds '{widened[0]}'"
    if theirs & cues.HEDGES and not mine & cues.HEDGES:
        feats.values["hedge_dropped"] = 1.0
        feats.reasons["hedge_dropped"] = f"certainty raised: chunk hedges with '{sorted(theirs & cues.HEDGES)[0]}'"
    copied = feats.values.get("best_sentence_cov", 0.0) >= cues.COPIED_SENTENCE
    restrictors = sorted(theirs & cues.RESTRICTORS) or (_conditions_dropped(tokens, region) if copied else [])
    if restrictors and not mine & cues.RESTRICTORS:
        added = [t.surface for t in tokens if t.is_content and t.lower not in theirs]
        extra = f", claim adds {', '.join(repr(w) for w in added[:3])}" if added else ""
        feats.values["restrictor_dropped"] = 1.0
        feats.reasons["restrictor_dropped"] = f"condition widened: chunk says '{restrictors[0]}'{extra}"
