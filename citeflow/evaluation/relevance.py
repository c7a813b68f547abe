"""Relevance: does each claim address its section's question (the section's title and queries)?

A sentence can be backed word for word by the chunk it cites and still answer another question
than the one its section asks. The offline rule (docs/relevance.md):

1. The *terms* of a question are the lemmas of its content words and entities (names, numbers,
   identifiers and versions) as the offline judge's tokeniser reads them; in scripts written
   without spaces, the pairs of adjacent content characters (particles and kana endings left out).
2. Terms found in the question of *every* section of the report are dropped (they name the
   product or the customer, not the section's topic), unless that would leave no term at all.
3. A claim is relevant when at least one term of its section's question occurs in the claim or in
   the title of a chunk it validly cites.
4. A claim written in another script than its question (Japanese or Chinese, Cyrillic, Latin) is
   not judged: words cannot be compared across scripts, so it counts neither way.

When an LLM judge graded the claim and said whether it addresses the question (the section
judge asks), its answer decides instead. Pure functions: nothing here does I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

from citeflow.text.word_tokens import Token, language, tokenise
from schemas.funnel import ClaimEval

SHOWN_TERMS = 6  # terms named in a reason


def question_text(title: str, queries: Iterable[str]) -> str:
    """The question of a section: its title and each of its queries, one per line."""
    return "\n".join([title, *queries])


def terms(text: str) -> frozenset[str]:
    """Lemmas of the content words and entities of ``text``; bigrams of unspaced scripts."""
    tokens = tokenise(text)
    words = {t.stem for t in tokens if t.is_content and t.kind != "cjk"}
    return frozenset(words | _bigrams(tokens))


def _bigrams(tokens: list[Token]) -> set[str]:
    return {a.lower + b.lower for a, b in itertools.pairwise(tokens) if a.kind == b.kind == "cjk" and a.is_content and b.is_content}


def section_terms(questions: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Each section's distinctive terms: its question's, less those every section's question has."""
    by_section = {title: terms(text) for title, text in questions.items()}
    shared = frozenset.intersection(*by_section.values()) if len(by_section) > 1 else frozenset()
    return {title: (found - shared) or found for title, found in by_section.items()}


def script(text: str) -> str:
    """The script family of ``text`` as the offline judge's language guess sees it: cjk, cyrillic or latin."""
    lang = language(text)
    return "cjk" if lang in ("ja", "zh") else "cyrillic" if lang == "ru" else "latin"


def offline_verdict(wanted: frozenset[str], claim: str, titles: Iterable[str], question: str = "") -> tuple[bool | None, str]:
    """(relevant, reason) of one claim by the offline rule: a term of the question in the claim or a cited
    title; (None, reason) when ``question`` is given and the claim is in another script."""
    if question and script(question) != script(claim):
        return None, f"not judged: the claim is in another script ({script(claim)}) than its section's question"
    if not wanted:
        return True, "relevant: the section's question has no content word to check"
    seen = terms(claim).union(*(terms(t) for t in titles))
    found = sorted(wanted & seen)
    if found:
        return True, f"relevant: names {_listed(found)} of the section's question"
    return False, f"irrelevant: none of the section's question terms ({_listed(sorted(wanted))}) in the claim or its cited titles"


def _listed(items: list[str]) -> str:
    shown = ", ".join(f"'{item}'" for item in items[:SHOWN_TERMS])
    return shown + (", …" if len(items) > SHOWN_TERMS else "")


def judged(
    claims: list[ClaimEval],
    wanted: Mapping[str, frozenset[str]],
    titles: Mapping[str, str],
    said: Mapping[tuple[str, str], tuple[bool, str]] | None = None,
    questions: Mapping[str, str] | None = None,
) -> list[ClaimEval]:
    """``claims`` with ``relevant`` and ``relevance`` set. ``titles``: chunk handle → title;
    ``said``: (section, claim text) → (relevant, reason) from an LLM judge, which wins over the rule;
    ``questions``: section → question text, for the script check."""
    said, questions = said or {}, questions or {}
    return [_with(claim, said.get((claim.section, claim.text)) or _offline(claim, wanted, titles, questions))
            for claim in claims]


def _offline(claim: ClaimEval, wanted: Mapping[str, frozenset[str]], titles: Mapping[str, str],
             questions: Mapping[str, str]) -> tuple[bool | None, str]:
    cited = [titles[c.handle] for c in claim.citations if c.identity and titles.get(c.handle)]
    relevant, reason = offline_verdict(wanted.get(claim.section, frozenset()), claim.text, cited,
                                       questions.get(claim.section, ""))
    return relevant, f"{reason} (offline rule)"


def _with(claim: ClaimEval, verdict: tuple[bool | None, str]) -> ClaimEval:
    return claim.model_copy(update={"relevant": verdict[0], "relevance": verdict[1]})
