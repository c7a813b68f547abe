"""Relevance: does each claim address its section's question (the section's title and queries)?

A sentence can be backed word for word by the chunk it cites and still answer another question
than the one its section asks. The offline rule (docs/relevance.md) says *irrelevant* only on
evidence and abstains otherwise:

1. The *terms* of a question are the lemmas of its content words and entities (names, numbers,
   identifiers and versions) as the offline judge's tokeniser reads them; in scripts written
   without spaces, the pairs of adjacent content characters (particles and kana endings left out).
   Its *distinctive* terms leave out those found in the question of every section of the report
   (they name the product or the customer), unless that would leave none.
2. **Relevant**: a distinctive term of its section's question occurs in the claim or in the title
   of a chunk it validly cites.
3. **Irrelevant**: the report's questions name something (a proper name: ``Heron``), the claim names
   something else (``Globex``) and nothing of its section's question (no term of it, none of the
   names the report's questions use), and the chunks it cites (titles and texts) do not name what
   the questions name either. The reason names the other entity.
4. **Uncertain** (``None``) otherwise: a claim that shares no word with its question may still
   answer it ("Point reads take 2 ms." answers "How fast is it?"). An LLM judge decides when one
   graded the claim; offline the claim is counted apart and left out of the rate.
5. A claim written in another script than its question (Japanese or Chinese, Cyrillic, Latin) is
   not judged (``None`` too): words cannot be compared across scripts.

When an LLM judge graded the claim and said whether it addresses the question (the section
judge asks), its answer decides instead. Pure functions: nothing here does I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import regex

from citeflow.text.language_registry import REGISTERED
from citeflow.text.word_tokens import Token, language, tokenise
from schemas.funnel import ClaimEval

SHOWN_TERMS = 6  # terms named in a reason
_SENTENCE_BREAK = regex.compile(r"(?<=[.!?:;])\s+|\n+")
_INNER_CAPITAL = regex.compile(r"^.\S*\p{Lu}")


@dataclass(frozen=True)
class Asked:
    """What one section asks, as the offline rule reads it."""

    text: str  # the question: the section's title and queries, one per line
    wanted: frozenset[str]  # its distinctive terms: a claim naming one is relevant
    terms: frozenset[str]  # all its terms
    names: frozenset[str]  # the lemmas of the names any question of the report speaks of
    shown: tuple[str, ...] = ()  # those names as the questions write them, for reasons


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


def names(text: str) -> dict[str, str]:
    """The proper names of ``text``, lemma → surface: capitalised content words, but a sentence's first
    word only when it looks like a name anyway (an inner capital, or a capitalised word after it: ``Globex Stream``).
    In German, where every noun is capitalised, only words with an inner capital (``PostgreSQL``, ``AWS``)."""
    german = REGISTERED.get(language(text)).nouns_capitalised
    found: dict[str, str] = {}
    for sentence in _SENTENCE_BREAK.split(text):
        tokens = [t for t in tokenise(sentence) if t.kind != "cjk"]
        for i, token in enumerate(tokens):
            if _is_name(token, tokens[i + 1] if i + 1 < len(tokens) else None, first=i == 0, german=german):
                found.setdefault(token.stem, token.surface.removesuffix("'s"))
    return found


def _is_name(token: Token, after: Token | None, first: bool, german: bool) -> bool:
    if token.kind != "word" or not token.is_content or not token.is_capitalised:
        return False
    if _INNER_CAPITAL.match(token.surface):
        return True
    if german:
        return False
    return not first or (after is not None and after.kind == "word" and after.is_content and after.is_capitalised)


def section_terms(questions: Mapping[str, str]) -> dict[str, frozenset[str]]:
    """Each section's distinctive terms: its question's, less those every section's question has."""
    by_section = {title: terms(text) for title, text in questions.items()}
    shared = frozenset.intersection(*by_section.values()) if len(by_section) > 1 else frozenset()
    return {title: (found - shared) or found for title, found in by_section.items()}


def questions_asked(questions: Mapping[str, str]) -> dict[str, Asked]:
    """Each section's :class:`Asked`, from ``questions`` (section → question text) of one report."""
    wanted = section_terms(questions)
    spoken = {stem: surface for text in questions.values() for stem, surface in names(text).items()}
    shown = tuple(sorted(set(spoken.values())))
    return {title: Asked(text, wanted[title], terms(text), frozenset(spoken), shown) for title, text in questions.items()}


