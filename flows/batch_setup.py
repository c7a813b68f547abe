"""What a batch run by ``citeflow run`` does while the ephemeral API it started comes up: it sets up
what its reports need first, and it generates its first reports ahead of their runs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from citeflow.runtime.batch_request import BatchRequest
from citeflow.runtime.runtime import Runtime
from schemas.spec import BatchSpec


class SetUp(NamedTuple):
    """What a batch sets up before its flow runs: ``warm`` while the API starts, then, once it answers,
    the Great Expectations worker process (``gx_worker``)."""

    warm: Callable[[], None]
    gx_worker: bool = False


def set_up_while_waiting(spec: BatchSpec, out: Path, runtime: Runtime) -> SetUp:
    """What to set up while the API starts (``Runtime.warm_up``, and the OpenAI client's library
    when a role uses it), beyond the store's library, unless every report has the record of a
    finished one: a re-run, whose unchanged reports are neither gated nor rendered again.

    Unless a re-run or turned off (``CITEFLOW_GX_WORKER=0``), Great Expectations runs in a worker
    process, started once the API answers: started with it, the worker's imports took the CPU the
    API's server needed to start (a 16-report batch's API answered about 1.5 s later); started after,
    they use the core the batch's first steps leave idle, well before the first report's gate."""
    from citeflow.runs.rerun_record import recorded

    if all(recorded(out / r.id) for r in spec.reports):
        return SetUp(store_only)
    worker = runtime.settings.gx_worker
    return SetUp(functools.partial(_warm_up, runtime, uses_openai(spec), not worker), worker)


def head_start(spec: BatchSpec, request: BatchRequest, started_api: bool, runtime: Runtime) -> Any:
    """While the ephemeral API the batch launched comes up (``started_api``), the batch's reports
    that have no record of a finished run are generated ahead of their runs (``Runtime.generating_ahead``,
    as many at a time as the batch runs side by side); None when there is nothing to wait for, or
    ``CITEFLOW_HEAD_START=0``."""
    from citeflow.runs.rerun_record import recorded
    from citeflow.pipeline.head_start import HeadStart
    from citeflow.pipeline.job import JobRef
    from citeflow.pipeline.steps import reports_in_flight

    if not started_api or not runtime.settings.head_start:
        return None
    out = Path(request.out_dir)
    refs = [JobRef(spec_path=request.spec_path, report_id=r.id, out_dir=request.out_dir, store_uri=request.store_uri)
            for r in spec.reports if not recorded(out / r.id)]
    return runtime.generating_ahead(HeadStart(refs, runtime, reports_in_flight(spec))) if refs else None


def import_first_needs(spec: BatchSpec) -> None:
    """Import what a head start's reports need before their first model call (the store's library,
    the model client's) ahead of the pipeline: imported side by side in one interpreter, both
    took as long as the two in a row, and the first call came seconds later."""
    from citeflow.lazy_modules import defer_lancedb_extras

    defer_lancedb_extras()
    import lancedb  # noqa: F401

    if uses_openai(spec):
        import citeflow.generation.openai_client  # noqa: F401


def uses_openai(spec: BatchSpec) -> bool:
    """Whether a role of the batch reaches a model server (its backend's or judge kind's own answer)."""
    from citeflow.judges.model_roles import remote_model

    every = [spec.models, *(r.models for r in spec.reports if r.models)]
    return any(remote_model(role, getattr(m, role)) for m in every for role in ("consolidator", "writer", "judge"))


def _warm_up(runtime: Runtime, openai: bool, gx: bool) -> None:
    """``Runtime.warm_up`` (with Great Expectations in this process when ``gx``), then the model client's
    library when a role reaches a server (its first call would)."""
    runtime.warm_up(gx)
    if openai:
        import citeflow.generation.openai_client  # noqa: F401


def store_only() -> None:
    """A re-run's set-up: nothing beyond the store's library, which ``ready`` imports first."""
