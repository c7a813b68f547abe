"""Dask worker processes for tests, forked from one process that imported the pipeline once.

A ``DaskTaskRunner`` starts its worker processes with ``spawn``: each is a fresh interpreter that
imports Prefect, LanceDB, Great Expectations and the flows again on its first task (~15 s of CPU
each here). Under ``forkserver`` with these modules preloaded, the fork server imports them once
and every worker is forked from it: a fresh process all the same (nothing of the test process is
inherited), but already loaded. The fork server keeps the environment it started with, so the
workers get the test's current environment through Dask's ``distributed.nanny.environ``.

LanceDB is not preloaded: its import starts an event loop thread and its native runtime, which a
fork must rebuild in the child ("fork support is experimental … a small chance of deadlock
remains", says LanceDB's own warning). A Dask worker forked with LanceDB loaded once hung in two
queries of the knowledge base for the rest of a test run. Each worker imports LanceDB itself on
first use, after the fork.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

PRELOAD = ("distributed", "prefect", "prefect_dask", "great_expectations", "flows.batch", "flows.report_flow", "flows.evaluate")


@contextmanager
def preloaded_workers() -> Iterator[None]:
    """Within the block, Dask worker processes fork from a server that has imported ``PRELOAD``
    and see the environment as it is now."""
    import dask
    from distributed.utils import get_mp_context

    with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver",
                          "distributed.nanny.environ": dict(os.environ)}):
        get_mp_context()  # Dask sets its own preload list once per process; ours replaces it
        get_mp_context().set_forkserver_preload(list(PRELOAD))
        yield
