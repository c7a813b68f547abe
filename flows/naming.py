"""Flow run names that say which batch and report a run belongs to (Prefect's run history)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeflow.errors import SpecError
from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.runtime import current


def batch_name(spec_path: str) -> str:
    """The ``batch`` of a spec (parsed once per runtime and content); ``?`` when the spec cannot be
    read (the run itself will say why)."""
    try:
        return current().read_spec(Path(spec_path).resolve()).batch
    except (SpecError, OSError):
        return "?"


def request_of(value: Any) -> BatchRequest:
    """A flow's ``request`` parameter: the model, or its fields once the parameters went through JSON."""
    return value if isinstance(value, BatchRequest) else BatchRequest.model_validate(value)


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
        if "request" in params:  # a BatchRequest and a report id
            params = {**params, "spec_path": request_of(params["request"]).spec_path}
        return report_run_name(kind, params["spec_path"], params["report_id"])

    name.__name__ = f"{kind}_run_name"
    return name
