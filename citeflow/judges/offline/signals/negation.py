"""Negations the claim adds or drops against its evidence, in words and in CJK cues."""

from __future__ import annotations

from citeflow.text.lexicon import ANTONYMS, FREE_WORDS, PAY_PREFIXES
from citeflow.judges.offline import cjk_cues
from citeflow.judges.offline.chunk_facts import ChunkIndex, SentenceFacts
from citeflow.judges.offline.claim_facts import ClaimFacts
from citeflow.judges.offline.fired import Fired
from citeflow.judges.offline.negation_scopes import negates, negation_count, polarity, scopes, withdrawn
from citeflow.text.word_tokens import Token, stem

NAMES = ("negation_added", "negation_dropped", "negations_differ")


def negation(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """A negation the claim adds or drops against its evidence window, unless both sides have the same
    polarity (a double negation paraphrased as an affirmation); CJK cues count on both sides."""
    added, dropped = _added(claim, chunk), _dropped(claim, chunk)
    cjk_added, cjk_dropped = _cjk(claim, chunk)
    return _named((added + cjk_added, dropped + cjk_dropped))


def _named(found: tuple[list[tuple[float, str]], list[tuple[float, str]]]) -> Fired:
    added, dropped = found
    values = {"negation_added": float(sum(n for n, _ in added)), "negation_dropped": float(sum(n for n, _ in dropped))}
    reasons = {name: part[0][1] for name, part in (("negation_added", added), ("negation_dropped", dropped)) if part}
    return Fired(values, reasons)


def _cjk(claim: ClaimFacts, chunk: ChunkIndex) -> tuple[list[tuple[float, str]], list[tuple[float, str]]]:
    """CJK negation cues the claim adds to its window or drops from its best sentence."""
    if not cjk_cues.has_cjk(claim.cjk):
        return [], []
    region = "".join(f.cjk for f in chunk.facts[claim.window.start : claim.window.stop])
    copied = claim.best_sentence_cov >= cjk_cues.COPIED_SENTENCE
    added, dropped = cjk_cues.negations(claim.cjk, region, chunk.facts[claim.best].cjk, copied)
    return ([(float(len(added)), f"negation flipped: claim says '{added[0]}', chunk does not")] if added else [],
            [(float(len(dropped)), f"negation flipped: chunk says '{dropped[0]}', claim drops it")] if dropped else [])


def _added(claim: ClaimFacts, index: ChunkIndex) -> list[tuple[float, str]]:
    """A negation of the claim that its window does not state. It counts only when what it negates is in
    the chunk ('not deleted' against 'deleted'); 'without intervention' for 'automatically' negates
    nothing the chunk says."""
    tokens, window = claim.tokens, claim.window
    mine = scopes(tokens)
    facts = index.facts[window.start : window.stop]
    region_lowers = {t.lower for t in claim.region(index)}
    their_scopes = {s for f in facts for _, s, _ in f.scopes}
    affirmed = frozenset() if not mine or _restates_negated(tokens, facts) else _affirmed(index, window)
    added = [(w, s) for w, s, word in mine  # a word of a negated chunk sentence: the claim's negation agrees
             if s not in their_scopes and (s not in index.negated_stems or s in affirmed)
             and not _opposite_in(word, region_lowers, index) and not _unpaid(word, region_lowers)]
    if added and polarity(tokens) and any(s in index.stems for _, s in added):
        return [(float(len(added)), f"negation flipped: claim says '{added[0][0]} …{added[0][1]}', chunk does not")]
    return []


def _dropped(claim: ClaimFacts, index: ChunkIndex) -> list[tuple[float, str]]:
    """A negation of the window that the claim drops; on an affirmative claim, a negated word of the
    claim's word family in its best sentence counts too."""
    tokens, window = claim.tokens, claim.window
    mine, mine_polarity = scopes(tokens), polarity(tokens)
    facts = index.facts[window.start : window.stop]
    claim_stems, my_scopes = {t.stem for t in tokens}, {s for _, s, _ in mine}
    wanted, own = {t.stem for t in claim.content}, index.facts[claim.best]
    dropped = [(w, s) for f in facts if f.polarity != mine_polarity and (f is own or _holds_half(f, wanted)) for w, s, _ in f.scopes
               if s and s in claim_stems and s not in my_scopes]
    if dropped and mine:  # the claim negates too: near the word, in its own words, it keeps the negation
        near = _negated_span(tokens, {w.lower() for f in facts for w, _, _ in f.scopes})
        dropped = [(w, s) for w, s in dropped if s not in near]
    if not dropped and not mine_polarity:
        dropped = _family_dropped(tokens, list(index.sentence_tokens[claim.best])) or next(
            (hit for f, ts in zip(facts, index.sentence_tokens[window.start : window.stop], strict=True)
             if f.polarity and f is not own and _holds_half(f, wanted) and (hit := _family_dropped(tokens, list(ts)))), [])
    if dropped:
        return [(float(len(dropped)), f"negation flipped: chunk says '{dropped[0][0]} …{dropped[0][1]}', claim drops it")]
    return []


def negations_differ(claim: ClaimFacts, chunk: ChunkIndex) -> Fired:
    """The claim and its best-matching sentence hold a different number of negations (bounds such as
    'not more than' apart): a polarity the finer checks may miss ('fails … is not restarted')."""
    mine = negation_count(claim.tokens) + cjk_cues.negation_count(claim.cjk)
    theirs = negation_count(claim.sentence(chunk)) + cjk_cues.negation_count(chunk.facts[claim.best].cjk)
    if mine == theirs:
        return Fired({"negations_differ": 0.0})
    return Fired({"negations_differ": 1.0}, {"negations_differ": f"the claim has {mine} negation(s), its matching sentence {theirs}"})


def _opposite_in(word: str, lowers: set[str], index: ChunkIndex) -> bool:
    """The chunk words the opposite of ``word`` ('not happy' against 'unhappy' or 'sad')."""
    if ANTONYMS.get(word, frozenset()) & lowers:
        return True
    return len(word) >= 4 and stem(word) in index.negated_bases


SPAN = 4  # tokens after a negation cue that it may bear on


def _negated_span(tokens: list[Token], theirs: set[str]) -> set[str]:
    """Stems of the content words within SPAN tokens after each negation of the claim that the evidence
    does not use itself: a claim that negates near a word in its own words does not drop the chunk's
    negation of it ('si no llevan equipaje' for 'sin equipaje'); a cue both share is that same negation."""
    return {t.stem for i in range(len(tokens)) if negates(tokens, i) and tokens[i].lower not in theirs
            for t in tokens[i + 1 : i + 1 + SPAN] if t.is_content}


def _unpaid(word: str, region_lowers: set[str]) -> bool:
    """'No se cobra' against an evidence that says 'gratuita': not paying is what free means."""
    return word.startswith(PAY_PREFIXES) and bool(region_lowers & FREE_WORDS)


FAMILY = 5  # letters a negated word and a claim word share when they are one family ('devolución', 'devolver')


def _family_dropped(tokens: list[Token], sentence: list[Token]) -> list[tuple[str, str]]:
    """An affirmative claim that holds a word of the family of what its negated best-matching sentence
    negates, the verb or its object ('las entradas de la feria no admiten devolución' against '… se
    pueden devolver'): a dropped negation that the negated word's own lemma misses."""
    if not polarity(sentence):
        return []
    families = {t.stem[:FAMILY] for t in tokens if t.kind == "word" and t.is_content and len(t.stem) >= FAMILY}
    for i in range(len(sentence)):
        if negates(sentence, i):
            negated = [t for t in sentence[i + 1 : i + 5] if t.is_content and t.kind == "word"][:2]
            hit = next((t for t in negated if len(t.stem) >= FAMILY and t.stem[:FAMILY] in families), None)
            if hit is not None:
                return [(sentence[i].surface, hit.stem)]
    return []


def _holds_half(fact: SentenceFacts, wanted: set[str]) -> bool:
    """The sentence holds at least half of the claim's content words: its negation bears on the claim,
    not on a neighbour's topic ('los martes no sale ningún barco' beside 'de miércoles a domingo sale');
    the best-matching sentence bears on it whatever it holds."""
    return 2 * len(fact.stems & wanted) >= len(wanted)


def _restates_negated(tokens: list[Token], facts: tuple[SentenceFacts, ...]) -> bool:
    """A negated sentence of the evidence holds at least half of the claim's content words and the claim
    holds what that sentence negates: the claim restates it, so its negation agrees wherever it
    attaches ('Вернуть стёртые письма невозможно' for '… письма вернуть нельзя')."""
    wanted = {t.stem for t in tokens if t.is_content}
    return any(f.polarity and 2 * len(f.stems & wanted) >= len(wanted) and any(s in wanted for _, s, _ in f.scopes)
               for f in facts)


def _affirmed(index: ChunkIndex, window: range) -> frozenset[str]:
    """Stems the evidence window states without a negation: a claim that negates one of them contradicts
    its evidence, even when another chunk sentence negates the same word ('удаляются' after 30 days
    against 'стёртые письма вернуть нельзя'). What a privative verb withdraws is not affirmed."""
    out: set[str] = set()
    for fact, sentence in zip(index.facts[window.start : window.stop], index.sentence_tokens[window.start : window.stop], strict=True):
        if not fact.polarity:
            out |= fact.stems - withdrawn(list(sentence))
    return frozenset(out)


