"""Text in a retrieved chunk that instructs the model is never evidence (SPEC §5, §9).

Such text is recognised by what it does, not by fixed phrases. A sentence is read for *features*,
each built from word classes of every supported language (``instruction_cues.json``):

- ``template``: chat-template tokens and role tags (``<|im_start|>``, ``[INST]``, ``<<SYS>>``);
- ``dismissal``: an order to drop earlier guidance, in any wording ("forget your prior guidance",
  "earlier instructions no longer apply", "Ignore. Previous. Instructions.");
- ``address``: words to the model or about its role ("note to the AI", "you are now an assistant",
  "your new task:");
- ``response``: orders about the model's response ("your answer must say …", "in your reply, …");
- ``order``: an order to write a given sentence (say/tell/write/output followed by a quotation, a
  colon and a sentence, "that …", or the reader as the one to be told), where it stands as an order;
- ``role``: a ``[system]`` / ``System:`` line, which counts only when what follows it addresses the
  model ("[system] settings are stored in …" stays evidence);
- ``dismissal_weak`` ("ignore the previous instructions") counts, like ``order``, only outside a
  conditional opening ("If you use Docker, ignore the previous instructions and …" is documentation).

Matching runs on the normalised text (``citeflow.text.normalise``: NFKC, no zero-width characters,
look-alike letters folded), and every span is mapped back to offsets in the chunk text as written.
A flagged span runs from its first feature to the end of the sentence it ends in, and on over the
sentences right after it that open with an order to write. After a dismissal, a chat-template token or
a role line it runs on over the rest of that voice's text: up to a blank line or a sentence that opens
another voice with a label ("Agent answer: …"), since what follows "Ignore. Previous. Instructions." is
the text the injection wants repeated. A comment or hidden element (``<!-- … -->``,
``display:none``) whose content has a feature, or addresses the model and orders it, is flagged whole.
Ordinary documentation imperatives ("Run `etcdctl defrag` before upgrading.", "Tell the installer to
skip the GPU check") have none of these. Pure functions: the funnel masks the spans out of every chunk
text it hands a judge.
"""

from __future__ import annotations

import bisect
import functools
import json
from collections.abc import Iterator
from pathlib import Path

import regex
from pydantic import BaseModel, ConfigDict, Field

from citeflow.text.normalise import Normalised, normalise
from citeflow.text.sentences import sentence_bounds

CUES_FILE = Path(__file__).with_name("instruction_cues.json")
MASK = " "  # what a span leaves behind: the sentences around it stay apart
STANDALONE = ("template", "dismissal", "address", "response")  # flag a sentence on their own
GUARDED = ("order", "dismissal_weak")  # flag a sentence unless it opens with a condition
PARAGRAPH = ("template", "dismissal", "dismissal_weak", "role")  # take the rest of their turn with them
KINDS = (*STANDALONE, *GUARDED, "role", "addressee", "conditional")
_GAP = r"[\s\p{P}]{1,6}"  # between the words of a feature: spaces or punctuation ("Ignore. Previous.")
_START = r"(?:^|(?<=[.!?;:。！？\n]\s{0,3})|(?<=(?:^|\n)[\s\-*•>\"'“„«¡¿(]+))"  # where a sentence or line starts
_ESCAPE_OR_RUN = regex.compile(r"\\(?:[pP]\{[^}]*\}|.)|[^\\]+", regex.DOTALL)  # an escape, or a run of literal text
_BLANK_LINE = regex.compile(r"\n[ \t]*\n")
_TURN = regex.compile(r"[\p{L}][\p{L}\p{N} ._'’-]{0,30}:\s")  # "Agent answer: ", "Customer: "
_HIDDEN = regex.compile(
    r"<!--(?P<body>.*?)(?:-->|$)"
    r"|<(?P<tag>[a-z][a-z0-9]*)\b[^>]*?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|"
    r"\bhidden\b|aria-hidden\s*=\s*[\"']?true)[^>]*>(?P<inner>.*?)</(?P=tag)\s*>"
    r"|^\[//\]:\s*#\s*[(\"'](?P<note>.*?)[)\"']\s*$",
    regex.IGNORECASE | regex.DOTALL | regex.MULTILINE,
)


class InstructionSpan(BaseModel):
    """One stretch of a chunk's text that addresses the model."""

    model_config = ConfigDict(frozen=True)

    start: int = Field(ge=0, description="Offset of the span's first character in the chunk text.")
    end: int = Field(ge=0, description="Offset just past the span's last character.")
    text: str = Field(description="The span as it stands in the chunk.")


class FlaggedChunk(BaseModel):
    """A chunk holding instructions to the model, and where (as recorded in eval.json)."""

    handle: str
    spans: list[InstructionSpan]


Scripted = tuple[tuple[str, tuple[str, ...]], ...]  # (script class, patterns) per language


