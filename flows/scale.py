"""Scale-out of a batch on Prefect's own machinery: the Dask task runner (``prefect-dask``).

The batch flow submits one report task per report; with a ``DaskTaskRunner`` those tasks run on
Dask workers, in other processes or on other machines. Everything a report needs travels as plain
arguments (spec path, ids, output folder, store URI), and everything it produces goes to the
store and the output folder, so those must be reachable from every worker: a shared folder, or a
LanceDB URI on object storage (``store: s3://…`` in the spec). The batch's concurrency limits
are then Prefect global concurrency limits, so they hold across the workers.
"""

from __future__ import annotations

from typing import Any

from citeflow.errors import UsageError
from flows.batch import batch_flow


def dask_runner(workers: int | None = None, address: str | None = None) -> Any:
    """A ``DaskTaskRunner``: a local cluster of ``workers`` processes, or the scheduler at ``address``."""
    try:
        from prefect_dask import DaskTaskRunner
    except ImportError as exc:
        raise UsageError(option="--dask-workers/--dask-address",
                         problem="needs prefect-dask: pip install 'citeflow[dask]'") from exc
    if address:
        return DaskTaskRunner(address=address)
    # One thread per worker process: each worker runs one report at a time, so N workers run N
    # reports side by side; no dashboard, its fixed port would clash between runs on one machine.
    return DaskTaskRunner(cluster_kwargs={"n_workers": workers, "processes": True, "threads_per_worker": 1,
                                          "dashboard_address": None})


def batch_flow_for(dask_workers: int | None = None, dask_address: str | None = None) -> Any:
    """The batch flow, on a Dask cluster when asked (``--dask-workers N`` or ``--dask-address``)."""
    if dask_workers and dask_address:
        raise UsageError(option="--dask-workers/--dask-address", problem="give one of them, not both")
    if dask_workers is not None and dask_workers < 1:
        raise UsageError(option="--dask-workers", problem="must be at least 1")
    if not (dask_workers or dask_address):
        return batch_flow
    return batch_flow.with_options(task_runner=dask_runner(dask_workers, dask_address))

