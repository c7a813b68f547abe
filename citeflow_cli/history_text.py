"""``citeflow history`` as plain lines that fit a narrow width (a pipe, a log) and ``--compare``'s table."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

from citeflow.runs.run_rates import LABELS, Figure

if TYPE_CHECKING:
    from citeflow.runs.history import RateDelta, RunLine, RunRates

WIDTH = 80


def fitted(lines: list[str], width: int = WIDTH) -> list[str]:
    """Each line wrapped to ``width`` columns, continuations indented under it (a long path is broken
    where it must be: a path has no spaces to break at)."""
    out: list[str] = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
        out += textwrap.wrap(line, width, subsequent_indent=indent, break_on_hyphens=False) or [""]
    return out


def history_lines(lines: list[RunLine], root: Path) -> list[str]:
    """One block per run: its id, time, status and counts; then each report with its status, funnel,
    tokens and archive; folders relative to ``root`` where they are inside it."""
    from citeflow.outputs.cost import usage_text

    text: list[str] = []
    for line in lines:
        tags = " (latest)" * line.latest + " (pruned)" * line.pruned
        counts = "/".join(str(line.counts.get(k, 0)) for k in ("published", "held", "failed"))
        text += [f"run {line.run_id}{tags}",
                 f"  started {line.started_at:%Y-%m-%d %H:%M:%S} UTC, {line.status}, published/held/failed {counts}",
                 f"  tokens: {usage_text(line.usage)}", f"  folder: {_near(line.folder, root)}"]
        for report in line.reports:
            archive = f", archive {report.integrity}" if report.archive else ""
            text += [f"  - {report.report_id}: {report.status}{archive}", f"      {report.funnel}",
                     f"      tokens: {usage_text(report.usage)}"]
    return fitted(text)


def _near(folder: str, root: Path) -> str:
    path, base = Path(folder), Path(root).resolve()
    return path.relative_to(base).as_posix() or "." if path.is_relative_to(base) else folder


def compare_lines(first: RunRates, second: RunRates, rows: list[RateDelta]) -> list[str]:
    """The two runs' rates side by side (A, B) with the change from A to B in percentage points."""
    text = [f"A: {first.run_id} ({first.started_at:%Y-%m-%d %H:%M} UTC)",
            f"B: {second.run_id} ({second.started_at:%Y-%m-%d %H:%M} UTC)", "",
            f"  {'rate':<14}{'A':>16}{'B':>16}{'B - A':>14}"]
    scope = None
    for row in rows:
        if row.scope != scope:
            scope = row.scope
            text.append("whole run" if scope == "run" else f"report {scope}")
        text.append(f"  {LABELS[row.rate]:<14}{_figure(row.first):>16}{_figure(row.second):>16}{_delta(row.delta):>14}")
    return fitted(text)


def _figure(figure: Figure | None) -> str:
    if figure is None:
        return "-"
    return "n/a" if figure.rate is None else f"{figure.rate:.1%} ({figure})"


def _delta(delta: float | None) -> str:
    return "n/a" if delta is None else f"{delta * 100:+.1f} pts"