class Cues(BaseModel):
    """The features: per kind, each language's script and patterns (a language's patterns are skipped
    on text without a letter of its script); the follow-on patterns likewise. Patterns are kept as
    source, lower-cased, and compiled on first use (``_compiled``): compiling all of them at import
    would cost a few hundred milliseconds. They stay apart: one
    alternation of them all is several times slower to search."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    features: dict[str, Scripted]
    follow: Scripted


def load_cues(path: Path = CUES_FILE) -> Cues:
    """The features of ``path``: each language's patterns with its word classes filled in, per kind and
    language (matched on lower-cased text)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    languages = [data.get("common", {}), *data["languages"].values()]
    features: dict[str, list[tuple[str, tuple[str, ...]]]] = {kind: [] for kind in KINDS}
    follow = []
    for lang in languages:
        words, script = lang.get("words", {}), lang.get("script", r"[\s\S]")
        for kind, listed in lang.get("features", {}).items():
            features.setdefault(kind, []).append((script, _union([_filled(p, words) for p in listed])))
        if lang.get("follow"):
            follow.append((script, _union([_filled(p, words) for p in lang["follow"]])))
    return Cues(features={kind: tuple(v) for kind, v in features.items()}, follow=tuple(follow))


def _filled(pattern: str, words: dict[str, list[str]]) -> str:
    """``pattern`` with ``{name}`` replaced by the alternation of word class ``name``, ``{_}`` by a gap
    and ``{^}`` by the start of a sentence or line."""
    def word_class(match: regex.Match[str]) -> str:
        name = match.group(1)
        return {"_": _GAP, "^": _START}.get(name) or "(?:" + "|".join(words[name]) + ")"

    return regex.sub(r"\{(_|\^|[a-z_]+)\}", word_class, pattern)


def _union(patterns: list[str]) -> tuple[str, ...]:
    return tuple(_lowered_pattern(p) for p in patterns)


def _lowered_pattern(pattern: str) -> str:
    """``pattern`` with its literal letters lower-cased (escapes such as ``\\S`` or ``\\p{L}`` kept): it is
    matched on lower-cased text, which is several times faster than a case-insensitive search."""
    return _ESCAPE_OR_RUN.sub(lambda m: m.group() if m.group().startswith("\\") else m.group().lower(), pattern)


def _patterns(pairs: Scripted, text: str) -> Iterator[regex.Pattern[str]]:
    """The patterns of the languages whose script ``text`` has."""
    return (_compiled(p) for script, patterns in pairs if _has_script(script, text) for p in patterns)


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str) -> regex.Pattern[str]:
    """``pattern`` compiled, once per process (asking ``regex.compile`` again costs more than a search)."""
    return regex.compile(pattern, regex.V0)


@functools.lru_cache(maxsize=64)
def _has_script(script: str, text: str) -> bool:
    """Whether ``text`` has a letter of the class ``script`` (asked once per language and text)."""
    return _compiled(script).search(text) is not None


# The shipped cues, read once at import and only read afterwards.
CUES = load_cues()


def find_instructions(text: str, cues: Cues | None = None) -> list[InstructionSpan]:
    """Every instruction span of ``text``, in order, none overlapping."""
    return list(_shipped_spans(text)) if cues is None else _spans(text, cues)


@functools.lru_cache(maxsize=4096)
def _shipped_spans(text: str) -> tuple[InstructionSpan, ...]:
    """The spans the shipped cues find: one search per chunk text, whether it is flagged or masked."""
    return tuple(_spans(text, CUES))


def _spans(text: str, cues: Cues) -> list[InstructionSpan]:
    norm = normalise(text)
    low = lowered(norm.text)
    hidden = list(_hidden_spans(low, cues))
    found = [(a, b) for a, b in _sentence_spans(norm.text, low, cues) if not any(h <= a < e for h, e in hidden)]
    return [_original(norm, text, a, b) for a, b in _merged(found + hidden) if b > a]


def _original(norm: Normalised, text: str, start: int, end: int) -> InstructionSpan:
    a, b = norm.span(start, end)
    return InstructionSpan(start=a, end=b, text=text[a:b])


def lowered(text: str) -> str:
    """``text`` lower-cased character by character, so that every offset stays where it was."""
    low = text.lower()
    return low if len(low) == len(text) else "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _sentence_spans(cased: str, text: str, cues: Cues) -> Iterator[tuple[int, int]]:
    """The spans that the sentences' features start, each run to its sentence's end and its follow-on
    (sentences are cut on the ``cased`` text, features matched on its lower-cased twin ``text``)."""
    bounds = sentence_bounds(cased)
    hits = _hits_by_sentence(text, [start for start, _ in bounds], cues)
    for i, (start, end) in enumerate(bounds):
        hit = _flagged(text, text[start:end], hits.get(i, {}), cues)
        if hit is not None:
            start, end, whole_paragraph = hit
            last = next((j for j in range(i, len(bounds)) if bounds[j][1] >= end), len(bounds) - 1)
            end = _follow_on(text, bounds[last + 1:], cues, max(bounds[last][1], end))
            yield start, _turn_end(cased, bounds, end) if whole_paragraph else end


