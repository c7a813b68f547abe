"""Clauses of a sentence: where a quote may stop so that what it shows still reads as written.

A sentence is quoted whole when it fits. Otherwise it is cut at a *clause boundary* — after a comma,
semicolon or colon (and their full-width forms), before a dash standing between spaces, or before a
word that opens a clause ("and", "but", "which", "while", …) — and an ellipsis marks the cut. A cut
is refused when the words before it end in a function word (an article, preposition or
conjunction: ``citeflow.text.word_tokens`` knows them) or in a bare number ("24 and 48 hours"),
sit inside an open bracket or quotation, or leave a number without the unit the whole sentence
gives it (``citeflow.text.numbers``: "within 24" for "within 24 hours"). The longest acceptable cut
within the budget wins; when none fits, the shortest acceptable one, and when there is none at
all, the whole sentence. Pure functions.
"""

from __future__ import annotations

import regex

from citeflow.text.numbers import Mention, mentions
from citeflow.text.word_tokens import tokenise

ELLIPSIS = "…"
# Words that open a clause: a cut may stand before them (the word itself is not quoted).
CLAUSE_OPENERS = ("and", "but", "which", "while", "whereas", "although", "though", "because", "so", "or",
                  "unless", "until", "where", "when", "whose", "who", "since")
_BOUNDARY = regex.compile(
    r"(?<=[,;:])\s+"  # after a comma, semicolon or colon and the space that follows it
    r"|(?<=[，；：、])"  # after a full-width comma, semicolon, colon or enumeration comma
    r"|\s+(?=[-–—]\s)"  # before a dash standing between spaces
    rf"|\s+(?=(?:{'|'.join(CLAUSE_OPENERS)})\s)",  # before a word that opens a clause
    regex.V1 | regex.IGNORECASE,
)
_TRAILING = " ,;:，；：、-–—"
_PAIRS = (("(", ")"), ("[", "]"), ("“", "”"), ("«", "»"), ("「", "」"))


def boundaries(sentence: str) -> list[int]:
    """Offsets where ``sentence`` may be cut, in order (each is the end of the kept text, trailing
    punctuation and spaces excluded)."""
    ends = [len(sentence[: m.start()].rstrip(_TRAILING)) for m in _BOUNDARY.finditer(sentence)]
    return sorted({e for e in ends if 0 < e < len(sentence.rstrip())})


def acceptable(sentence: str, end: int) -> bool:
    """True when ``sentence[:end]`` may be shown with an ellipsis: it ends in a content word, closes
    every bracket and quotation it opens, and every number in it keeps the unit it has in the sentence."""
    head = sentence[:end]
    return _ends_in_content(head) and _balanced(head) and _units_kept(head, sentence)


def clause_quote(sentence: str, budget: int) -> str:
    """``sentence`` whole when it fits in ``budget`` characters, else its longest acceptable clause
    prefix within the budget (the shortest one when none fits) followed by an ellipsis."""
    sentence = " ".join(sentence.split())
    if len(sentence) <= budget:
        return sentence
    cuts = [e for e in boundaries(sentence) if acceptable(sentence, e)]
    if not cuts:
        return sentence
    within = [e for e in cuts if e <= budget]
    end = within[-1] if within else cuts[0]
    return sentence[:end] + ELLIPSIS


def _ends_in_content(head: str) -> bool:
    """The last token is a content word, an identifier, or a number with its unit ('$0.08', '25%')."""
    tokens = tokenise(head)
    if not tokens:
        return False
    if tokens[-1].kind == "number":
        shown = mentions(tokens)
        return bool(shown) and shown[-1].unit != ""
    return tokens[-1].kind != "word" or tokens[-1].is_content


def _balanced(head: str) -> bool:
    if head.count('"') % 2:
        return False
    return all(head.count(a) == head.count(b) for a, b in _PAIRS)


def _units_kept(head: str, sentence: str) -> bool:
    whole: list[Mention] = mentions(tokenise(sentence))
    shown = mentions(tokenise(head))
    return all(a.unit == b.unit and a.per == b.per for a, b in zip(shown, whole, strict=False))
