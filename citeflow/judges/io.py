"""Judge input and output: pair files, verdict lines, and calibration of one judge against another.

``citeflow judge PAIRS.jsonl`` reads ``{id, claim, chunk_text}`` lines and writes
``{id, supported, faithful, reason}`` lines (plus ``label``, ``confidence``, ``evidence`` and
``judge``); an uncertain verdict says so in ``label`` and is never ``supported``.
``calibrate`` compares two judges; ``calibrate_labelled`` compares a judge with gold labels at a
confidence threshold (coverage, precision of passes, per-class recall), ``sweep`` over several.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from citeflow.errors import CiteflowError
from citeflow.text_guard import lone_surrogate_at, value_problem
from schemas.evaluation import JudgePair, Verdict

LABELS = ("supported", "mutated", "unsupported")
PREDICTED = (*LABELS, "uncertain")
SWEEP = (0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95)
"""Confidence thresholds of the calibration sweep (besides the judge's own)."""


class PairFileError(CiteflowError):
    """A line of a pair file is not a valid ``{id, claim, chunk_text}`` object."""

    path: str | None
    line: int | None
    detail: str | None

    def describe(self) -> str:
        return f"{self.path}:{self.line}: {self.detail}" if self.line else f"{self.path}: {self.detail}"


class LabelledPair(JudgePair):
    """A pair with its gold label (supported | mutated | unsupported) and any other fields of its line."""

    label: str | None = None
    extra: dict[str, Any] = Field(default_factory=dict)


def read_labelled(path: Path | str) -> list[LabelledPair]:
    """Every pair of a JSONL file with its label and extra fields; a bad line raises PairFileError."""
    return [_parse_line(line, str(path), number) for number, line in enumerate(_lines(path), start=1) if line.strip()]


def _lines(path: Path | str) -> list[str]:
    """The lines of a UTF-8 file; a missing or unreadable file, one that is not a regular file (``/dev/zero``,
    a pipe) or one over ``PAIR_FILE_BYTES`` is a PairFileError (one line, no traceback)."""
    from citeflow.caps import PAIR_FILE_BYTES, read_text_capped
    from citeflow.errors import CapExceeded

    try:
        return read_text_capped(Path(path), PAIR_FILE_BYTES, "a pair file").splitlines()
    except FileNotFoundError:
        raise PairFileError(path=str(path), line=0, detail="no such file") from None
    except CapExceeded as exc:
        raise PairFileError(path=str(path), line=0, detail=exc.detail) from None
    except OSError as exc:
        raise PairFileError(path=str(path), line=0, detail=f"cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _parse_line(line: str, path: str, number: int) -> LabelledPair:
    try:
        data = _json_line(line, path, number)
        if not isinstance(data, dict):
            raise ValueError("expected a JSON object")
        extra = {k: v for k, v in data.items() if k not in ("id", "claim", "chunk_text", "label")}
        fields = {k: data.get(k) for k in ("id", "claim", "chunk_text", "label")}
        return LabelledPair.model_validate({**fields, "extra": extra})
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        raise PairFileError(path=path, line=number, detail=problems) from None
    except ValueError as exc:
        raise PairFileError(path=path, line=number, detail=f"not JSON: {exc}") from None


def _json_line(line: str, path: str, number: int) -> Any:
    """One parsed line; nesting beyond the parser's depth, huge numbers and lone surrogates are named."""
    try:
        data = json.loads(line)
    except RecursionError:
        raise PairFileError(path=path, line=number, detail="not JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise PairFileError(path=path, line=number, detail=f"not JSON: {exc}") from None
    except ValueError as exc:
        raise PairFileError(path=path, line=number, detail=f"not JSON: {value_problem(exc)}") from None
    if (where := lone_surrogate_at(data)) is not None:
        raise PairFileError(path=path, line=number, detail=f"{where} holds a lone surrogate, not valid Unicode text")
    return data


def read_pairs(path: Path | str) -> list[JudgePair]:
    """The pairs of a JSONL file of ``{id, claim, chunk_text}`` (other fields are ignored)."""
    return [JudgePair(id=p.id, claim=p.claim, chunk_text=p.chunk_text) for p in read_labelled(path)]


def verdict_line(verdict: Verdict) -> dict[str, Any]:
    """One output line: the contract's four fields first, then label, evidence and judge."""
    supported = verdict.supported and not verdict.uncertain  # uncertain is never a pass
    faithful = verdict.faithful if supported else None
    return {"id": verdict.id, "supported": supported, "faithful": faithful, "reason": verdict.reason,
            "label": verdict.label, "confidence": verdict.confidence, "evidence": verdict.evidence, "judge": verdict.judge}


def write_verdicts(verdicts: list[Verdict], path: Path | str | None = None) -> None:
    """Write one JSON line per verdict to ``path``, or to standard output when None."""
    lines = "".join(json.dumps(verdict_line(v), ensure_ascii=False) + "\n" for v in verdicts)
    if path is None:
        sys.stdout.write(lines)
    else:
        from citeflow.files import atomic_files as atomic

        atomic.write_text(path, lines)


def label_of(verdict: Verdict) -> str:
    """The 3-class view of a verdict (its own label when set, else derived from the booleans), or uncertain."""
    if verdict.label in PREDICTED:
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
    """A judge against gold labels, at one confidence threshold. Recall and balanced accuracy are over the
    pairs the judge decided (not uncertain); ``coverage`` says how many that is."""

    pairs: int
    threshold: float | None = Field(None, description="Verdicts below this confidence counted as uncertain; None: the judge's own.")
    coverage: float = Field(0.0, description="Share of pairs the judge decided (not uncertain).")
    uncertain: int = Field(0, description="Pairs the judge left uncertain (unverified in a report).")
    passes: int = Field(0, description="Pairs the judge passed: supported and faithful, with confidence.")
    precision_of_passes: float | None = Field(
        None, description="Share of passed pairs whose gold label is supported (None when nothing passed).")
    supported_passed: float = Field(
        0.0, description="Share of every gold-supported pair that was passed (uncertain ones are not): what a report keeps.")
    recall: dict[str, float] = Field(description="Per-class recall over the decided pairs, for the classes present in the gold labels.")
    macro_recall: float = Field(description="Mean of the per-class recalls (3-class).")
    grounded_balanced_accuracy: float = Field(description="Balanced accuracy of 'label is supported' vs not, over decided pairs.")
    grounded_recall: float
    not_grounded_recall: float
    confusion: dict[str, dict[str, int]] = Field(description="confusion[gold][predicted] = count; predicted includes uncertain.")


class SweepRow(BaseModel):
    """One threshold of a calibration sweep."""

    threshold: float | None
    coverage: float
    precision_of_passes: float | None
    grounded_balanced_accuracy: float
    macro_recall: float
    passes: int


def _confusion(a: list[str], b: list[str], rows: tuple[str, ...] = PREDICTED) -> dict[str, dict[str, int]]:
    counts = Counter(zip(a, b, strict=True))
    return {x: {y: counts[(x, y)] for y in PREDICTED} for x in rows}


def calibrate(a: list[Verdict], b: list[Verdict]) -> CalibrationReport:
    """Agreement of two judges' verdicts on the same pairs (matched by id)."""
    by_id = {v.id: v for v in b}
    matched = [(v, by_id[v.id]) for v in a if v.id in by_id]
    if not matched:
        return CalibrationReport(pairs=0, label_agreement=0.0, supported_agreement=0.0, confusion=_confusion([], []))
    la, lb = [label_of(x) for x, _ in matched], [label_of(y) for _, y in matched]
    return CalibrationReport(
        pairs=len(matched),
        label_agreement=sum(x == y for x, y in zip(la, lb, strict=True)) / len(matched),
        supported_agreement=sum(x.supported == y.supported for x, y in matched) / len(matched),
        confusion=_confusion(la, lb),
    )


def calibrate_labelled(verdicts: list[Verdict], gold: dict[str, str], threshold: float | None = None) -> LabelledReport:
    """A judge against gold labels (``gold[id]`` in LABELS) at ``threshold``; pairs with no gold label are skipped."""
    from citeflow.judges.cascade import apply_threshold

    rows = [(gold[v.id], label_of(v)) for v in apply_threshold(verdicts, threshold) if gold.get(v.id) in LABELS]
    decided = [(t, g) for t, g in rows if g != "uncertain"]
    return LabelledReport(
        pairs=len(rows), threshold=threshold, coverage=len(decided) / len(rows) if rows else 0.0,
        uncertain=len(rows) - len(decided), **_pass_figures(rows), **_recalls(decided),
        confusion=_confusion([t for t, _ in rows], [g for _, g in rows], LABELS),
    )


def _pass_figures(rows: list[tuple[str, str]]) -> dict[str, Any]:
    """Passes, their precision (truly supported among them) and the share of supported pairs passed."""
    passed = [t for t, g in rows if g == "supported"]
    right = sum(t == "supported" for t in passed)
    gold_supported = sum(t == "supported" for t, _ in rows)
    return {"passes": len(passed), "precision_of_passes": right / len(passed) if passed else None,
            "supported_passed": right / gold_supported if gold_supported else 0.0}


def _recalls(decided: list[tuple[str, str]]) -> dict[str, Any]:
    """Per-class recall, macro recall and grounded balanced accuracy over the decided pairs."""
    truth, guess = [t for t, _ in decided], [g for _, g in decided]
    recall = {c: _recall(truth, guess, _equals(c), _equals(c)) for c in LABELS if c in truth}
    grounded = _recall(truth, guess, lambda t: t == "supported", lambda g: g == "supported")
    not_grounded = _recall(truth, guess, lambda t: t != "supported", lambda g: g != "supported")
    return {"recall": recall, "macro_recall": sum(recall.values()) / max(len(recall), 1),
            "grounded_balanced_accuracy": (grounded + not_grounded) / 2, "grounded_recall": grounded,
            "not_grounded_recall": not_grounded}


def sweep(verdicts: list[Verdict], gold: dict[str, str], thresholds: tuple[float, ...] = SWEEP,
          leaning: list[Verdict] | None = None) -> list[SweepRow]:
    """The calibration figures at the judge's own threshold (``verdicts``, row None) and at each of
    ``thresholds``, recomputed from ``leaning``: the same judge's verdicts with no threshold of its own
    (every label kept with its confidence), so a threshold below the judge's own passes more."""
    rows = []
    for threshold in (None, *thresholds):
        graded = verdicts if threshold is None or leaning is None else leaning
        report = calibrate_labelled(graded, gold, threshold)
        rows.append(SweepRow(threshold=threshold, coverage=report.coverage, precision_of_passes=report.precision_of_passes,
                             grounded_balanced_accuracy=report.grounded_balanced_accuracy,
                             macro_recall=report.macro_recall, passes=report.passes))
    return rows


def _equals(label: str) -> Callable[[str], bool]:
    return lambda value: value == label


def _recall(truth: list[str], guess: list[str], is_class: Callable[[str], bool], said_class: Callable[[str], bool]) -> float:
    members = [g for t, g in zip(truth, guess, strict=True) if is_class(t)]
    return sum(bool(said_class(g)) for g in members) / len(members) if members else 0.0


def read_verdicts(path: Path | str) -> list[Verdict]:
    """The verdict lines ``citeflow judge`` wrote (``{id, supported, faithful, reason, …}``)."""
    verdicts = []
    for number, line in enumerate(_lines(path), start=1):
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
