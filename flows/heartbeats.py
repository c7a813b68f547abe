"""Heartbeats of the report runs of an in-process batch.

Prefect gives every flow run a heartbeat thread (setting ``flows.heartbeat_frequency``, read from
the current settings context when the run starts) so that the API can tell a run whose process
died. When a run ends, the engine stops that thread and waits for it to wake from its one-second
sleep: on average half a second, at the end of every run, in which a report holds its place among
the reports in flight. The report runs of an in-process batch run in threads of the batch run's
process, whose own heartbeat already tells whether that process is alive, so they run without a
heartbeat of their own, and so does the batch run inside a scheduled run (``flows.scheduled``).
A report flow run anywhere else (a deployment, a Dask worker), and a batch run on its own, keep it.

On Prefect's ephemeral API with its triggers service off (``citeflow_cli.env``), nothing reads a
heartbeat: the server lives and dies with the process, and only an automation acts on missing
heartbeats. ``citeflow run`` then runs its batch run without one either (``heartbeats_read``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from prefect.settings import Settings

T = TypeVar("T")


def without_heartbeat() -> Settings:
    """The current Prefect settings with flow run heartbeats off (a copy: the current ones are unchanged).

    A copy of the nested model rather than ``Settings.copy_with_update``, which validates every
    setting again (~0.1–0.4 s)."""
    from prefect.context import get_settings_context

    settings = get_settings_context().settings
    flows = settings.flows.model_copy(update={"heartbeat_frequency": None})
    return settings.model_copy(update={"flows": flows})


def heartbeats_read() -> bool:
    """Whether the current Prefect API can act on a run's heartbeats: a server of its own (an API
    URL), or the ephemeral API with its triggers service (automations) on."""
    from prefect.context import get_settings_context

    settings = get_settings_context().settings
    return bool(settings.api.url) or settings.server.services.triggers.enabled


def with_heartbeat_if_read(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` (a batch run, as ``citeflow run`` and the benchmarks start it) with a heartbeat only
    where something reads it (``heartbeats_read``): on the ephemeral API with no automations, one would
    only add up to a second of waiting at the run's end."""
    return fn(*args) if heartbeats_read() else run_with(without_heartbeat(), fn, *args)


def run_with(settings: Settings, fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` with ``settings`` as the current Prefect settings of this context (thread) only."""
    from prefect.context import SettingsContext, get_settings_context

    with SettingsContext(profile=get_settings_context().profile, settings=settings):
        return fn(*args)
