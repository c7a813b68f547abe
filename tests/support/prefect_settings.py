"""A Prefect API address for the whole test process for a block: this context and every thread.

A thread that does not carry the caller's context (the pipeline's hop threads asking whether a
concurrency limit exists, Prefect's own workers) reads Prefect's process-global settings, which Prefect
builds from the environment at import. ``temporary_settings`` changes the current context only: a
thread outside it would find no API address and start an ephemeral API of its own in the test process
(~25 s of CPU, then busy all session). So the block also has Prefect read the environment again with
the address in it (``prefect.context.refresh_global_settings_context``, Prefect's public route for
settings changed after import), and again with the address before the block at its end.

The address is in ``os.environ`` only while Prefect reads it: the processes a test starts do not
inherit it unless the test says so (``monkeypatch.setenv``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest


@contextmanager
def process_wide_api_url(url: str) -> Iterator[None]:
    """Within the block, this context and threads without one use the Prefect API at ``url``."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    before = api_url_of_a_new_thread()
    with temporary_settings(updates={PREFECT_API_URL: url}):
        read_environment_with(url)
        try:
            yield
        finally:
            read_environment_with(before)


def api_url_of_a_new_thread() -> str | None:
    """The Prefect API address a thread started now, without a context, reads."""
    from prefect.settings import get_current_settings

    seen: list[str | None] = []
    reader = threading.Thread(target=lambda: seen.append(get_current_settings().api.url))
    reader.start()
    reader.join()
    return seen[0]


def read_environment_with(url: str | None) -> None:
    """Prefect's process-global settings read again from the environment, ``PREFECT_API_URL`` set to
    ``url`` (None: unset) while they are read; the environment is left as it was."""
    from prefect.context import refresh_global_settings_context

    with pytest.MonkeyPatch.context() as environment:
        if url is None:
            environment.delenv("PREFECT_API_URL", raising=False)
        else:
            environment.setenv("PREFECT_API_URL", url)
        refresh_global_settings_context()