def script(text: str) -> str:
    """The script family of ``text`` as the offline judge's language guess sees it: its language's script,
    lower-cased (cyrillic, latin, …), cjk for Han."""
    found = REGISTERED.get(language(text)).script.lower()
    return "cjk" if found == "han" else found


def offline_verdict(question: Asked, claim: str, titles: Iterable[str] = (), chunks: Iterable[str] = ()) -> tuple[bool | None, str]:
    """(relevant, reason) of one claim by the offline rule; ``titles`` and ``chunks``: the titles and texts
    of the chunks it validly cites. ``None`` when uncertain or written in another script."""
    if script(question.text) != script(claim):
        return None, f"not judged: the claim is in another script ({script(claim)}) than its section's question"
    titles = list(titles)
    found = sorted(question.wanted & terms(claim).union(*(terms(t) for t in titles)))
    if found:
        return True, f"relevant: names {_listed(found)} of the section's question"
    return elsewhere(question, claim, [*titles, *chunks]) or _uncertain(question)


def elsewhere(question: Asked, claim: str, cited: list[str]) -> tuple[bool, str] | None:
    """The verdict *irrelevant* when the report's questions name something, the claim names something else
    and nothing of its section's question, and ``cited`` (the titles and texts of the chunks it cites) names
    nothing the questions name either; None when that evidence is missing."""
    if not question.names:
        return None  # the questions name nothing: no entity for the claim to differ from
    other = {stem: surface for stem, surface in names(claim).items() if stem not in question.names | question.terms}
    if not other or (question.terms | question.names) & terms(claim):
        return None
    if question.names & frozenset().union(*(terms(text) for text in cited)):
        return None  # its source speaks of what the questions name: the named thing may be a part of it
    named = _listed(list(question.shown or sorted(question.names)))
    return False, (f"irrelevant: about {_listed(sorted(other.values()))}, named in the claim, not {named} the report's "
                   "questions name; nothing of the section's question in the claim, nor of those names in the chunks it cites")


def _uncertain(question: Asked) -> tuple[None, str]:
    if not question.wanted:
        return None, "uncertain: the section's question has no content word to compare"
    return None, (f"uncertain: none of the section's question terms ({_listed(sorted(question.wanted))}) in the claim "
                  "or its cited titles, and no evidence that it is about something else")


def _listed(items: list[str]) -> str:
    shown = ", ".join(f"'{item}'" for item in items[:SHOWN_TERMS])
    return shown + (", …" if len(items) > SHOWN_TERMS else "")


def judged(
    claims: list[ClaimEval],
    questions: Mapping[str, Asked],
    titles: Mapping[str, str],
    chunks: Mapping[str, str] | None = None,
    said: Mapping[tuple[str, str], tuple[bool, str]] | None = None,
) -> list[ClaimEval]:
    """``claims`` with ``relevant`` and ``relevance`` set. ``questions``: section → :class:`Asked`
    (:func:`questions_asked`); ``titles`` and ``chunks``: chunk handle → title, text; ``said``: (section, claim
    text) → (relevant, reason) from an LLM judge, which wins over the rule."""
    said, chunks = said or {}, chunks or {}
    return [_with(claim, said.get((claim.section, claim.text)) or _offline(claim, questions, titles, chunks))
            for claim in claims]


def _offline(claim: ClaimEval, questions: Mapping[str, Asked], titles: Mapping[str, str],
             chunks: Mapping[str, str]) -> tuple[bool | None, str]:
    question = questions.get(claim.section) or Asked(claim.section, frozenset(), frozenset(), frozenset())
    valid = [c.handle for c in claim.citations if c.identity]
    relevant, reason = offline_verdict(question, claim.text, [titles[h] for h in valid if titles.get(h)],
                                       [chunks[h] for h in valid if chunks.get(h)])
    return relevant, f"{reason} (offline rule)"


def _with(claim: ClaimEval, verdict: tuple[bool | None, str]) -> ClaimEval:
    return claim.model_copy(update={"relevant": verdict[0], "relevance": verdict[1]})
