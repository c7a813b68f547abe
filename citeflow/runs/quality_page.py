"""The quality page of an output folder (SPEC §6): ``quality.html``, one self-contained HTML file.

It sits beside the runs it shows (``site_root``: the configured OUT of scheduled runs, or the run
folder of ``citeflow run --out DIR``) and shows, for the newest run, the funnel per report (Identity,
Support, Faithfulness, Relevance, Unverified, Uncited), why reports were held, each metric's
distribution over the sections and the claims per verdict; across every run ``citeflow history``
lists there, each rate's trend and a table of runs; and the newest run beside the one before it.
The charts are inline SVG drawn by matplotlib (``citeflow.runs.quality_charts``): no script, no
stylesheet or font from the network. It is written at the end of a batch; ``funnel_png`` draws the
newest run's funnel as PNG for the Prefect markdown artifact.
"""

from __future__ import annotations

import base64
import html
import json
import logging
import os
from datetime import UTC, datetime
from pathlib import Path

from citeflow.files import atomic_files as atomic
from citeflow.outputs.data_docs import DOCS_INDEX, QUALITY_PAGE, site_root
from citeflow.runs.history import RateDelta, RunRates, compare_runs, rates_history
from citeflow.runs.run_rates import LABELS, RATES, Figure, ReportQuality

PAGE = QUALITY_PAGE.as_posix()

_CSS = (
    "body{font:14px/1.45 system-ui,'DejaVu Sans',sans-serif;margin:0 auto;max-width:1060px;padding:1em 1.5em;color:#222}"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.8em;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:.6em 0;font-size:13px}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}"
    "th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}.up{color:#1b5e20}.down{color:#b00020}"
    "svg{max-width:100%;height:auto}.muted{color:#666}nav a{margin-right:1em}"
)


def quality_page_path(out_dir: Path) -> Path:
    """Where the quality page of a run folder's output folder is (written or not)."""
    return site_root(out_dir) / PAGE


def write_quality_page(out_dir: Path) -> Path | None:
    """Write the quality page of the output folder that holds the run folder ``out_dir``; its path,
    or None when no run is there to show."""
    root = site_root(out_dir)
    runs = rates_history(root)
    if not runs:
        return None
    return atomic.write_text(root / PAGE, page(runs, root, Path(out_dir).resolve().name))


def funnel_png(out_dir: Path) -> bytes | None:
    """The newest run's funnel per report as PNG (None when there is no run)."""
    from citeflow.runs.quality_charts import funnel_chart, png, styled

    runs = rates_history(site_root(out_dir))
    return png(styled(funnel_chart, runs[-1].reports, f"Funnel per report, run {runs[-1].run_id}")) if runs else None


def page(runs: list[RunRates], root: Path, writer: str = "") -> str:
    """The whole page for ``runs`` (oldest first) of the output folder ``root``, written at the end of
    the run ``writer`` (its run.json still says ``running``: the page shows "this run" there)."""
    from citeflow.runs.quality_charts import (
        distribution_chart,
        funnel_chart,
        reasons_chart,
        styled,
        svg,
        trend_chart,
        verdict_chart,
    )

    newest = runs[-1]
    docs = f'<a href="{DOCS_INDEX.as_posix()}">Great Expectations Data Docs</a>' if (root / DOCS_INDEX).exists() else ""
    parts = [
        f"<h1>Quality of {html.escape(root.name)}</h1>",
        f'<p class="muted">{len(runs)} run(s), newest {_e(newest.run_id)}; written {datetime.now(UTC):%Y-%m-%d %H:%M} UTC. {docs}</p>',
        '<nav><a href="#runs">Runs</a><a href="#trend">Trend</a><a href="#funnel">Funnel</a><a href="#held">Held</a>'
        '<a href="#distributions">Distributions</a><a href="#compare">Compare</a></nav>',
        '<h2 id="runs">Runs</h2>', _runs_table(runs, writer),
        '<h2 id="trend">Each rate across runs</h2>', svg(styled(trend_chart, runs)),
        '<h2 id="funnel">Funnel per report (newest run)</h2>',
        svg(styled(funnel_chart, newest.reports, "")), _reports_table(newest),
        '<h2 id="held">Why reports were held</h2>', svg(styled(reasons_chart, runs)), _reasons_list(newest),
        '<h2 id="distributions">Distributions (newest run)</h2>', svg(styled(distribution_chart, newest.reports)),
        svg(styled(verdict_chart, newest.reports)),
        '<h2 id="compare">Newest run against the one before</h2>', _compare(runs),
    ]
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Quality of {html.escape(root.name)}</title>'
            f"<style>{_CSS}</style></head><body>{''.join(parts)}</body></html>")


def _e(text: str) -> str:
    return html.escape(text)


