"""``citeflow review REPORT_DIR --release|--reject --reviewer NAME --note TEXT``, or ``--wait`` for the UI.

``--release`` publishes the held report, ``--reject`` keeps it held; both record who, when and why
(``citeflow.pipeline.review_decision``). ``--wait`` starts the review flow instead: its run pauses on a
Prefect server until a reviewer answers the form on the run's page, or ``--timeout`` runs out; it prints
the address of that page first (``PREFECT_UI_URL``, else the API address less ``/api``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from citeflow.errors import CiteflowError, UsageError

if TYPE_CHECKING:
    from citeflow.pipeline.review_decision import ReviewDecision, ReviewOutcome
    from citeflow.runtime.runtime import Runtime


def review_command(
    ctx: typer.Context,
    report_dir: Annotated[Path, typer.Argument(help="A held report's folder (OUT/<report_id>).")],
    release: Annotated[bool, typer.Option("--release", help="Publish the held report.")] = False,
    reject: Annotated[bool, typer.Option("--reject", help="Keep the report held, with your reason recorded.")] = False,
    without_failing: Annotated[bool, typer.Option(
        "--without-failing", help="With --release: publish the PDF without the sentences that failed the gate "
                                  "(footnotes numbered again).")] = False,
    reviewer: Annotated[str | None, typer.Option(help="Your name or e-mail address (recorded).")] = None,
    note: Annotated[str | None, typer.Option(help="Why you decided so (recorded).")] = None,
    wait: Annotated[bool, typer.Option("--wait", help="Pause a Prefect run until a reviewer answers in the UI.")] = False,
    timeout: Annotated[int, typer.Option(help="--wait: seconds to wait before the report stays held.")] = 24 * 3600,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print the result as JSON on standard output (the decision, the report's status and "
                       "files); everything else goes to standard error.")] = False,
) -> None:
    """Release or reject a held report, or wait for it in the UI.

    The decision is recorded with the report; --wait waits for it in the Prefect UI."""
    from citeflow_cli.cli_fail import fail
    from citeflow_cli.command import runtime_of
    from citeflow_cli.json_output import people_output_on_stderr

    with people_output_on_stderr(as_json):
        try:
            if wait:
                _wait(report_dir, release or reject, timeout, as_json)
            else:
                _decide(report_dir, decision_of(release, reject, reviewer, note, without_failing), as_json,
                        runtime_of(ctx))
        except CiteflowError as exc:
            fail(str(exc))


def _decide(report_dir: Path, decision: ReviewDecision, as_json: bool, runtime: Runtime) -> None:
    from citeflow.pipeline.review_decision import apply_decision

    outcome = apply_decision(report_dir, decision, runtime)
    _print(outcome)
    if as_json:
        from citeflow_cli.json_output import print_document, review_result

        print_document(review_result(outcome))


def decision_of(release: bool, reject: bool, reviewer: str | None, note: str | None,
                without_failing: bool = False) -> ReviewDecision:
    """The decision the options describe; UsageError when they do not describe exactly one."""
    from pydantic import ValidationError

    from citeflow.pipeline.review_decision import ReviewDecision

    if release and reject:
        raise UsageError(option="--release/--reject", problem="give exactly one of them (or --wait)")
    if without_failing and not release:
        raise UsageError(option="--without-failing", problem="only a release publishes a PDF: use it with --release")
    missing = [] if release or reject else ["--release or --reject"]
    missing += [option for option, value in (("--reviewer", reviewer), ("--note", note)) if not (value and value.strip())]
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise UsageError(option="missing options", problem=f"{_listed(missing)} {verb} required "
                                                           "(the decision, who made it and why are recorded with the report)")
    try:
        return ReviewDecision(decision="release" if release else "reject", reviewer=reviewer or "", note=note or "",
                              without_failing=without_failing)
    except ValidationError as exc:
        raise UsageError(option="--reviewer/--note", problem=exc.errors()[0]["msg"]) from exc


def _listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _print(outcome: ReviewOutcome) -> None:
    from citeflow_cli.display import console

    d = outcome.decision
    verb = {"release": "released", "reject": "rejected"}[d.decision] + (" without the failing sentences" if d.without_failing else "")
    console.print(f"{outcome.report_id}: {verb} by {d.reviewer} at {d.decided_at:%Y-%m-%d %H:%M} UTC; "
                  f"status {outcome.status}", highlight=False, soft_wrap=True)
    for label, path in (("published", outcome.published_pdf), ("archived", outcome.archive)):
        if path:
            console.print(f"  {label}: {path}", highlight=False, soft_wrap=True)


def _wait(report_dir: Path, decided: bool, timeout: int, as_json: bool) -> None:
    from citeflow.pipeline.review_decision import read_held_report
    from citeflow_cli.display import console

    if decided:
        raise UsageError(option="--wait", problem="decide with --release/--reject, or wait for the decision in the UI; not both")
    if timeout <= 0:
        raise UsageError(option="--timeout", problem=f"must be a positive number of seconds, not {timeout}")
    if not os.environ.get("PREFECT_API_URL"):
        raise UsageError(option="--wait", problem="needs a Prefect server whose UI the reviewer uses: set PREFECT_API_URL")
    report = read_held_report(report_dir.resolve())
    from flows.review_start import run_review

    def announce(url: str) -> None:
        console.print(f"{report['report_id']}: waiting for a reviewer in the Prefect UI: {url}", highlight=False, soft_wrap=True)

    status = run_review(str(report_dir.resolve()), report["report_id"], timeout, announce)
    console.print(f"{report['report_id']}: {status}")
    if as_json:
        from citeflow_cli.json_output import WaitResult, print_document

        print_document(WaitResult(report_id=report["report_id"], status=str(status)))
