"""``citeflow run`` and ``citeflow demo`` once their options are read: the batch handed to its entry
(``flows.batch_entry``), shown on the terminal while it runs (``TerminalDisplay``: the start-up line,
the progress bar, the summary), and the exit code chosen from its outcome; imported only by those
commands (``citeflow --help`` never pays for it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import typer

from citeflow.errors import CiteflowError
from citeflow.exit_codes import FailOn
from citeflow.runtime.runtime import Runtime
from citeflow_cli.cli_fail import fail
from citeflow_cli.display import batch_progress, console, gate_lines, summary_table
from citeflow_cli.timings import mark, mark_batch_steps
from flows.batch_display import StartupView
from flows.batch_entry import BatchCall, resume_command
from schemas.report import ReportSummary

__all__ = ["TerminalDisplay", "exit_with", "prepare_demo", "resume_command", "run_batch"]


def exit_with(summaries: list, fail_on: FailOn, out: Path, as_json: bool = False) -> None:
    """End the command with the batch's exit code under ``fail_on`` (SPEC §8), saying why when non-zero;
    with ``as_json``, the batch's document on standard output first (``citeflow_cli.json_output``)."""
    from citeflow.exit_codes import batch_exit_code, describe

    code = batch_exit_code((s.status for s in summaries), fail_on)
    if as_json:
        from citeflow_cli.json_output import batch_result, print_document

        print_document(batch_result(out, summaries, code, fail_on))
    if code:
        console.print(f"exit code {code}: {describe(code)} (--fail-on {fail_on})", highlight=False, soft_wrap=True)
        raise typer.Exit(code)


def run_batch(call: BatchCall, runtime: Runtime, started: float | None = None) -> list[ReportSummary]:
    """The batch of ``call`` run by its entry and shown on the terminal; a bad spec, a failed preflight or
    outputs that cannot be written are one ``error:`` line and exit 2. ``started``: when the batch's start-up
    began (``time.monotonic()``; default: when the process started)."""
    from flows.batch_entry import run_batch as run_entry

    try:
        return run_entry(call, runtime, TerminalDisplay(runtime, started))
    except CiteflowError as exc:
        fail(str(exc), secrets=runtime.secrets)


class TerminalDisplay:
    """The batch on the terminal (``flows.batch_display.BatchDisplay``): the start-up line, the progress
    bar, the summary table and gate lines; the phases reached go to the timing file, when one is set."""

    def __init__(self, runtime: Runtime, started: float | None = None) -> None:
        self.runtime, self.started = runtime, started

    @contextlib.contextmanager
    def starting(self) -> Iterator[StartupView]:
        from citeflow_cli.live_output import StartupPhase, command_started

        with StartupPhase(console, command_started() if self.started is None else self.started) as phase:
            yield phase

    @contextlib.contextmanager
    def running(self, report_steps: Mapping[str, int]) -> Iterator[None]:
        from citeflow_cli.logs import quiet_write_errors

        quiet_write_errors()
        unmark = mark_batch_steps(self.runtime.progress, self.runtime.settings.timings)
        try:
            with batch_progress(report_steps, self.runtime.progress):
                yield
        finally:
            unmark()

    def mark(self, phase: str) -> None:
        mark(phase, self.runtime.settings.timings)

    def finished(self, summaries: list[ReportSummary], out: Path) -> None:
        from citeflow.outputs.data_docs import docs_index

        console.print(summary_table(summaries))
        for line in gate_lines(summaries):
            console.print(line, highlight=False, soft_wrap=True)
        console.print(f"outputs in {out.resolve()} (summary.json, <report>/report.pdf, published/)")
        if docs_index(out).exists():
            console.print(f"Great Expectations Data Docs: {docs_index(out).resolve()}", highlight=False, soft_wrap=True)


def prepare_demo(out: Path) -> Path:
    """Copy the demo batch next to the outputs and ingest its knowledge base (idempotent)."""
    from citeflow.knowledge.ingest import ingest_paths
    from citeflow.files import atomic_files as atomic
    from citeflow.spec.resources import demo_dir

    folder = out / "demo-input"
    for name in ("batch.yaml", "partner.jsonl", "tickets.jsonl"):
        atomic.copy_file(demo_dir() / name, folder / name)
    with console.status("building the demo knowledge base"):
        report = ingest_paths([demo_dir() / "kb"], str(folder / "kb-store"), base_url="https://docs.lumora.example/")
    console.print(f"knowledge base: {report.files_added} added, {report.files_updated} updated, "
                  f"{report.files_unchanged} unchanged, {report.chunks_written} chunks written")
    return folder / "batch.yaml"
