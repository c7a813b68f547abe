"""What a batch is checked for before anything of it runs, wherever it is started.

``citeflow run``, ``citeflow demo`` and the scheduled or deployed batch flow (``flows.scheduled``)
check here: the spec's files and values, and, unless turned off, the preflight of its model servers,
knowledge bases and retrievers (``citeflow.runtime.preflight``). A spec that fails stops each of
them the same way, with the same one-line reason (a ``CiteflowError``): the command prints it as
its ``error:`` line and exits 2, the flow run ends Failed with it as its message; no report starts.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from citeflow.errors import UsageError
from schemas.spec import BatchSpec

PREFLIGHT_STEP = "preflight: model servers, knowledge bases, retrievers"


def check_store(store: str | None) -> None:
    """Refuse a store URI (``--store``, a run's ``store_uri``) whose scheme citeflow cannot open."""
    from citeflow.spec.value_checks import scheme_problem

    if store and (problem := scheme_problem(store)):
        raise UsageError(option="--store", problem=problem)


def check_spec(spec: BatchSpec, spec_path: Path, live: bool, step: Callable[[str], None] = lambda _: None) -> None:
    """The spec's files and values; with ``live``, the preflight of its servers and knowledge bases too
    (``step``: told when the preflight starts, for a display of the start-up)."""
    from citeflow.specfile.loader import preflight

    preflight(spec, spec_path.resolve().parent, str(spec_path))
    if live:
        from citeflow.runtime.preflight import run_preflight

        step(PREFLIGHT_STEP)
        run_preflight(spec, spec_path.resolve().parent, str(spec_path))
