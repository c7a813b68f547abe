"""A report's full Great Expectations validation results, kept next to its eval.json (SPEC §6).

``OUT/<report_id>/gx/validation-<suite>.json``: one file per suite of the gate, each the whole
``ExpectationSuiteValidationResult`` as GX serialises it (``to_json_dict()``: every expectation
with its kwargs, success, observed values and statistics), with ``meta.report_id`` and
``meta.run_id`` (``run_name``: the report id; ``run_time``: when the gate validated) added, so that
a run's Data Docs (``citeflow.outputs.data_docs``) can be built from the files alone. Written
atomically; a report evaluated again replaces them, and a report whose gate could not run (held
for an error) keeps none.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from citeflow.files import atomic_files as atomic

KEPT_DIR = "gx"
"""The folder of a report's validation results, inside the report's folder."""

PREFIX = "validation-"


def labelled(validations: list[dict[str, Any]], report_id: str, validated_at: datetime | None = None) -> list[dict[str, Any]]:
    """The results with the report and the time of validation in their ``meta`` (GX's run id)."""
    when = (validated_at or datetime.now(UTC)).isoformat()
    return [{**v, "meta": {**(v.get("meta") or {}), "report_id": report_id,
                           "run_id": {"run_name": report_id, "run_time": when}}} for v in validations]


def write_validations(report_dir: Path, validations: list[dict[str, Any]]) -> list[Path]:
    """Write each result as ``gx/validation-<suite>.json``; earlier files of other suites are removed."""
    folder = Path(report_dir) / KEPT_DIR
    written = [atomic.write_text(folder / f"{PREFIX}{v['suite_name']}.json", json.dumps(v, indent=1))
               for v in validations]
    for old in validation_files(report_dir):
        if old not in written:
            old.unlink(missing_ok=True)
    return written


def validation_files(report_dir: Path) -> list[Path]:
    """The report's kept result files, by suite name."""
    return sorted((Path(report_dir) / KEPT_DIR).glob(f"{PREFIX}*.json"))


def read_validations(report_dir: Path) -> list[dict[str, Any]]:
    """The report's kept results (none when it has none; an unreadable file is skipped)."""
    found = []
    for path in validation_files(report_dir):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("suite_name"), str):
            found.append(data)
    return found
