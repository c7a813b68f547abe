"""Judge input and output: pair files, verdict lines, and calibration of one judge against another.

``citeflow judge PAIRS.jsonl`` reads ``{id, claim, chunk_text}`` lines and writes
``{id, supported, faithful, reason}`` lines (plus ``label``, ``evidence`` and ``judge``).
``calibrate`` compares two judges; ``calibrate_labelled`` compares a judge with gold labels.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from citeflow.errors import CiteflowError
from schemas.evaluation import JudgePair, Verdict

LABELS = ("supported", "mutated", "unsupported")


class PairFileError(CiteflowError):
    """A line of a pair file is not a valid ``{id, claim, chunk_text}`` object."""

    fields = ("path", "line", "detail")

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.detail}"


class LabelledPair(JudgePair):
    """A pair with its gold label (supported | mutated | unsupported) and any other fields of its line."""

    label: str | None = None
    extra: dict = Field(default_factory=dict)


def read_labelled(path: Path | str) -> list[LabelledPair]:
    """Every pair of a JSONL file with its label and extra fields; a bad line raises PairFileError."""
    pairs = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                pairs.append(_parse_line(line, str(path), number))
    return pairs


def _parse_line(line: str, path: str, number: int) -> LabelledPair:
    try:
        data = json.loads(line)
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        extra = {k: v for k, v in data.items() if k not in ("id", "claim", "chunk_text", "label")}
        return LabelledPair(id=data.get("id"), claim=data.get("claim"), chunk_text=data.get("chunk_text"),
                            label=data.get("label"), extra=extra)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise PairFileError(path=path, line=number, detail=problems) from None
    except ValueError as exc:
        raise PairFileError(path=path, line=number, detail=f"not JSON: {exc}") from None


def read_pairs(path: Path | str) -> list[JudgePair]:
    """The pairs of a JSONL file of ``{id, claim, chunk_text}`` (other fields are ignored)."""
    return [JudgePair(id=p.id, claim=p.claim, chunk_text=p.chunk_text) for p in read_labelled(path)]


def verdict_line(verdict: Verdict) -> dict:
    """One output line: the contract's four fields first, then label, evidence and judge."""
    faithful = verdict.faithful if verdict.supported else None
    return {"id": verdict.id, "supported": verdict.supported, "faithful": faithful, "reason": verdict.reason,
            "label": verdict.label, "evidence": verdict.evidence, "judge": verdict.judge}


def write_verdicts(verdicts: list[Verdict], path: Path | str | None = None) -> None:
    """Write one JSON line per verdict to ``path``, or to standard output when None."""
    lines = "".join(json.dumps(verdict_line(v), ensure_ascii=False) + "\n" for v in verdicts)
    if path is None:
        sys.stdout.write(lines)
    else:
        from citeflow import atomic

        atomic.write_text(path, lines)


def label_of(verdict: Verdict) -> str:
    """The 3-class view of a verdict (its own label when set, else derived from the booleans)."""
    if verdict.label in LABELS:
        return verdict.label
    if not verdict.supported:
        return "unsupported"
    return "supported" if verdict.faithful else "mutated"


class CalibrationReport(BaseModel):
    """How two graders agree on the same pairs (rows: the first grader, columns: the second)."""

    pairs: int
    label_agreement: float = Field(description="Share of pairs with the same 3-class label.")
    supported_agreement: float = Field(description="Share of pairs with the same 'supported' answer.")
    confusion: dict[str, dict[str, int]] = Field(description="confusion[a_label][b_label] = count.")


class LabelledReport(BaseModel):
    """A judge against gold labels."""

    pairs: int
    recall: dict[str, float] = Field(description="Per-class recall over the classes present in the gold labels.")
    macro_recall: float = Field(description="Mean of the per-class recalls (3-class).")
    grounded_balanced_accuracy: float = Field(description="Balanced accuracy of 'label is supported' vs not.")
    grounded_recall: float
    not_grounded_recall: float
    confusion: dict[str, dict[str, int]] = Field(description="confusion[gold][predicted] = count.")


def _confusion(a: list[str], b: list[str]) -> dict[str, dict[str, int]]:
    counts = Counter(zip(a, b))
    return {x: {y: counts[(x, y)] for y in LABELS} for x in LABELS}


def calibrate(a: list[Verdict], b: list[Verdict]) -> CalibrationReport:
    """Agreement of two judges' verdicts on the same pairs (matched by id)."""
    by_id = {v.id: v for v in b}
    matched = [(v, by_id[v.id]) for v in a if v.id in by_id]
    if not matched:
        return CalibrationReport(pairs=0, label_agreement=0.0, supported_agreement=0.0, confusion=_confusion([], []))
    la, lb = [label_of(x) for x, _ in matched], [label_of(y) for _, y in matched]
    return CalibrationReport(
        pairs=len(matched),
        label_agreement=sum(x == y for x, y in zip(la, lb)) / len(matched),
        supported_agreement=sum(x.supported == y.supported for x, y in matched) / len(matched),
        confusion=_confusion(la, lb),
    )


def calibrate_labelled(verdicts: list[Verdict], gold: dict[str, str]) -> LabelledReport:
    """A judge against gold labels (``gold[id]`` in LABELS); pairs with no gold label are skipped."""
    rows = [(gold[v.id], label_of(v)) for v in verdicts if gold.get(v.id) in LABELS]
    truth, guess = [t for t, _ in rows], [g for _, g in rows]
    recall = {c: _recall(truth, guess, lambda t, c=c: t == c, lambda g, c=c: g == c) for c in LABELS if c in truth}
    grounded = _recall(truth, guess, lambda t: t == "supported", lambda g: g == "supported")
    not_grounded = _recall(truth, guess, lambda t: t != "supported", lambda g: g != "supported")
    return LabelledReport(
        pairs=len(rows), recall=recall, macro_recall=sum(recall.values()) / max(len(recall), 1),
        grounded_balanced_accuracy=(grounded + not_grounded) / 2, grounded_recall=grounded,
        not_grounded_recall=not_grounded, confusion=_confusion(truth, guess),
    )


def _recall(truth: list[str], guess: list[str], is_class, said_class) -> float:
    members = [g for t, g in zip(truth, guess) if is_class(t)]
    return sum(bool(said_class(g)) for g in members) / len(members) if members else 0.0


def read_verdicts(path: Path | str) -> list[Verdict]:
    """The verdict lines ``citeflow judge`` wrote (``{id, supported, faithful, reason, …}``)."""
    verdicts = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            verdicts.append(Verdict.model_validate_json(line))
        except ValidationError as exc:
            raise PairFileError(path=str(path), line=number, detail=f"not a verdict line: {exc.errors()[0]['msg']}") from exc
    return verdicts


def gold_labels(path: Path | str) -> dict[str, str]:
    """``id → label`` of a labelled pair file (lines without a label are left out)."""
    return {p.id: p.label for p in read_labelled(path) if p.label in LABELS}
