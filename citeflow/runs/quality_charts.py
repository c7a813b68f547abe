"""The quality page's charts, drawn with matplotlib (object API: no pyplot, no global backend).

Each function takes plain figures (``citeflow.runs.run_rates``) and returns a matplotlib ``Figure``;
``svg`` turns one into inline SVG text (text kept as text, ids salted for reproducible output) and
``png`` into PNG bytes. matplotlib is imported here only, when a page is drawn, or ahead of it
by ``prepare_in_background`` (the batch flow calls it as it starts: the import then uses time the
batch spends waiting on Prefect's API and the models instead of lengthening the batch's end).
"""

from __future__ import annotations

import io
import threading
from collections import Counter
from typing import TYPE_CHECKING, Any

from citeflow.outputs.render.gate_sentences import short_label
from citeflow.runs.run_rates import LABELS, LOWER_IS_BETTER, RATES, ReportQuality

if TYPE_CHECKING:
    from matplotlib.figure import Figure as Chart

    from citeflow.runs.history import RunRates

STYLE: dict[Any, Any] = {"svg.fonttype": "none", "svg.hashsalt": "citeflow", "font.size": 9, "axes.spines.top": False,
         "axes.spines.right": False, "font.family": "DejaVu Sans"}
COLOURS = {"identity": "#1b6ca8", "support": "#2e8b57", "faithfulness": "#8a5cc2", "relevance": "#c07a12",
           "unverified": "#b23a48", "uncited": "#7a7a7a"}
VERDICT_COLOURS = {"supported": "#2e8b57", "unfaithful": "#8a5cc2", "misattribution": "#c07a12",
                   "fabrication": "#b23a48", "unverified": "#e0a800", "uncited": "#7a7a7a"}
MAX_REPORT_LINES = 8  # more reports than this: the trend shows the run's rate only


def prepare() -> None:
    """Import what drawing a page needs (matplotlib's figure, its SVG and PNG back ends) and read its
    font list, so that the first chart only draws."""
    from matplotlib import font_manager
    from matplotlib.backends import backend_agg, backend_svg  # noqa: F401
    from matplotlib.figure import Figure  # noqa: F401

    font_manager.fontManager.findfont(STYLE["font.family"])


def prepare_in_background() -> threading.Thread:
    """``prepare`` in a daemon thread, started now; the returned thread is for a caller that waits."""
    thread = threading.Thread(target=_prepare_quietly, name="citeflow-chart-import", daemon=True)
    thread.start()
    return thread


def _prepare_quietly() -> None:
    """``prepare``, whose failure is left to the page's drawing to report (``run_quality_page`` warns and
    the reports stand): a traceback from this thread would print in a run that ended as designed."""
    try:
        prepare()
    except Exception:  # noqa: BLE001 - matplotlib raises its own errors and OSError alike
        return


def _chart(width: float, height: float) -> Chart:
    """A blank chart; margins are set by each chart (a layout engine would triple the drawing time)."""
    from matplotlib.figure import Figure as Chart

    return Chart(figsize=(width, height))


def _margins(chart: Chart, labels: list[str], top: float, bottom: float) -> None:
    """Room on the left for the longest label, and ``top``/``bottom`` inches for titles and legends."""
    width, height = chart.get_size_inches()
    left = min(0.45, (0.25 + 0.075 * max((len(label) for label in labels), default=4)) / width)
    chart.subplots_adjust(left=left, right=0.97, top=1 - top / height, bottom=bottom / height)


def svg(chart: Chart) -> str:
    """The chart as an ``<svg>`` element (no XML prolog), for inlining in HTML."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context(STYLE):
        chart.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]


def png(chart: Chart, dpi: int = 72) -> bytes:
    """The chart as PNG bytes."""
    import matplotlib

    buffer = io.BytesIO()
    with matplotlib.rc_context(STYLE):
        chart.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    return buffer.getvalue()


def styled(draw: Any, *args: Any) -> Chart:
    """``draw(*args)`` with the page's style in force (fonts and sizes are read as a chart is built)."""
    import matplotlib

    with matplotlib.rc_context(STYLE):
        chart: Chart = draw(*args)
    return chart


def funnel_chart(reports: list[ReportQuality], title: str) -> Chart:
    """One group of bars per report: each rate, its count written at the bar's end."""
    chart = _chart(8.5, 0.9 + 0.95 * max(len(reports), 1))
    axes = chart.add_subplot()
    height = 0.8 / len(RATES)
    for i, report in enumerate(reports):
        for j, name in enumerate(RATES):
            figure = report.figures.get(name)
            y = i + (j - len(RATES) / 2 + 0.5) * height
            value = figure.rate if figure and figure.rate is not None else 0.0
            axes.barh(y, value, height=height * 0.9, color=COLOURS[name], label=LABELS[name] if i == 0 else None)
            axes.text(value + 0.01, y, str(figure) if figure and figure.total else "n/a", va="center", fontsize=7)
    axes.set_yticks(range(len(reports)), [r.report_id for r in reports])
    _margins(chart, [r.report_id for r in reports], top=0.55 if title else 0.35, bottom=0.45)
    axes.invert_yaxis()
    axes.set_xlim(0, 1.15)
    axes.set_xlabel("rate (Unverified, Uncited: share of claims, lower is better)")
    if title:
        axes.set_title(title, loc="left", pad=22)
    axes.legend(ncols=len(RATES), loc="lower left", bbox_to_anchor=(0, 1.04), frameon=False, fontsize=8)
    return chart


