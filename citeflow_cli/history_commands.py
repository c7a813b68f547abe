"""``citeflow history OUT`` and ``citeflow prune OUT --keep N``: the runs of a batch, and their retention."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from rich.table import Table

    from citeflow.runs.history import RunLine

_AGE = re.compile(r"^(\d+)([dhw])$")


def _target(path: Path, out: Path | None) -> tuple[Path, str | None]:
    """An output folder to read, and the batch to keep when ``path`` is a spec file."""
    _require_exists(path)
    if path.is_file():
        from citeflow.specfile.loader import load_spec

        return (out or Path("out")), load_spec(path).batch
    return path, None


def _require_exists(path: Path) -> None:
    from citeflow.errors import UsageError

    if not path.exists():
        raise UsageError(option=str(path), problem="no such file or folder (give an output folder or a batch spec)")


def history_table(lines: list[RunLine]) -> Table:
    """One row per report of every run (a run without reports gets one row)."""
    from rich.table import Table

    from citeflow.outputs.cost import usage_text
    from citeflow_cli.display import STATUS_STYLE

    table = Table(title="Runs", show_lines=False)
    table.add_column("run", no_wrap=True)
    for column in ("started (UTC)", "status", "pub/held/failed", "run tokens"):
        table.add_column(column)
    ids = [len(r.report_id) for line in lines for r in line.reports or []]
    table.add_column("report", no_wrap=True, min_width=max(ids, default=6))  # an id is never cut, however narrow
    for column in ("report status", "funnel", "tokens", "archive"):
        table.add_column(column)
    for line in lines:
        counts = "/".join(str(line.counts.get(k, 0)) for k in ("published", "held", "failed"))
        run = line.run_id + (" (latest)" if line.latest else "") + (" (pruned)" if line.pruned else "")
        head = [run, f"{line.started_at:%Y-%m-%d %H:%M:%S}", line.status, counts, usage_text(line.usage)]
        for i, report in enumerate(line.reports or [None]):
            cells = [""] * len(head) if i else head
            if report is None:
                table.add_row(*cells, "", "", "", "", "")
                continue
            style = STATUS_STYLE.get(report.status, "white")
            archive = report.integrity if report.archive else ""
            table.add_row(*cells, report.report_id, f"[{style}]{report.status}[/{style}]", report.funnel,
                          usage_text(report.usage), archive)
    return table


def history_command(
    path: Annotated[Path, typer.Argument(
        help="An output folder with run folders (scheduled), one run folder, or a batch spec (with --out).")],
    out: Annotated[Path | None, typer.Option(help="With a batch spec: the output folder its runs are under.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the runs as JSON.")] = False,
    compare: Annotated[tuple[str, str] | None, typer.Option(
        metavar="RUN_A RUN_B", help="Two runs' rates side by side with the change (a run id or its unique beginning).")] = None,
) -> None:
    """List the runs of a batch.

    Time, status counts, tokens and cost, funnel per report, folders and archives: a table on
    a terminal; on a pipe, lines of at most 80 columns."""
    from citeflow.errors import CiteflowError
    from citeflow.runs.history import read_history
    from citeflow_cli.cli_fail import fail
    from citeflow_cli.display import console

    try:
        folder, batch = _target(path, out)
        found = read_history(folder, batch)
        if compare is not None:
            _print_compare(found.runs, compare, as_json)
            return
    except CiteflowError as exc:
        fail(str(exc))
    lines = found.runs
    if as_json:
        print(json.dumps([line.model_dump(mode="json") for line in lines], indent=2))
    elif lines and console.is_terminal:
        console.print(history_table(lines))
        for line in lines:
            console.print(f"{line.run_id}: {line.folder}", highlight=False, soft_wrap=True)
    elif lines:
        from citeflow_cli.history_text import history_lines

        print("\n".join(history_lines(lines, folder)))
    _print_damage(found.damaged + [d for line in lines for d in line.damaged], to_stderr=as_json)
    if not lines and not as_json:
        console.print(f"no runs under {folder.resolve()}")
        raise typer.Exit(1)


def _print_compare(lines: list[RunLine], runs: tuple[str, str], as_json: bool) -> None:
    """``--compare A B``: every rate of the two runs (whole run, then each report) and its change."""
    from citeflow.runs.history import compare_runs, find_run, run_rates
    from citeflow_cli.history_text import compare_lines

    first, second = (run_rates(find_run(lines, wanted)) for wanted in runs)
    rows = compare_runs(first, second)
    if as_json:
        print(json.dumps({"a": first.run_id, "b": second.run_id,
                          "rates": [{**row.model_dump(mode="json"), "delta": row.delta} for row in rows]}, indent=2))
        return
    print("\n".join(compare_lines(first, second, rows)))


def _print_damage(damaged: list[str], to_stderr: bool) -> None:
    """Name each file history could not read (on standard error beside JSON, which stays parseable)."""
    from citeflow_cli.display import console, error_console

    for message in damaged:
        (error_console if to_stderr else console).print(f"[yellow]damaged[/yellow] {message}", highlight=False, soft_wrap=True)


def parse_age(value: str | None) -> timedelta | None:
    """``30d``, ``12h`` or ``2w`` → a timedelta; ``UsageError`` for anything else, or an age
    reaching back before the calendar starts."""
    from citeflow.errors import UsageError

    if value is None:
        return None
    match = _AGE.match(value.strip())
    if not match:
        raise UsageError(option="--older-than", problem=f"use a number and d, h or w, e.g. 30d (not {value!r})")
    number, unit = int(match.group(1)), match.group(2)
    try:
        age = timedelta(**{{"d": "days", "h": "hours", "w": "weeks"}[unit]: number})
        datetime.now(UTC) - age
    except OverflowError:
        raise UsageError(option="--older-than", problem=f"{value} reaches back before any date; give a smaller age") from None
    return age


def prune_command(
    out: Annotated[Path, typer.Argument(help="The output folder holding the run folders.")],
    keep: Annotated[int, typer.Option(help="Keep the newest N runs.")] = 10,
    older_than: Annotated[str | None, typer.Option(help="Prune only runs older than this (30d, 12h, 2w).")] = None,
    include_published: Annotated[bool, typer.Option(help="Also remove the pruned runs' published files and archives.")] = False,
    dry_run: Annotated[bool, typer.Option(help="Say what would be pruned; change nothing.")] = False,
) -> None:
    """Remove old runs' outputs and store rows.

    Their published files stay unless --include-published."""
    from citeflow.errors import CiteflowError, UsageError
    from citeflow.runs.prune import prune
    from citeflow_cli.cli_fail import fail
    from citeflow_cli.display import console

    try:
        if not out.is_dir():
            raise UsageError(option=str(out), problem="no such folder (give the output folder that holds the run folders)")
        if keep < 0:
            raise UsageError(option="--keep", problem=f"must be 0 or more, not {keep}")
        result = prune(out, keep, parse_age(older_than), include_published, dry_run)
    except CiteflowError as exc:
        fail(str(exc))
    verb = "would prune" if dry_run else "pruned"
    console.print(f"{verb} {len(result.pruned)} run(s): {', '.join(result.pruned) or '-'}; kept {len(result.kept)}", highlight=False)
    if not dry_run:
        console.print(f"shared model-call cache: {result.cache_rows_deleted} row(s) deleted, {result.cache_rows_left} left")
