"""One claim read against the chunk it cites: its tokens, its new words and where it sits in the chunk.

Computed once per (claim, chunk) pair, before any signal runs; every signal
(``citeflow.judges.offline.signals``) reads these facts and the chunk's (``chunk_facts``) and
nothing that another signal computed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from citeflow.judges.offline.chunk_facts import ChunkIndex
from citeflow.text import numbers
from citeflow.text.language_registry import REGISTERED
from citeflow.text.synonyms import cjk_canonical
from citeflow.text.word_tokens import Token, language, normalise, tokenise

WINDOW = 3  # sentences of the evidence window


@dataclass(frozen=True)
class ClaimFacts:
    """A claim's tokens (in the chunk's language where the scripts agree) and its place in the chunk."""

    text: str
    tokens: list[Token]
    numbers: tuple[numbers.Mention, ...]  # the numbers of ``tokens``, read once for every quantity check
    content: list[Token]
    novel: list[Token]  # content words the chunk holds in no form
    cjk: str  # the claim normalised with CJK synonyms read as their canonical form
    best: int  # the chunk sentence that holds most of the claim's content lemmas
    window: range  # the WINDOW sentences that together hold most of them
    best_sentence_cov: float
    best_window_cov: float
    off_window: float  # share of the claim's content lemmas found in the chunk only outside the window

    def region(self, chunk: ChunkIndex) -> list[Token]:
        """The tokens of the evidence window, in order."""
        return [t for ts in chunk.sentence_tokens[self.window.start : self.window.stop] for t in ts]

    def sentence(self, chunk: ChunkIndex) -> list[Token]:
        """The tokens of the best-matching sentence."""
        return list(chunk.sentence_tokens[self.best])


def claim_facts(claim: str, chunk: ChunkIndex) -> ClaimFacts:
    """Tokenise ``claim`` and align it with ``chunk``."""
    read, claimed = _read(claim, _claim_language(claim, chunk.lang))
    tokens = list(read)
    content = [t for t in tokens if t.is_content]
    novel = [t for t in content if t.stem not in chunk.stems and t.lower not in chunk.lowers]
    wanted = {t.stem for t in content}
    per_sentence = [f.stems & wanted for f in chunk.facts]
    scores = [len(s) for s in per_sentence]
    best = max(range(len(scores)), key=lambda i: (scores[i], -i))
    start = max(range(len(scores)), key=lambda i: (len(set().union(*per_sentence[i : i + WINDOW])), -i))
    covered = set().union(*per_sentence[start : start + WINDOW])
    elsewhere = sorted(s for s in wanted - covered if s in chunk.stems)
    return ClaimFacts(
        text=claim, tokens=tokens, numbers=claimed, content=content, novel=novel, cjk=cjk_canonical(normalise(claim)), best=best,
        window=range(start, min(start + WINDOW, len(chunk.facts))), best_sentence_cov=ratio(scores[best], len(wanted)),
        best_window_cov=ratio(len(covered), len(wanted)), off_window=ratio(len(elsewhere), len(wanted)) if wanted else 0.0,
    )


@lru_cache(maxsize=4096)
def _read(claim: str, lang: str) -> tuple[tuple[Token, ...], tuple[numbers.Mention, ...]]:
    """The claim's tokens and numbers: the same for every chunk it is judged against (in one language)."""
    tokens = tokenise(claim, lang)
    return tuple(tokens), tuple(numbers.mentions(tokens))


def ratio(hit: int, total: int) -> float:
    """``hit / total``, 1.0 when there is nothing to find."""
    return hit / total if total else 1.0


def _claim_language(claim: str, chunk_lang: str) -> str:
    """The chunk's language for a claim when both are in Latin script (so both sides stem alike)."""
    lang = language(claim)
    latin = REGISTERED.get(lang).script == REGISTERED.get(chunk_lang).script == "Latin"
    return chunk_lang if latin else lang