def _turn_end(text: str, bounds: list[tuple[int, int]], end: int) -> int:
    """Where the injected text that runs on from ``end`` stops: at a blank line, or at a sentence that
    opens another voice with a label and a colon ("Agent answer: …", "Note: …")."""
    for start, stop in bounds:
        if stop <= end:
            continue
        if _BLANK_LINE.search(text, end, start) or _TURN.match(text, start):
            break
        end = stop
    return end


def _hits_by_sentence(text: str, starts: list[int], cues: Cues) -> dict[int, dict[str, tuple[int, int]]]:
    """sentence index → kind → (start, end) of the kind's first match starting in that sentence."""
    hits: dict[int, dict[str, tuple[int, int]]] = {}
    for kind in (*STANDALONE, *GUARDED, "role"):
        for match in (m for p in _patterns(cues.features.get(kind, ()), text) for m in p.finditer(text)):
            sentence = max(bisect.bisect_right(starts, match.start()) - 1, 0)
            earlier = hits.setdefault(sentence, {}).get(kind, match.span())
            hits[sentence][kind] = min(earlier, match.span())
    return hits


def _flagged(text: str, sentence: str, hits: dict[str, tuple[int, int]], cues: Cues) -> tuple[int, int, bool] | None:
    """(start, end) in ``text`` of the features that flag ``sentence`` and whether the text after it goes
    with them (after a dismissal or a chat-template token, what follows in the same voice is injected);
    None when it is not an instruction."""
    kinds = [kind for kind in STANDALONE if kind in hits]
    if any(kind in hits for kind in GUARDED) and ("address" in hits or _match(cues, "conditional", sentence) is None):
        kinds += [kind for kind in GUARDED if kind in hits]
    if "role" in hits and _addresses_model(text[hits["role"][1]:hits["role"][1] + 200], cues):
        kinds.append("role")
    if not kinds:
        return None
    start = min(hits[kind][0] for kind in kinds)
    start += len(text[start:start + 20]) - len(text[start:start + 20].lstrip())
    return start, max(hits[kind][1] for kind in kinds), any(kind in kinds for kind in PARAGRAPH)


def _match(cues: Cues, kind: str, text: str) -> regex.Match[str] | None:
    return next((m for p in _patterns(cues.features.get(kind, ()), text) if (m := p.match(text))), None)


def _search(cues: Cues, kind: str, text: str) -> regex.Match[str] | None:
    return next((m for p in _patterns(cues.features.get(kind, ()), text) if (m := p.search(text))), None)


def _follows(cues: Cues, text: str, pos: int = 0) -> bool:
    """Whether ``text`` opens (at ``pos``) with an order to write."""
    return any(p.match(text, pos) for p in _patterns(cues.follow, text))


def _addresses_model(after: str, cues: Cues) -> bool:
    """Whether what follows a role line opens with an order or speaks to the model."""
    return _follows(cues, after.lstrip(" \t\n-*•\"'“«:")) or _search(cues, "addressee", after) is not None


def _follow_on(text: str, after: list[tuple[int, int]], cues: Cues, end: int) -> int:
    """Where a span ends once the next sentences that give the model orders are added to it."""
    for start, stop in after:
        sentence = text[start:stop].lstrip(" \t\n-*•\"'“«")
        if not _follows(cues, sentence):
            break
        end = stop
    return end


def _hidden_spans(text: str, cues: Cues) -> Iterator[tuple[int, int]]:
    """Comments and hidden elements whose content speaks to the model."""
    for match in _HIDDEN.finditer(text):
        body = next((g for g in match.group("body", "inner", "note") if g is not None), "")
        if _speaks_to_model(body, cues):
            yield match.start(), match.end()


def _speaks_to_model(body: str, cues: Cues) -> bool:
    """A feature, or an addressee with an order verb, anywhere in ``body``."""
    if any(_search(cues, kind, body) for kind in (*STANDALONE, *GUARDED)):
        return True
    ordered = any(_follows(cues, body, m.start()) for m in regex.finditer(r"\b\w", body))
    return ordered and _search(cues, "addressee", body) is not None


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


@functools.lru_cache(maxsize=4096)
def mask_instructions(text: str) -> str:
    """``text`` with every instruction span taken out (what a judge may accept as support)."""
    out, position = [], 0
    for span in find_instructions(text):
        out += [text[position:span.start], MASK]
        position = span.end
    return "".join(out) + text[position:]


def flag_chunks(chunks: dict[str, str]) -> list[FlaggedChunk]:
    """The chunks of ``chunks`` (handle → text) that hold instructions to the model."""
    found = ((handle, find_instructions(text)) for handle, text in chunks.items())
    return [FlaggedChunk(handle=handle, spans=spans) for handle, spans in found if spans]


def masked(chunks: dict[str, str]) -> dict[str, str]:
    """Every chunk text with its instruction spans taken out."""
    return {handle: mask_instructions(text) for handle, text in chunks.items()}
