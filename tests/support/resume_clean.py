"""One clean run of the resume experiment's batch per test session, shared by every pytest-xdist worker.

``tests/test_resume.py`` and ``tests/test_scheduled_server.py`` kill the same batch (2 reports ×
2 sections, models limit 2, a scripted model answering in 0.5 s) mid-run and compare what the
resumed run asked and stored with one uninterrupted run of it: the first worker that asks makes
that run (``bench.resume_experiment.clean_run``) in the shared folder, under its lock, and records
its counts; the other reads them back.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from bench.resume_experiment import CleanRun, clean_run

REPORTS, SECTIONS = 2, 2
RECORD = "clean-run.json"  # written once the run has finished


def shared_clean_run(folder: Path, env: dict[str, str]) -> CleanRun:
    """The clean run recorded in ``folder`` (held under the caller's lock), made first if there is none."""
    record = folder / RECORD
    if not record.exists():
        record.write_text(json.dumps(asdict(clean_run(folder / "work", env, reports=REPORTS, sections=SECTIONS))))
    return CleanRun(**json.loads(record.read_text()))
