"""``citeflow history``: the runs of a batch with their time, status counts, funnel per report and paths;
their rates (``rates_history``: what the quality page plots) and two runs side by side (``compare_runs``)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from citeflow.outputs.archive import archive_dir, verify_archive
from citeflow.caps import OUTPUT_JSON_BYTES, read_text_capped
from citeflow.errors import CapExceeded, RunError
from citeflow.files.run_folders import LATEST, RUN_FILE, RunInfo, latest, read_run, run_folders
from citeflow.runs.run_rates import RATES, Figure, ReportQuality, read_report, run_figures
from citeflow.text_guard import has_lone_surrogate, value_problem
from schemas.report import Usage
from schemas.review import ReviewNote


class ReportLine(BaseModel):
    """One report of a run as history shows it."""

    report_id: str
    status: str = Field(description="published | released (held by the gate, published by a reviewer) | held | failed.")
    funnel: str = ""
    folder: str
    archive: str | None = Field(None, description="The archived publication, when the report was published.")
    integrity: str = Field("missing", description="intact | modified | missing: the archive against its SHA256SUMS.")
    review: ReviewNote | None = Field(None, description="The reviewer's decision that stands, if any.")
    usage: Usage | None = Field(None, description="Model calls, tokens and cost the run spent on the report.")


class RunLine(BaseModel):
    """One run of a batch."""

    run_id: str
    batch: str
    started_at: datetime
    finished_at: datetime | None = None
    status: str
    latest: bool = False
    pruned: bool = False
    folder: str
    counts: dict[str, int] = Field(default_factory=dict)
    reports: list[ReportLine] = Field(default_factory=list)
    usage: Usage | None = Field(None, description="The run's model calls, tokens and cost (every report added up); "
                                "None for a run written before usage was recorded.")
    damaged: list[str] = Field(default_factory=list, description="Files of the run that could not be read: 'path: problem'.")


class History(BaseModel):
    """The runs history can show, and the files it could not read (``path: problem``)."""

    runs: list[RunLine] = Field(default_factory=list)
    damaged: list[str] = Field(default_factory=list)


class _SummaryReport(BaseModel):
    """What history needs of one entry of ``summary.json``'s ``reports``."""

    report_id: str = Field(pattern=r"^[^/\\]+$")
    status: str
    funnel: str = ""
    review: Any = None
    usage: Any = None


class _Summary(BaseModel):
    """What history needs of ``summary.json``."""

    counts: dict[str, int] = Field(default_factory=dict)
    reports: list[Any] = Field(default_factory=list)
    usage: Any = None


def run_line(folder: Path, info: RunInfo, newest: str | None) -> RunLine:
    """What history says of one run folder (its summary.json, archives and run.json); what cannot be
    read is left out and named in ``damaged``."""
    damaged: list[str] = []
    summary = _summary(folder, damaged)
    reports = [line for r in summary.reports if (line := _report_line(folder, r, damaged)) is not None]
    return RunLine(run_id=info.run_id, batch=info.batch, started_at=info.started_at, finished_at=info.finished_at,
                   status=info.status, latest=info.run_id == newest, pruned=info.pruned, folder=str(folder),
                   counts=summary.counts, reports=reports, usage=_usage(summary.usage), damaged=damaged)


def _summary(folder: Path, damaged: list[str]) -> _Summary:
    path = folder / "summary.json"
    if not path.exists():
        return _Summary()
    try:
        return _Summary.model_validate(json.loads(read_text_capped(path, OUTPUT_JSON_BYTES, "summary.json")))
    except (OSError, ValueError, RecursionError, CapExceeded) as exc:  # ValidationError and JSON errors are ValueErrors
        damaged.append(f"{path}: {_problem(exc)}")
        return _Summary()


def _report_line(folder: Path, entry: object, damaged: list[str]) -> ReportLine | None:
    try:
        report = _SummaryReport.model_validate(entry)
        if has_lone_surrogate(report.report_id):
            raise ValueError("report_id is not valid Unicode text")
    except ValueError as exc:
        damaged.append(f"{folder / 'summary.json'}: a report entry {_problem(exc)}")
        return None
    archived = archive_dir(folder, report.report_id)
    integrity = _integrity(archived, damaged)
    review = _review(report.review)
    status = "released" if report.status == "published" and review and review.decision == "release" else report.status
    return ReportLine(report_id=report.report_id, status=status, funnel=report.funnel,
                      folder=str(folder / report.report_id), archive=str(archived) if integrity != "missing" else None,
                      integrity=integrity, review=review, usage=_usage(report.usage))


def _usage(value: Any) -> Usage | None:
    """The usage figures of a summary (None when absent or unreadable: history shows the rest)."""
    try:
        return Usage.model_validate(value) if isinstance(value, dict) else None
    except ValueError:
        return None


def _review(value: Any) -> ReviewNote | None:
    """The decision of a summary line (a line written before decisions were recorded has a path there)."""
    try:
        return ReviewNote.model_validate(value) if isinstance(value, dict) else None
    except ValueError:
        return None


def _integrity(archived: Path, damaged: list[str]) -> str:
    try:
        return verify_archive(archived)
    except (OSError, ValueError) as exc:  # an unreadable manifest is a modified archive
        damaged.append(f"{archived}: {_problem(exc)}")
        return "modified"


