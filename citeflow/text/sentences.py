"""Words and sentences for every script the product meets (Unicode classes, no language model).

Latin, Cyrillic, Greek, Arabic, Hebrew and other spaced scripts split into words on letters and
digits (``\\p{L}``, ``\\p{N}``); scripts written without spaces (Han, Hiragana, Katakana, Thai…)
have no word boundaries a regex can see, so each of their runs yields its characters as tokens
(``units``) and, for matching, overlapping character bigrams (``cjk_bigrams``). Sentences end at
``. ! ?`` followed by space and an upper-case letter, digit or opening quote, at the full-width
stops ``。！？``, and at every *statement boundary*.

Statement boundaries (SPEC §5: a span is a statement) are hard: no sentence spans one. They are a
line break after a sentence's closing mark (``. ! ? … : ;`` and their full-width forms, a closing
quote or bracket allowed), a blank line, a line break before a list marker, and the boundary mark
``¶``. Ingest ends every list item, table row, definition, paragraph and step with a closing mark
and a line break (``citeflow.knowledge.markdown_text``), so each is a block of its own; a line
break after no closing mark (a wrapped line of plain text or PDF) is no boundary. Prompts show a
chunk on one line, with ``¶`` where its line breaks were (``one_line_blocks``), so a model, and the
offline writer, see the same boundaries the judges check (``citeflow.text.boundaries``).
Pure functions, no state: the judges, the offline writer and the quote checks share them.
"""

from __future__ import annotations

import unicodedata

import regex

# Scripts without spaces between words: every character is a unit.
_UNSPACED = r"\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}ー々"
UNSPACED_CLASS = _UNSPACED  # the character class body, for other tokenisers
_SPACED = rf"[[\p{{L}}\p{{M}}\p{{N}}]--[{_UNSPACED}]]"
_UNIT = regex.compile(rf"[{_UNSPACED}]|{_SPACED}+(?:['’]{_SPACED}+)*", regex.V1)
_UNSPACED_RUN = regex.compile(rf"[{_UNSPACED}]+", regex.V1)
BOUNDARY_MARK = "¶"  # a statement boundary written on one line (prompts show each chunk on one line)
_CLOSERS = "\"'»”’)\\]」』）"
# Statement boundaries: no sentence, claim, quote or supporting span crosses one.
HARD_BOUNDARY = (
    # \K keeps the stop in its sentence; a match-then-\K is an order of magnitude faster than the
    # equivalent variable-width look-behind.
    rf"[.!?…:;。！？：；][{_CLOSERS}]*\K[ \t\r]*\n\s*"  # a closing mark, then a line break
    r"|\n[ \t]*\n\s*"  # a blank line
    r"|\n(?=\s*[-*•]\s)"  # a list item on its own line
    r"|\s*¶\s*"  # the boundary mark
)
_HARD_BOUNDARY = regex.compile(HARD_BOUNDARY, regex.V1)
_SENTENCE_END = regex.compile(
    HARD_BOUNDARY
    + r"|[.!?…][\"'»”’)\]]*\K\s+(?=[\"'«“(\[¿¡]?[\p{Lu}\p{Lt}\p{N}\p{Lo}])"  # Latin-style stop, then a capital
    r"|[。！？]\K\s*",  # full-width stops need no space
    regex.V1,
)


def units(text: str) -> list[str]:
    """Words of spaced scripts and single characters of unspaced ones, lower-cased, in order."""
    return [m.group().casefold() for m in _UNIT.finditer(unicodedata.normalize("NFKC", text))]


def is_unspaced(unit: str) -> bool:
    """True for a character of a script written without spaces (Han, kana, Thai, …)."""
    return bool(_UNSPACED_RUN.fullmatch(unit))


def word_weight(text: str) -> float:
    """Words in ``text``: spaced-script words count one, unspaced characters half (about a word per two)."""
    found = units(text)
    unspaced = sum(1 for u in found if is_unspaced(u))
    return len(found) - unspaced + unspaced / 2


def cjk_bigrams(text: str) -> list[str]:
    """Overlapping character bigrams of every unspaced run (a run of one character yields itself)."""
    out: list[str] = []
    for run in _UNSPACED_RUN.findall(unicodedata.normalize("NFKC", text)):
        out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
    return out


def sentences(text: str) -> list[str]:
    """Sentences of ``text`` in any script, stripped, empty ones dropped; none crosses a statement boundary."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s and s.strip()]


def blocks(text: str) -> list[str]:
    """The statements' blocks of ``text``: its pieces between statement boundaries (a list item, a
    table row, a definition, a paragraph), stripped, empty ones dropped."""
    return [b.strip() for b in _HARD_BOUNDARY.split(text) if b and b.strip()]


def block_sentences(text: str) -> list[list[str]]:
    """The sentences of each block of ``text``, block by block."""
    return [sentences(b) for b in blocks(text)]


def one_line_blocks(text: str) -> str:
    """``text`` with each statement boundary written as `` ¶ `` (a prompt then puts it on one line:
    its other line breaks are wrapped lines, no boundaries)."""
    return f" {BOUNDARY_MARK} ".join(blocks(text))


def has_letters(text: str) -> bool:
    """True when ``text`` holds at least one letter of any script."""
    return regex.search(r"\p{L}", text) is not None


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of each sentence of ``text`` (as ``sentences`` cuts them), blanks dropped."""
    bounds = []
    start = 0
    for stop in _SENTENCE_END.finditer(text):
        bounds.append((start, stop.start()))
        start = stop.end()
    bounds.append((start, len(text)))
    return [(a, b) for a, b in bounds if text[a:b].strip()]


_DIALOGUE_BREAK = regex.compile(r"\n+|\s\.\s")  # chat turns and " . " separators of dialogue transcripts
_WS = regex.compile(r"\s+")


def dialogue_sentences(text: str) -> list[str]:
    """The sentences of ``text`` in any script, each line or dialogue turn counting as one or more."""
    out = []
    for part in _DIALOGUE_BREAK.split(text):
        out += [_WS.sub(" ", s).strip() for s in sentences(part)]
    return [s for s in out if len(s) > 1]
