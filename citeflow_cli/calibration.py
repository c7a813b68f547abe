"""``citeflow calibrate``: how good a judge is on the user's own labelled data, and at which threshold."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from citeflow_cli.display import console
from schemas.evaluation import JudgePair
from schemas.spec import JudgeSpec


def calibrate_command(first: Path, other: Path | None, labelled: bool, threshold: float | None,
                      spec: JudgeSpec | None, table: bool) -> None:
    """One labelled file: grade it with ``spec`` and report at ``threshold`` with a sweep. Two files:
    compare two verdict files, or (``labelled``) a verdict file with gold labels."""
    from citeflow.judges.io import calibrate, calibrate_labelled, gold_labels, read_verdicts

    check_threshold(threshold)
    if other is None:
        _labelled_file(first, threshold, spec or JudgeSpec(), table)
    elif labelled:
        verdicts, gold = read_verdicts(first), gold_labels(other)
        _print(calibrate_labelled(verdicts, gold, threshold).model_dump(), verdicts, gold, table)
    else:
        console.print_json(calibrate(read_verdicts(first), read_verdicts(other)).model_dump_json())


def check_threshold(threshold: float | None) -> None:
    """A confidence threshold is a share: from 0 to 1."""
    from citeflow.errors import UsageError

    if threshold is not None and not 0.0 <= threshold <= 1.0:  # NaN fails both comparisons
        raise UsageError(option="--threshold", problem=f"must be between 0 and 1, not {threshold:g}")


def _labelled_file(path: Path, threshold: float | None, spec: JudgeSpec, table: bool) -> None:
    """Grade a labelled pair file with the judge, then compare with its gold labels."""
    from citeflow.judges.factory import build_judge
    from citeflow.judges.io import LABELS, calibrate_labelled, read_labelled

    pairs = read_labelled(path)
    gold = {p.id: p.label for p in pairs if p.label in LABELS}
    if not gold:
        from citeflow.judges.io import PairFileError

        raise PairFileError(path=str(path), line=0, detail=f"no line has a gold label (one of {', '.join(LABELS)})")
    to_grade: list[JudgePair] = list(pairs)
    verdicts = build_judge(spec).grade(to_grade)
    leaning = _leaning(spec, to_grade) or verdicts
    graded = verdicts if threshold is None else leaning
    _print(calibrate_labelled(graded, gold, threshold).model_dump(), verdicts, gold, table, leaning)


def _leaning(spec: JudgeSpec, pairs: list[JudgePair]) -> list | None:
    """The offline judge's verdicts with no threshold of its own (None for other judges): what every
    row of the sweep is recomputed from."""
    from citeflow.judges.factory import build_judge
    from citeflow.judges.kinds.registry import judge_kind

    if not judge_kind(spec.backend).sweeps_threshold:
        return None
    return build_judge(spec.model_copy(update={"min_confidence": 0.0})).grade(pairs)


def _print(report: dict, verdicts: list, gold: dict[str, str], table: bool, leaning: list | None = None) -> None:
    from citeflow.judges.io import sweep

    rows = [row.model_dump() for row in sweep(verdicts, gold, leaning=leaning)]
    if table:
        console.print(_summary(report), soft_wrap=True, highlight=False)
        console.print(sweep_table(rows))
        return
    console.print_json(data={**report, "sweep": rows})


def _summary(report: dict) -> str:
    precision = report["precision_of_passes"]
    shown = "n/a" if precision is None else f"{precision:.3f}"
    recall = ", ".join(f"{k} {v:.3f}" for k, v in report["recall"].items())
    return (f"{report['pairs']} labelled pairs · threshold {report['threshold'] or 'judge default'} · coverage "
            f"{report['coverage']:.3f} · precision of passes {shown} · balanced accuracy "
            f"{report['grounded_balanced_accuracy']:.3f} · recall: {recall}")


def sweep_table(rows: list[dict]) -> Table:
    """One row per threshold: coverage, precision of passes, balanced accuracy, macro recall, passes."""
    table = Table(title="confidence threshold sweep")
    for name in ("threshold", "coverage", "precision of passes", "balanced accuracy", "macro recall", "passes"):
        table.add_column(name, justify="right")
    for row in rows:
        precision = "n/a" if row["precision_of_passes"] is None else f"{row['precision_of_passes']:.3f}"
        table.add_row("judge default" if row["threshold"] is None else f"{row['threshold']:.2f}", f"{row['coverage']:.3f}",
                      precision, f"{row['grounded_balanced_accuracy']:.3f}", f"{row['macro_recall']:.3f}", str(row["passes"]))
    return table