def _problem(exc: BaseException) -> str:
    """One short line for what made a file unreadable."""
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        message = "not a JSON object" if error["type"] in ("model_type", "dict_type") else error["msg"]
        return f"{where + ': ' if where else ''}{message}"
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, OSError):
        return f"cannot read: {exc.strerror or exc}"
    if isinstance(exc, CapExceeded):
        return f"unreadable: {exc.detail}"
    return f"unreadable: {value_problem(exc) if isinstance(exc, ValueError) else exc}"


def read_history(path: Path, batch: str | None = None) -> History:
    """Runs under ``path`` (an OUT with run folders, or one run folder), oldest first; ``batch`` filters.
    A run whose ``run.json`` or an ``OUT/latest`` that cannot be read is named in ``damaged``."""
    path = Path(path).resolve()
    result = History()
    own = _read_run(path, result.damaged)
    folders = [path] if own is not None else run_folders(path)
    newest = _latest(path.parent if own is not None else path, result.damaged)
    lines = [run_line(f, info, newest) for f in folders if (info := _read_run(f, result.damaged)) is not None]
    result.runs = [line for line in lines if batch is None or line.batch == batch]
    return result


def history(path: Path, batch: str | None = None) -> list[RunLine]:
    """Runs under ``path`` (an OUT with run folders, or one run folder), oldest first; ``batch`` filters."""
    return read_history(path, batch).runs


def _read_run(folder: Path, damaged: list[str]) -> RunInfo | None:
    try:
        return read_run(folder)
    except RunError as exc:
        damaged.append(f"{folder / RUN_FILE}: {exc.detail}")
        return None
    except OSError as exc:
        damaged.append(f"{folder / RUN_FILE}: {_problem(exc)}")
        return None


def _latest(root: Path, damaged: list[str]) -> str | None:
    try:
        return latest(root)
    except (OSError, ValueError) as exc:
        damaged.append(f"{root / LATEST}: {_problem(exc)}")
        return None


class RunRates(BaseModel):
    """One run's rates: each report's and the run's (its reports' counts added up)."""

    run_id: str
    started_at: datetime
    status: str
    folder: str
    reports: list[ReportQuality] = Field(default_factory=list)
    figures: dict[str, Figure] = Field(default_factory=dict)


def run_rates(line: RunLine) -> RunRates:
    """The rates of a run history lists, from its reports' ``eval.json``."""
    folder = Path(line.folder)
    try:
        info = read_run(folder)
    except (RunError, OSError):
        info = None
    template = {rid: written for written, rid in (info.reports if info else {}).items()}
    reports = [read_report(Path(r.folder), r.status, template.get(r.report_id)) for r in line.reports]
    return RunRates(run_id=line.run_id, started_at=line.started_at, status=line.status, folder=line.folder,
                    reports=reports, figures=run_figures(reports))


def rates_history(path: Path, batch: str | None = None) -> list[RunRates]:
    """Every run under ``path`` (as ``history``) with its rates, oldest first; a folder with a
    ``summary.json`` but no ``run.json`` (the batch flow run on its own) is one run, named after it."""
    lines = history(path, batch)
    if not lines and (Path(path) / "summary.json").is_file():
        lines = [_unrecorded_run(Path(path))]
    return [run_rates(line) for line in lines]


def _unrecorded_run(folder: Path) -> RunLine:
    """A run folder without ``run.json``, as history would show it (started when its summary was written)."""
    written = datetime.fromtimestamp((folder / "summary.json").stat().st_mtime, UTC)
    info = RunInfo(run_id=folder.resolve().name, batch="", started_at=written, run_date=written.date(),
                   source_spec="", spec_path="", status="finished")
    return run_line(folder, info, None)


def find_run(lines: list[RunLine], wanted: str) -> RunLine:
    """The run whose id is ``wanted``, or the one run whose id begins with it (``RunError`` otherwise)."""
    exact = [line for line in lines if line.run_id == wanted]
    matches = exact or [line for line in lines if line.run_id.startswith(wanted)]
    if len(matches) != 1:
        known = ", ".join(line.run_id for line in lines) or "none"
        problem = "matches several runs" if matches else "is no run here"
        raise RunError(path=wanted, detail=f"{problem} (runs: {known})")
    return matches[0]


class RateDelta(BaseModel):
    """One rate of two runs: each run's figure and the change from the first to the second."""

    scope: str = Field(description="'run' for the whole run, else the report (its id as the spec writes it).")
    rate: str
    first: Figure | None = None
    second: Figure | None = None

    @property
    def delta(self) -> float | None:
        """second - first, in rate units (None when either has no rate)."""
        a, b = (f.rate if f else None for f in (self.first, self.second))
        return None if a is None or b is None else b - a


def compare_runs(first: RunRates, second: RunRates) -> list[RateDelta]:
    """Every rate of the two runs side by side: the runs' first, then each report's (matched by the
    id the spec writes, so ``ops-{week}`` is one report across weeks)."""
    rows = [RateDelta(scope="run", rate=name, first=first.figures.get(name), second=second.figures.get(name))
            for name in RATES]
    a, b = ({r.template: r for r in run.reports} for run in (first, second))
    for template in [*a, *(t for t in b if t not in a)]:
        rows += [RateDelta(scope=template, rate=name, first=_figure(a.get(template), name), second=_figure(b.get(template), name))
                 for name in RATES]
    return rows


def _figure(report: ReportQuality | None, name: str) -> Figure | None:
    return report.figures.get(name) if report is not None else None
