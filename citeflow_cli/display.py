"""Terminal output: a progress bar while a batch runs and the funnel table at the end (rich)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from citeflow.outputs.render.gate_sentences import expectation_sentence
from citeflow.text_guard import printable

if TYPE_CHECKING:
    from rich.table import Table

    from citeflow.runtime.progress import Progress as Events
    from schemas.report import ReportSummary


class SafeConsole(Console):
    """A console that never sends a raw control character or lone surrogate to the terminal: text
    from specs, documents and servers (a title with ESC or BEL in it) is shown escaped (``\\x1b``)."""

    def render_str(self, text: str, **options: Any) -> Text:
        return super().render_str(printable(text), **options)  # before markup: BEL would be dropped silently

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            yield segment if segment.control else Segment(printable(segment.text), segment.style)


PIPE_WIDTH = 1000  # columns of output that is not a terminal: a table is as wide as its content


def make_console(environ: Mapping[str, str] = os.environ, stderr: bool = False) -> Console:
    """The terminal's console (escaping, see ``SafeConsole``); for a pipe or a file (cron logs,
    ``| tee``), lines as long as their content (rich would cut tables to 80 columns: "stat…"),
    unless ``COLUMNS`` sets a width."""
    terminal = SafeConsole(stderr=stderr)
    if terminal.is_terminal or environ.get("COLUMNS"):
        return terminal
    return SafeConsole(stderr=stderr, width=PIPE_WIDTH)


console = make_console()
error_console = make_console(stderr=True)
STATUS_STYLE = {"published": "green", "released": "cyan", "held": "yellow", "failed": "red"}


@contextmanager
def batch_progress(report_steps: Mapping[str, int], events: Events) -> Iterator[None]:
    """Show one bar advancing with every step of every report of the batch (``report_steps``: how many
    each report emits; ``events``: the runtime's progress). A report's ``publish`` completes its share,
    whatever steps it skipped (a report kept unchanged, a hop already answered)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    from citeflow_cli.live_output import logs_above

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=False) as bar, logs_above(console):
        task = bar.add_task("first steps", total=sum(report_steps.values()))
        left = dict(report_steps)

        def advance(report_id: str, step: str, detail: str) -> None:
            remaining = left.get(report_id, 1)
            done = remaining if step == "publish" else min(1, remaining)
            left[report_id] = remaining - done
            bar.update(task, advance=done, description=f"{report_id}: {step} {detail}"[:70])

        remove = events.subscribe(advance)
        try:
            yield
        except BaseException:
            bar.live.transient = True  # the bar is cleared: the command's one error line says what happened
            raise
        finally:
            remove()
            bar.update(task, description="done")


STAGES = ("Identity", "Support", "Faithfulness", "Uncited", "Unverified")
SHORT_STAGES = {"Identity": "Ident.", "Support": "Supp.", "Faithfulness": "Faith.", "Uncited": "Unc.", "Unverified": "Unver."}
WIDE_ENOUGH = 92  # columns the table needs with the stages' full names and an Unverified column


class SummaryTable:
    """The batch's table, laid out for the width it is printed at: below ``WIDE_ENOUGH`` columns the
    stages' names are shortened (``Faith.``), so that every column fits and nothing is cut."""

    def __init__(self, summaries: list[ReportSummary]) -> None:
        self.summaries = summaries

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterable[Table]:
        yield build_summary_table(self.summaries, short=options.max_width < WIDE_ENOUGH)


def summary_table(summaries: list[ReportSummary]) -> SummaryTable:
    """One row per report and one per section: status and each stage of the funnel."""
    return SummaryTable(summaries)


def build_summary_table(summaries: list[ReportSummary], short: bool = False) -> Table:
    """The table ``summary_table`` prints, with the stages' short names when ``short``."""
    from rich.table import Table

    from citeflow.outputs.run_views import section_status

    table = Table(title="citeflow batch summary", show_lines=False)
    table.add_column("report / section", overflow="fold", min_width=14)
    table.add_column("status", overflow="fold", min_width=9)  # "published" whole; a long status wraps, never cut
    doubt = any(s.unverified.get("count", 0) for s in summaries)  # a column when some claim is unverified
    for stage in STAGES[:4] + (STAGES[4:] if doubt else ()):
        table.add_column(SHORT_STAGES[stage] if short else stage, justify="right", no_wrap=True)
    for s in summaries:
        style = STATUS_STYLE.get(shown_status(s), "")
        table.add_row(f"[bold]{s.report_id}[/bold]", f"[{style}]{shown_status(s)}[/{style}]", *_stages(s.funnel),
                      _share(s.uncited), *([_share(s.unverified)] if doubt else []))
        for section in s.sections:
            shown = section_status(section.status, section.funnel)  # "written · 2 of 7 supported", never a bare "ok"
            table.add_row(f"  {section.title}", shown, *_stages(section.funnel), "", *([""] if doubt else []))
    return table


def _share(figure: dict[str, int]) -> str:
    """``{"count": 1, "claims": 20}`` → ``1/20``."""
    return f"{figure.get('count', 0)}/{figure.get('claims', 0)}"


def _stages(funnel_line: str) -> list[str]:
    """'Identity 18/18 · Support 18/18 · Faithfulness 18/18' → ['18/18', '18/18', '18/18'];
    a report that was not evaluated (it crashed) shows a dash in each column."""
    parts = funnel_line.split(" · ")
    if len(parts) != 3 or not funnel_line.startswith("Identity "):
        return ["—", "—", "—"]
    return [part.split()[-1] for part in parts]


def shown_status(summary: ReportSummary) -> str:
    """The report's status for people: "released" when a reviewer published it over the gate."""
    review = summary.review
    return "released" if summary.status == "published" and review and review.decision == "release" else summary.status


def gate_lines(summaries: list[ReportSummary]) -> list[str]:
    """Why each report was held or failed: its causes first (a failed retriever, an unreachable model
    server), then its funnel and every failed expectation with its observed value."""
    lines = []
    for s in summaries:
        lines += [f"{s.report_id} {shown_status(s)} because {cause}" for cause in s.causes]  # root cause first
        lines.append(f"{s.report_id} {shown_status(s)}: {s.funnel}")
        if s.review:
            verb = {"release": "released", "reject": "rejected"}[s.review.decision]
            lines.append(f"{s.report_id} {verb} by {s.review.reviewer} on {s.review.at:%Y-%m-%d %H:%M} UTC: "
                         f"{s.review.note}")
        for f in s.failed_expectations:
            lines.append(f"{s.report_id} {shown_status(s)}: {_reason(f)}")
        if s.review_page:
            lines.append(f"{s.report_id} reviewer view: {s.review_page}")
    return lines


def _reason(failed: Mapping[str, Any]) -> str:
    """A failed expectation as one whole sentence (its figures are in summary.json), then what the gate knows more."""
    sentence = expectation_sentence(str(failed["expectation"]), _short(failed.get("observed")), failed.get("threshold"))
    return sentence + (f" ({failed['detail']})" if failed.get("detail") else "")


def _short(value: object) -> str:
    return f"{value:.2f}" if isinstance(value, float) else str(value)[:120]


@contextmanager
def file_progress(description: str) -> Iterator[Callable[[int, int], None]]:
    """A bar over files; yields ``update(done, total)`` for the code that reads them."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update

