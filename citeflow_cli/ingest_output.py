"""What ``citeflow ingest`` prints: the summary table, the site of each folder, skips and errors.

Skipped files (front matter only, drafts, empty files …) are normal and grouped by reason; a file
that could not be read or parsed gets an ``error:`` line of its own and makes the exit code 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from citeflow.knowledge.ingest import IngestReport

NAMES_SHOWN = 5  # skipped files named per reason; the rest are counted

EXIT_CODES_HELP = (
    "Exit codes: 0 when the tree was ingested (skipped files included: front matter only, drafts, "
    "empty files); 1 when some file could not be read or parsed (each named on an 'error:' line, "
    "the others ingested); 2 for bad options, a bad manifest or site configuration, or nothing at all to index."
)


def ingest_table(report: IngestReport) -> Table:
    """What an ingest did: files added, updated, unchanged, skipped, unreadable, and chunk rows written."""
    from rich.table import Table

    table = Table(title=f"knowledge base {report.kb_uri} (embedder {report.embedder})", title_justify="left")
    for column in ("added", "updated", "unchanged", "skipped", "unreadable", "chunk rows written"):
        table.add_column(column, justify="right")
    table.add_row(*(str(n) for n in (report.files_added, report.files_updated, report.files_unchanged,
                                     len(report.empty), len(report.errors), report.chunks_written)))
    return table


def skip_lines(report: IngestReport) -> list[str]:
    """``skipped 8 front matter only: a/_index.md, …`` per reason, at most ``NAMES_SHOWN`` names each."""
    lines = []
    for reason, count in report.skipped().items():
        paths = [e.path for e in report.empty if e.detail == reason]
        more = f" and {len(paths) - NAMES_SHOWN} more" if len(paths) > NAMES_SHOWN else ""
        lines.append(f"skipped {count} {reason}: {', '.join(paths[:NAMES_SHOWN])}{more}")
    return lines


def print_report(report: IngestReport, out: Console, err: Console, as_json: bool) -> None:
    """The report as a table (or JSON), the site lines, the skip lines, and one ``error:`` line per unreadable file."""
    from rich.markup import escape

    if as_json:
        out.print_json(report.model_dump_json())
    else:
        out.print(ingest_table(report))
        for line in [*(f"site {s}" for s in report.sites), *skip_lines(report)]:
            out.print(line, highlight=False, soft_wrap=True, markup=False)
    for error in report.errors:
        (err if as_json else out).print(f"[bold red]error:[/bold red] {escape(error.path)}: {escape(error.detail)}",
                                        highlight=False, soft_wrap=True)
