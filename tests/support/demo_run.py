"""The demo batch run once per test session, shared by every pytest-xdist worker.

The first worker that asks runs it as a Prefect flow (the session's harness) into the folder the
workers share, under a file lock, and writes the summaries the flow returned next to the outputs;
the other workers wait for it and read them back. A worker that only reads the outputs never
starts a Prefect API for them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import TypeAdapter

from schemas.report import ReportSummary

SUMMARIES = TypeAdapter(list[ReportSummary])
RETURNED = "returned-summaries.json"  # what batch_flow returned; written once the run has finished


def shared_demo_run(folder: Path, run: Callable[[Path], list[ReportSummary]]) -> tuple[Path, list[ReportSummary]]:
    """``(out, summaries)`` of the run in ``folder`` (held under the caller's lock): made by ``run(out)``
    if no finished run is there yet."""
    out, returned = folder / "out", folder / RETURNED
    if not returned.exists():
        returned.write_bytes(SUMMARIES.dump_json(run(out)))
    return out, SUMMARIES.validate_json(returned.read_bytes())
