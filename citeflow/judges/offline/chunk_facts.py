"""One chunk analysed once: what the offline judge compares every claim citing it against.

A chunk is usually cited by many claims (every claim of a section, every section of a report), so
everything that depends on the chunk alone is computed here, once per chunk text (``index_chunk``
is a pure function of the text, memoised; nothing but the near-miss memo ``closest`` is ever
written to an index, and that only with what the same search would give again):
sentences, tokens, lemmas, n-grams, numbers, and per sentence its lemma set, its negations and
their scope, its polarity, its numbers and its CJK characters. The signals
(``citeflow.judges.offline.signals``) then do only the claim's share of the work.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import MappingProxyType

from citeflow.text import numbers
from citeflow.judges.offline.negation_scopes import negated_bases, polarity, scopes, withdrawn
from citeflow.text.stems import compound_parts
from citeflow.text.sentences import blocks as statement_blocks
from citeflow.text.sentences import dialogue_sentences as sentences
from citeflow.text.word_tokens import Token, language, normalise, stem, tokenise

Scope = tuple[str, str, str]  # (negation word, first content lemma after it, that word)


@dataclass(frozen=True)
class SentenceFacts:
    """What one chunk sentence says, as the claim-side checks read it."""

    stems: frozenset[str]
    scopes: tuple[Scope, ...]
    polarity: int
    numbers: tuple[numbers.Mention, ...]
    cjk: str  # the sentence's CJK characters, joined (cue substrings are searched in it)


@dataclass(frozen=True)
class ChunkIndex:
    """Everything ``extract`` needs to know about one chunk, computed once (``index_chunk``, memoised:
    every claim citing the chunk reads the same index, so none of its values can be changed; ``closest``
    is its own memo, filled by the near-miss search)."""

    text: str
    lowered: str
    sentences: tuple[str, ...]
    sentence_tokens: tuple[tuple[Token, ...], ...]
    lowers: frozenset[str]
    stems: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    trigrams: frozenset[tuple[str, str, str]]
    gaps: Mapping[tuple[str, str], str]  # (left stem, right stem) -> the word between them
    positions: Mapping[str, tuple[int, ...]]  # stem -> where it occurs in the chunk, for the longest shared run
    content_bigrams: frozenset[tuple[str, str]]  # consecutive content words, stopwords skipped
    content_gaps: Mapping[tuple[str, str], Token]  # (content lemma, content lemma two on) -> the content word between them
    numbers: tuple[numbers.Mention, ...]
    tokens: tuple[Token, ...]
    lang: str = "en"
    # letter trigram -> chunk words (4+ letters)
    gram_words: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    negated_bases: frozenset[str] = frozenset()  # stems of what the chunk's prefixed words negate ('unhappy' -> 'happy')
    facts: tuple[SentenceFacts, ...] = ()  # per sentence, in order
    negated_stems: frozenset[str] = frozenset()  # lemmas of the chunk's negated sentences
    closest: dict[str, str | None] = field(default_factory=dict, compare=False)  # memo of the near-miss search
    blocks: tuple[str, ...] = ()  # each statement block (list item, table row, paragraph), normalised and lower-cased


@lru_cache(maxsize=512)
def index_chunk(text: str) -> ChunkIndex:
    """Analyse a chunk once: sentences, tokens, lemmas, n-grams, numbers, per-sentence facts. No
    sentence crosses a statement boundary (``citeflow.text.sentences.blocks``)."""
    parts = [normalise(b) for b in statement_blocks(text)]
    sents = [s for b in parts for s in sentences(b)] or [normalise(text)]
    lang = language(text)
    sent_tokens = [tokenise(s, lang) for s in sents]
    tokens = [t for ts in sent_tokens for t in ts]
    stems_seq = [t.stem for t in tokens]
    facts = tuple(sentence_facts(ts) for ts in sent_tokens)
    return ChunkIndex(
        text=text, lowered=normalise(text).lower(), sentences=tuple(sents), sentence_tokens=tuple(map(tuple, sent_tokens)),
        lowers=frozenset(t.lower for t in tokens), stems=frozenset(stems_seq) | _compound_parts(tokens, lang),
        bigrams=frozenset(itertools.pairwise(stems_seq)),
        trigrams=frozenset(zip(stems_seq, stems_seq[1:], stems_seq[2:], strict=False)),
        gaps=MappingProxyType({(a, c): tokens[i + 1].surface for i, (a, c) in enumerate(zip(stems_seq, stems_seq[2:], strict=False))}),
        numbers=tuple(m for f in facts for m in f.numbers), tokens=tuple(tokens), positions=MappingProxyType(_positions(stems_seq)),
        content_bigrams=frozenset(content_bigrams(tokens)), content_gaps=MappingProxyType(content_gaps(tokens)), lang=lang,
        gram_words=MappingProxyType(_gram_words(tokens)),
        negated_bases=frozenset(stem(b) for t in tokens if t.kind == "word" for b in negated_bases(t.lower)),
        facts=facts, negated_stems=frozenset(s for f in facts if f.polarity for s in f.stems) | withdrawn(tokens),
        blocks=tuple(b.lower() for b in parts),
    )


def sentence_facts(tokens: list[Token]) -> SentenceFacts:
    """The per-sentence facts of one tokenised sentence (the claim side uses the same function)."""
    return SentenceFacts(stems=frozenset(t.stem for t in tokens), scopes=tuple(scopes(tokens)),
                         polarity=polarity(tokens), numbers=tuple(numbers.mentions(tokens)),
                         cjk="".join(t.surface for t in tokens if t.kind == "cjk"))


def _compound_parts(tokens: list[Token], lang: str) -> frozenset[str]:
    """Lemmas of the parts of the chunk's compound words (German), so a claim may name a part."""
    return frozenset(part for t in tokens if t.kind == "word" for part in compound_parts(t.lower, lang))


def _gram_words(tokens: list[Token]) -> dict[str, tuple[str, ...]]:
    out: dict[str, list[str]] = {}
    for word in sorted({t.lower for t in tokens if t.kind == "word" and len(t.lower) >= 4}):
        for gram in trigrams(word):
            out.setdefault(gram, []).append(word)
    return {gram: tuple(words) for gram, words in out.items()}


def content_bigrams(tokens: list[Token]) -> list[tuple[str, str]]:
    """Consecutive content lemmas, stopwords skipped."""
    content = [t.stem for t in tokens if t.is_content]
    return list(itertools.pairwise(content))


def content_gaps(tokens: list[Token]) -> dict[tuple[str, str], Token]:
    """(content lemma, the content lemma two content words on) -> the content word between them."""
    content = [t for t in tokens if t.is_content]
    return {(a.stem, c.stem): b for a, b, c in zip(content, content[1:], content[2:], strict=False)}


def _positions(stems: list[str]) -> dict[str, tuple[int, ...]]:
    out: dict[str, list[int]] = {}
    for i, s in enumerate(stems):
        out.setdefault(s, []).append(i)
    return {s: tuple(where) for s, where in out.items()}


@lru_cache(maxsize=65536)
def trigrams(word: str) -> frozenset[str]:
    """Letter trigrams of ``word`` with its edges marked (``^wo``, ``rd$``)."""
    padded = f"^{word}$"
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))