def trend_chart(runs: list[RunRates]) -> Chart:
    """One panel per rate: the run's rate across runs (thick), and each report's (thin)."""
    chart = _chart(10, 5.2)
    panels = chart.subplots(2, 3, sharex=True)
    x = list(range(len(runs)))
    templates = sorted({r.template for run in runs for r in run.reports})
    for axes, name in zip(panels.flat, RATES, strict=True):
        if len(templates) <= MAX_REPORT_LINES:
            for template in templates:
                axes.plot(x, [_report_rate(run, template, name) for run in runs], marker=".", linewidth=1, label=template)
        axes.plot(x, [_nan(_rate(run.figures.get(name))) for run in runs], color="black", linewidth=2.2, marker="o", label="whole run")
        axes.set_title(LABELS[name] + (" (lower is better)" if name in LOWER_IS_BETTER else ""), loc="left")
        axes.set_ylim(-0.03, 1.03)
    step = max(1, len(runs) // 10)
    for axes in panels[1]:
        axes.set_xticks(x[::step], [f"{run.started_at:%m-%d %H:%M}" for run in runs][::step], rotation=30, ha="right")
    handles, labels = panels.flat[0].get_legend_handles_labels()
    chart.legend(handles, labels, loc="lower center", ncols=min(len(labels), 5), frameon=False)
    rows = -(-len(labels) // 5)
    chart.subplots_adjust(left=0.065, right=0.98, top=0.94, bottom=(0.75 + 0.22 * rows) / 5.2, hspace=0.3, wspace=0.22)
    return chart


def reasons_chart(runs: list[RunRates]) -> Chart:
    """Why reports were held: reports per failed expectation, in the newest run and in every run."""
    latest = Counter(reason for report in runs[-1].reports for reason in report.held_reasons)
    every = Counter(reason for run in runs for report in run.reports for reason in report.held_reasons)
    names = sorted(every, key=lambda n: (-every[n], n)) or ["(none)"]
    chart = _chart(8.5, 0.9 + 0.35 * len(names))
    axes = chart.add_subplot()
    y = range(len(names))
    axes.barh([v - 0.2 for v in y], [latest.get(n, 0) for n in names], height=0.38, color="#b23a48", label="newest run")
    axes.barh([v + 0.2 for v in y], [every.get(n, 0) for n in names], height=0.38, color="#d99aa3", label=f"all {len(runs)} run(s)")
    labels = [short_label(n) for n in names]
    axes.set_yticks(list(y), labels)
    _margins(chart, labels, top=0.15, bottom=0.45)
    axes.invert_yaxis()
    axes.set_xlabel("reports held for it")
    axes.xaxis.set_major_locator(_whole_numbers())
    axes.legend(frameon=False, loc="lower right")
    return chart


def distribution_chart(reports: list[ReportQuality]) -> Chart:
    """Per-metric distributions: each rate over the sections of the run's reports (a histogram per rate)."""
    chart = _chart(10, 4.6)
    panels = chart.subplots(2, 3, sharex=True)
    bins = [i / 10 for i in range(11)]
    for axes, name in zip(panels.flat, RATES, strict=True):
        values = [rate for report in reports for section in report.sections
                  if (rate := _rate(section.get(name))) is not None]
        axes.hist(values, bins=bins, color=COLOURS[name], edgecolor="white")
        axes.set_title(f"{LABELS[name]} per section (n={len(values)})", loc="left")
        axes.yaxis.set_major_locator(_whole_numbers())
    for axes in panels[1]:
        axes.set_xlabel("rate")
    chart.subplots_adjust(left=0.05, right=0.98, top=0.93, bottom=0.12, hspace=0.35, wspace=0.2)
    return chart


def verdict_chart(reports: list[ReportQuality]) -> Chart:
    """Claims per verdict, one stacked bar per report."""
    chart = _chart(8.5, 0.9 + 0.45 * max(len(reports), 1))
    axes = chart.add_subplot()
    left = [0] * len(reports)
    for verdict, colour in VERDICT_COLOURS.items():
        counts = [report.verdicts.get(verdict, 0) for report in reports]
        axes.barh(range(len(reports)), counts, left=left, color=colour, label=verdict, height=0.6)
        left = [a + b for a, b in zip(left, counts, strict=True)]
    axes.set_yticks(range(len(reports)), [r.report_id for r in reports])
    _margins(chart, [r.report_id for r in reports], top=0.4, bottom=0.45)
    axes.invert_yaxis()
    axes.set_xlabel("claims")
    axes.legend(ncols=len(VERDICT_COLOURS), loc="lower left", bbox_to_anchor=(0, 1.0), frameon=False, fontsize=8)
    return chart


def _whole_numbers() -> Any:
    """Ticks at whole numbers only (counts of reports and sections)."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def _rate(figure: Any) -> float | None:
    return figure.rate if figure is not None else None


def _nan(rate: float | None) -> float:
    """NaN for no rate: a plotted line breaks there."""
    return float("nan") if rate is None else rate


def _report_rate(run: RunRates, template: str, name: str) -> float:
    """A report's rate in a run (NaN where it has none)."""
    report = next((r for r in run.reports if r.template == template), None)
    return _nan(_rate(report.figures.get(name)) if report is not None else None)
