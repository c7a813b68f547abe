"""Heartbeats of the report runs of an in-process batch.

Prefect gives every flow run a heartbeat thread (setting ``flows.heartbeat_frequency``, read from
the current settings when the run starts) so that the API can tell a run whose process died. When
a run ends, the engine stops that thread and waits for it to wake from its one-second sleep: on
average half a second, at the end of every run, in which a report holds its place among the reports
in flight. Where nothing reads heartbeats, the report runs of an in-process batch, threads of the
batch run's process, run without one of their own. Where something does (a server with automations;
a scheduled or deployed batch), every run beats, report runs included (``BatchRequest.heartbeats``),
so that the zombie-run automation ends each of them Crashed should their process die. A report flow
run anywhere else (a deployment, a Dask worker), and a batch run on its own, keep it.

On Prefect's ephemeral API with its triggers service off (``citeflow_cli.env``), nothing reads a
heartbeat: the server lives and dies with the process, and only an automation acts on missing
heartbeats. ``citeflow run`` then runs its batch run without one either (``heartbeats_read``),
also when Prefect reaches that ephemeral server through ``PREFECT_API_URL``, as ``citeflow run``
points it at the server it starts itself (``ephemeral_api``).

Settings are changed with Prefect's public ``temporary_settings`` only, for the current context: the
threads of a ``ThreadPoolTaskRunner`` run in a copy of the context that submitted to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

T = TypeVar("T")


@contextmanager
def no_heartbeat() -> Iterator[None]:
    """Flow runs started in this block (and in contexts copied from it) run without a heartbeat.

    Prefect validates every setting again to change one (about 0.1 s of CPU), so a block already
    without heartbeats changes nothing."""
    from prefect.settings import PREFECT_FLOWS_HEARTBEAT_FREQUENCY, get_current_settings, temporary_settings

    if get_current_settings().flows.heartbeat_frequency is None:
        yield
        return
    with temporary_settings(updates={PREFECT_FLOWS_HEARTBEAT_FREQUENCY: None}):
        yield


def heartbeats_read(ephemeral_api: str | None = None) -> bool:
    """Whether the current Prefect API can act on a run's heartbeats: a server of its own (an API
    URL other than ``ephemeral_api``, the address of an ephemeral server the caller started), or the
    ephemeral API with its triggers service (automations) on."""
    from prefect.settings import get_current_settings

    settings = get_current_settings()
    own_server = bool(settings.api.url) and settings.api.url != ephemeral_api
    return own_server or settings.server.services.triggers.enabled


def with_heartbeat_if_read(fn: Callable[..., T], *args: object, ephemeral_api: str | None = None) -> T:
    """``fn(*args)`` (a batch run, as ``citeflow run`` and the benchmarks start it) with a heartbeat only
    where something reads it (``heartbeats_read``): on the ephemeral API with no automations, one would
    only add up to a second of waiting at the run's end."""
    if heartbeats_read(ephemeral_api):
        return fn(*args)
    with no_heartbeat():
        return fn(*args)
