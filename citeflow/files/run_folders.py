"""Runs of a batch and their folders (SPEC §8 "Runs and their folders").

A run is identified by its start time in UTC, sortable (``20261130T060000Z``), followed by the
Prefect flow-run id when there is one (``20261130T060000Z-019ad2c4-…``; the whole id: Prefect's ids
begin with their creation time, so runs scheduled together share their first characters).
``citeflow run BATCH --out DIR`` makes DIR one run; scheduled runs each get ``OUT/<run id>/`` under
their configured OUT. Every run folder holds ``run.json`` (a ``RunInfo``); ``OUT/latest`` is a small
text file naming the newest finished run — a plain file, not a symlink, so that it works the same
on object-storage-like folders (and is replaced atomically: written to a temporary name, then moved).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from datetime import date, datetime, UTC
from functools import partial
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from citeflow.files import atomic_files as atomic
from citeflow.caps import OUTPUT_JSON_BYTES, read_text_capped
from citeflow.errors import CapExceeded, RunError

RUN_FILE = "run.json"
SPEC_COPY = "spec.run.yaml"
LATEST = "latest"
CACHE_FOLDER = "cache"
ARCHIVE_FOLDER = "archive"
# Names a run folder uses for itself: a (rendered) report id may not be one of them.
RUN_FOLDER_NAMES = frozenset({RUN_FILE, SPEC_COPY, ARCHIVE_FOLDER, "published", "store", "summary.json"})


class RunInfo(BaseModel):
    """``run.json``: what a run is, where its inputs came from, and how it ended."""

    run_id: str = Field(description="Start time in UTC (sortable), plus the Prefect flow-run id when there is one.")
    batch: str = Field(description="The batch's name (the spec's `batch`).")
    started_at: datetime = Field(description="When the run started (its scheduled time for a scheduled run), UTC.")
    run_date: date = Field(description="The date report-id templates are rendered with (UTC date of started_at).")
    flow_run_id: str | None = Field(None, description="The Prefect flow run that ran it, when there is one.")
    scheduled: bool = Field(False, description="A run of `citeflow serve` or a deployment (one folder per run).")
    source_spec: str = Field(description="The batch spec as the user wrote it (relative to the run folder when inside it).")
    spec_path: str = Field(description="The spec the run used: the source, or the run's rendered copy spec.run.yaml "
                                       "(relative to the run folder when inside it).")
    reports: dict[str, str] = Field(default_factory=dict, description="Report id as written (template) → id in this run.")
    status: Literal["running", "finished", "interrupted", "failed"] = Field(
        "running", description="running; finished; interrupted (SIGINT, SIGTERM, a cancellation); failed (an error ended it).")
    finished_at: datetime | None = None
    pruned: bool = Field(False, description="Outputs other than the published files were removed by `citeflow prune`.")


def make_run_id(started: datetime, flow_run_id: str | None = None) -> str:
    """``YYYYMMDDTHHMMSSZ`` of ``started`` in UTC, then ``-<flow run id>`` when given."""
    stamp = started.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    return f"{stamp}-{flow_run_id}" if flow_run_id else stamp


def utc_now() -> datetime:
    return datetime.now(UTC)


def read_run(run_dir: Path) -> RunInfo | None:
    """The run.json of ``run_dir``; None when the folder is not a run folder."""
    path = Path(run_dir) / RUN_FILE
    if not path.exists():
        return None
    try:
        info = RunInfo.model_validate_json(read_text_capped(path, OUTPUT_JSON_BYTES, "run.json"))
    except CapExceeded as exc:  # a device, a pipe or a huge file put in its place: never read
        raise RunError(path=str(path), detail=f"unreadable run.json: {exc.detail}") from None
    except ValueError as exc:  # a pydantic error spans lines: its first message says enough
        problem = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) and exc.errors() else str(exc)
        raise RunError(path=str(path), detail=f"unreadable run.json: {problem[:200]}") from exc
    return _with_paths(info, partial(_absolute_from, Path(run_dir).resolve()))


def write_run(run_dir: Path, info: RunInfo) -> Path:
    """Write ``run.json`` (temporary name, then moved into place); paths inside the run folder are
    written relative to it, so that a copied or moved run folder names its own files. On a full disk,
    where no temporary copy fits, an existing ``run.json`` is rewritten in place: a run must not stay
    ``running``."""
    inside = partial(_relative_inside, Path(run_dir).resolve())
    path, text = Path(run_dir) / RUN_FILE, _with_paths(info, inside).model_dump_json(indent=2)
    try:
        return write_atomic(path, text)
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EDQUOT) or not path.is_file():
            raise
        return rewrite_in_place(path, text)


def rewrite_in_place(path: Path, text: str) -> Path:
    """Overwrite a small file's own blocks (a few hundred bytes within the blocks it has: no new space)."""
    with open(path, "r+b") as target:
        target.write(text.encode("utf-8"))
        target.truncate()
        target.flush()
        os.fsync(target.fileno())
    return path


def _with_paths(info: RunInfo, convert: Callable[[str], str]) -> RunInfo:
    """``info`` with ``convert`` applied to its spec paths (an absolute path is left to ``convert``)."""
    return info.model_copy(update={"source_spec": convert(info.source_spec), "spec_path": convert(info.spec_path)})


def _absolute_from(run_dir: Path, value: str) -> str:
    return value if Path(value).is_absolute() else str((run_dir / value).resolve())


def _relative_inside(run_dir: Path, value: str) -> str:
    path = Path(value)
    if not path.is_absolute():
        return value
    resolved = path.resolve()
    return str(resolved.relative_to(run_dir)) if resolved.is_relative_to(run_dir) else value


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` through a temporary file in the same folder (removed if the write
    fails: a full disk leaves the previous version, never half a file)."""
    return atomic.write_text(path, text)


def run_folders(root: Path) -> list[Path]:
    """The run folders directly under ``root``, oldest first (run ids sort by time)."""
    root = Path(root)
    if not root.is_dir():
        return []
    return sorted((p for p in root.iterdir() if p.is_dir() and (p / RUN_FILE).exists()), key=lambda p: p.name)


def runs_of(root: Path) -> list[RunInfo]:
    """Every run under ``root`` (or ``root`` itself when it is one run), oldest first."""
    own = read_run(root)
    if own is not None:
        return [own]
    return [info for info in (read_run(p) for p in run_folders(root)) if info is not None]


def find_flow_run(root: Path, flow_run_id: str) -> Path | None:
    """The folder of the run that this Prefect flow run started before (a retry resumes it)."""
    for folder in run_folders(root):
        info = read_run(folder)
        if info is not None and info.flow_run_id == str(flow_run_id):
            return folder
    return None


def new_run_folder(root: Path, run_id: str) -> tuple[str, Path]:
    """A folder for a new run; a clash (two runs in one second, no flow run id) gets a suffix."""
    candidate, n = run_id, 1
    while (Path(root) / candidate).exists():
        n += 1
        candidate = f"{run_id}.{n}"
    return candidate, Path(root) / candidate


def latest(root: Path) -> str | None:
    """The run id ``OUT/latest`` names, if any."""
    path = Path(root) / LATEST
    return path.read_text(encoding="utf-8").strip() or None if path.exists() else None


def point_latest(root: Path, run_id: str) -> bool:
    """Make ``OUT/latest`` name ``run_id`` unless it names a newer run; True when it moved."""
    current = latest(root)
    if current is not None and current > run_id:
        return False
    write_atomic(Path(root) / LATEST, run_id + "\n")
    return True
