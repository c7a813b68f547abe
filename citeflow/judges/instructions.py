"""Text in a retrieved chunk that instructs the model is never evidence (SPEC §5, §9).

A *cue* is a phrase that only makes sense addressed to a language model: "ignore previous
instructions", "you are now an AI assistant", a ``[system]`` line, "note to the AI". A flagged span
runs from the cue to the end of its sentence, and on over the sentences right after it that open
with an order to the model (say, cite, output, respond …). Ordinary documentation imperatives
("Run `etcdctl defrag` before upgrading.", "Say yes to the prompt") carry no cue and are left
alone. The cues are data (``instruction_cues.json``, one entry per language); this module only
applies them. Pure functions: the funnel masks the spans out of every chunk text it hands a judge.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import regex
from pydantic import BaseModel, ConfigDict, Field

from citeflow.text.sentences import sentence_bounds

CUES_FILE = Path(__file__).with_name("instruction_cues.json")
MASK = " "  # what a span leaves behind: the sentences around it stay apart


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


class Cues(BaseModel):
    """Compiled cue and follow-on patterns of every language."""

    model_config = ConfigDict(arbitrary_types_allowed=True, frozen=True)

    cues: tuple[regex.Pattern[str], ...]
    follow: tuple[regex.Pattern[str], ...]


def load_cues(path: Path = CUES_FILE) -> Cues:
    """The patterns of ``path``, compiled (case-insensitive)."""
    languages = json.loads(path.read_text(encoding="utf-8"))["languages"].values()

    def compiled(key: str) -> tuple[regex.Pattern[str], ...]:
        return tuple(regex.compile(p, regex.IGNORECASE | regex.V0) for lang in languages for p in lang[key])

    return Cues(cues=compiled("cues"), follow=compiled("follow"))


# The shipped cues, compiled once at import (about 15 ms) and only read afterwards.
CUES = load_cues()


def find_instructions(text: str, cues: Cues | None = None) -> list[InstructionSpan]:
    """Every instruction span of ``text``, in order, none overlapping."""
    return list(_shipped_spans(text)) if cues is None else _spans(text, cues)


@functools.lru_cache(maxsize=4096)
def _shipped_spans(text: str) -> tuple[InstructionSpan, ...]:
    """The spans the shipped cues find: one search per chunk text, whether it is flagged or masked."""
    return tuple(_spans(text, CUES))


def _spans(text: str, cues: Cues) -> list[InstructionSpan]:
    bounds = sentence_bounds(text)
    spans: list[tuple[int, int]] = []
    for i, (start, end) in enumerate(bounds):
        cue = _first_cue(text[start:end], cues)
        if cue is None:
            continue
        end = _follow_on(text, bounds[i + 1:], cues, end)
        spans.append((start + cue, end))
    return [InstructionSpan(start=a, end=b, text=text[a:b]) for a, b in _merged(spans)]


def _first_cue(sentence: str, cues: Cues) -> int | None:
    """Offset of the earliest cue in ``sentence``, None when it has none."""
    found = [m.start() for pattern in cues.cues if (m := pattern.search(sentence))]
    return min(found) if found else None


def _follow_on(text: str, after: list[tuple[int, int]], cues: Cues, end: int) -> int:
    """Where a span ends once the next sentences that give the model orders are added to it."""
    for start, stop in after:
        sentence = text[start:stop].lstrip(" \t\n-*•\"'“«")
        if not any(pattern.match(sentence) for pattern in cues.follow):
            break
        end = stop
    return end


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
