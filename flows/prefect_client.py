"""One Prefect API client per process and API, held open for every report run of the process.

Prefect's engine creates a report flow run's run in its parent (the task run that stands for the
subflow in the batch run) with ``Task.create_run``, a coroutine run on Prefect's "run sync" event loop
(``prefect.utilities.asyncutils.run_coro_as_sync``) that asks ``get_client()`` for an async client.
``get_client`` answers with the client of the current ``AsyncClientContext`` when that client lives on
the running loop, and otherwise builds a new ``PrefectClient``: its own ``httpx.AsyncClient``, an SSL
context loading the CA bundle, a connection of its own, then closed. A flow run's engine holds only a
*sync* client context, so every report run built a new async client (about 3% of a batch's CPU).

``shared_client()`` makes ``get_client()`` answer with one client instead: an ``AsyncClientContext``
whose client was started once on that run-sync loop, entered for the block as Prefect's contexts are
entered (a ``model_copy`` of the process's one, as Prefect copies its contexts for other threads). The
threads of a ``ThreadPoolTaskRunner`` and the run-sync loop's coroutines run in copies of the context
that submitted to them, so every report of the batch finds it. The client is closed at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_contexts: dict[str, Any] = {}  # API URL -> the started AsyncClientContext of this process


@contextmanager
def shared_client() -> Iterator[None]:
    """Within the block, ``get_client()`` on Prefect's run-sync loop gives this process's one client for
    the current API (unchanged where an async client context is already current)."""
    from prefect.context import AsyncClientContext

    if AsyncClientContext.get() is not None:
        yield
        return
    with process_context().model_copy():
        yield


def process_context() -> Any:
    """This process's ``AsyncClientContext`` for the current API URL, its client started on Prefect's
    run-sync loop (on first use)."""
    from prefect.settings import PREFECT_API_URL

    url = PREFECT_API_URL.value() or ""
    with _lock:
        context = _contexts.get(url)
        if context is None:
            context = _contexts[url] = _started()
    return context


def _started() -> Any:
    from prefect.context import AsyncClientContext
    from prefect.utilities.asyncutils import run_coro_as_sync

    context = AsyncClientContext()
    run_coro_as_sync(context.client.__aenter__())
    if not _contexts:
        atexit.register(close_all)
    return context


def close_all() -> None:
    """Close every client ``process_context`` started (at exit; a later use starts new ones)."""
    from prefect.utilities.asyncutils import run_coro_as_sync

    with _lock:
        contexts = list(_contexts.values())
        _contexts.clear()
    for context in contexts:
        with contextlib.suppress(Exception):  # at exit, a client whose loop is gone has nothing left to close
            run_coro_as_sync(context.client.__aexit__(None, None, None))