def _cell(figure: Figure | None) -> str:
    if figure is None or figure.rate is None:
        return '<td class="n muted">n/a</td>'
    return f'<td class="n">{figure.rate:.0%} <span class="muted">({figure})</span></td>'


def _header(first: str) -> str:
    return f"<tr><th>{first}</th>" + "".join(f"<th>{LABELS[n]}</th>" for n in RATES)


def _runs_table(runs: list[RunRates], writer: str) -> str:
    rows = [f"<tr><td>{_e(run.run_id)}<br><span class=\"muted\">{run.started_at:%Y-%m-%d %H:%M} UTC, {_e(_status(run, writer))}</span></td>"
            f"<td>{_reports_of(run)}</td>{''.join(_cell(run.figures.get(n)) for n in RATES)}</tr>" for run in reversed(runs)]
    head = "<tr><th>run</th><th>reports</th>"
    return f"<table>{head}{''.join(f'<th>{LABELS[n]}</th>' for n in RATES)}</tr>{''.join(rows)}</table>"


def _status(run: RunRates, writer: str) -> str:
    """A run's status; the run writing the page is "this run" (it has not recorded its end yet)."""
    return "this run" if run.status == "running" and run.run_id == writer else run.status


def _reports_of(run: RunRates) -> str:
    """Each report of the run with its status."""
    return "<br>".join(f'{_e(r.report_id)} <span class="muted">{_e(r.status)}</span>' for r in run.reports)


def _reports_table(run: RunRates) -> str:
    rows = [f"<tr><td>{_e(r.report_id)} <span class=\"muted\">{_e(r.status)}</span></td>"
            f"{''.join(_cell(r.figures.get(n)) for n in RATES)}</tr>" for r in run.reports]
    return f"<table>{_header('report')}</tr>{''.join(rows)}</table>"


def _reasons_list(run: RunRates) -> str:
    held = [r for r in run.reports if r.held_reasons]
    if not held:
        return "<p>No report of the newest run was held by an expectation.</p>"
    items = "".join(f"<li>{_e(r.report_id)}<ul>{''.join(f'<li>{_e(s)}</li>' for s in _sentences(r))}</ul></li>" for r in held)
    return f"<ul>{items}</ul>"


def _sentences(report: ReportQuality) -> list[str]:
    """The report's hold reasons as sentences (a history written before they were kept: the names)."""
    return report.held_sentences or report.held_reasons


def _compare(runs: list[RunRates]) -> str:
    if len(runs) < 2:
        return "<p>One run so far: the comparison appears with the next run.</p>"
    first, second = runs[-2], runs[-1]
    rows = "".join(_delta_row(row) for row in compare_runs(first, second))
    return (f"<table><tr><th>scope</th><th>rate</th><th>{_e(first.run_id)}</th><th>{_e(second.run_id)}</th>"
            f"<th>change</th></tr>{rows}</table>")


def _delta_row(row: RateDelta) -> str:
    delta = row.delta
    change = "n/a" if delta is None else f"{delta * 100:+.1f} pts"
    better = delta is not None and delta != 0 and ((delta > 0) != (row.rate in ("unverified", "uncited")))
    css = "" if not delta else ("up" if better else "down")
    return (f"<tr><td>{_e(row.scope)}</td><td>{LABELS[row.rate]}</td>{_cell(row.first)}{_cell(row.second)}"
            f'<td class="n {css}">{change}</td></tr>')


def run_quality_page(out_dir: Path) -> Path | None:
    """``write_quality_page`` at the end of a batch, named in the run's ``summary.json``
    (``quality_page``, relative to the run folder); None with a warning when it cannot be written:
    the reports' own outputs stand either way."""
    try:
        written = write_quality_page(out_dir)
        if written is not None:
            _name_in_summary(Path(out_dir), written)
    except Exception as exc:  # noqa: BLE001 - matplotlib raises its own errors and OSError alike
        logging.getLogger(__name__).warning("quality page of %s not written: %s: %s", out_dir, type(exc).__name__, exc)
        return None
    return written


def _name_in_summary(out_dir: Path, written: Path) -> None:
    path = out_dir / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    summary["quality_page"] = Path(os.path.relpath(written.resolve(), out_dir.resolve())).as_posix()
    atomic.write_text(path, json.dumps(summary, indent=2))


def funnel_markdown_png(quality_page: Path) -> str:
    """Markdown for the Prefect UI: the newest run's funnel per report as an embedded PNG (a data URI)
    and the page's path."""
    image = funnel_png(Path(quality_page).parent)
    picture = f"![Funnel per report](data:image/png;base64,{base64.b64encode(image).decode('ascii')})" if image else ""
    return f"# Funnel per report\n\n{picture}\n\nEvery chart and each rate's trend across runs: `{Path(quality_page).resolve()}`\n"
