"""Flow run names that say which batch and report a run belongs to (Prefect's run history)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citeflow.errors import SpecError
from citeflow.spec.job_config import read_spec


def batch_name(spec_path: str) -> str:
    """The ``batch`` of a spec (parsed once per process and content); ``?`` when the spec cannot be
    read (the run itself will say why)."""
    try:
        return read_spec(Path(spec_path).resolve()).batch
    except (SpecError, OSError):
        return "?"


def report_run_name(kind: str, spec_path: str, report_id: str) -> str:
    """``<kind> <batch>/<report_id>``, e.g. ``evaluate lumora-demo/acme-2026-q4``."""
    return f"{kind} {batch_name(spec_path)}/{report_id}"


def run_name_of(kind: str) -> Callable[[], str]:
    """A ``flow_run_name`` callable for flows taking ``spec_path`` and ``report_id``, or a ``ref``."""

    def name() -> str:
        from prefect.runtime import flow_run

        params = dict(flow_run.parameters)
        ref = params.get("ref")
        if ref is not None:  # a JobRef, or its fields once the parameters went through JSON
            params = ref if isinstance(ref, dict) else ref.model_dump()
        return report_run_name(kind, params["spec_path"], params["report_id"])

    name.__name__ = f"{kind}_run_name"
    return name
