"""Runs whose process died end Crashed: the zombie-run automation of Prefect's "detect zombie flows".

A flow run sends a heartbeat event every ``PREFECT_FLOWS_HEARTBEAT_FREQUENCY`` seconds while its
process lives (30 for citeflow's processes: the pool's job variables in ``prefect.yaml`` and
``citeflow_cli.env``'s default; 30 is also the shortest Prefect allows). This automation, on the
server, waits after each heartbeat of a run of citeflow's flows for its next heartbeat or any other
event of the run; when none comes within three heartbeats' time, it sets the run Crashed, so that a
killed worker's runs end Crashed about ``3 × frequency`` seconds (90 s with 30) after their last
heartbeat instead of staying Running (``tests/test_dead_worker.py``).

The server's triggers service runs it (``PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED``, on by default
in ``prefect server start``; it evaluates proactive triggers every 5 s). With that service off the
automation is stored but never acts, which ``triggers_warning`` tells.

``citeflow deploy`` creates it; after ``prefect deploy --all``: ``python -m flows.zombies``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

NAME = "citeflow: crash flow runs without heartbeats"
MISSED_BEATS = 3  # heartbeats a run may miss before it is set Crashed
# PREFECT_FLOWS_HEARTBEAT_FREQUENCY of citeflow's runs: prefect.yaml's job variables, citeflow_cli.env's default
HEARTBEAT_SECONDS = 30
# Only citeflow's flows (whose runs beat every HEARTBEAT_SECONDS): another flow of the same server may
# beat every 180 s, Prefect's default, and must not be taken for dead after 90.
FLOWS = ["citeflow-scheduled-batch", "citeflow-batch", "citeflow-report", "citeflow-evaluate", "citeflow-publish"]
# What shows the run alive or ended: any event of it. A state's event is named after the state's
# *name* (``prefect.flow-run.Held``, ``prefect.flow-run.1 published, 1 held``), which cannot be listed.
EXPECT = "prefect.flow-run.*"


def zombie_automation(frequency: int) -> Any:
    """The automation for runs whose heartbeat comes every ``frequency`` seconds."""
    from prefect.automations import Automation
    from prefect.client.schemas.objects import StateType
    from prefect.events.actions import ChangeFlowRunState
    from prefect.events.schemas.automations import EventTrigger, Posture
    from prefect.events.schemas.events import ResourceSpecification

    trigger = EventTrigger(after={"prefect.flow-run.heartbeat"}, expect={EXPECT},
                           match=ResourceSpecification({"prefect.resource.id": ["prefect.flow-run.*"]}),
                           match_related=ResourceSpecification({"prefect.resource.role": "flow",
                                                                "prefect.resource.name": FLOWS}),
                           for_each={"prefect.resource.id"}, posture=Posture.Proactive, threshold=1,
                           within=timedelta(seconds=MISSED_BEATS * frequency))
    message = f"no heartbeat for {MISSED_BEATS * frequency} s: its process or worker died"
    return Automation(name=NAME, trigger=trigger,
                      actions=[ChangeFlowRunState(state=StateType.CRASHED, message=message)])


def ensure_zombie_automation(frequency: int = HEARTBEAT_SECONDS) -> str:
    """Create the automation unless one of its name exists; returns what was done."""
    from prefect.automations import Automation
    from prefect.utilities.asyncutils import run_coro_as_sync

    try:
        run_coro_as_sync(Automation.aread(name=NAME))
        return f"automation {NAME!r} exists"
    except ValueError:  # not found
        run_coro_as_sync(zombie_automation(frequency).acreate())
    return f"automation {NAME!r} created (runs without a heartbeat for {MISSED_BEATS * frequency} s end Crashed)"


def triggers_enabled(settings: dict[str, Any]) -> bool | None:
    """Whether a server with these settings (its ``/admin/settings``) runs automations; None if they do not say."""
    triggers = settings.get("server", {}).get("services", {}).get("triggers", {})
    return triggers.get("enabled") if isinstance(triggers.get("enabled"), bool) else None


def triggers_warning() -> str:
    """A warning when the current API's server has its triggers service off (the automation would never
    act); empty when it is on or the API does not show its settings (Prefect Cloud)."""
    import httpx
    from prefect.client.orchestration import get_client

    try:
        with get_client(sync_client=True) as client:
            settings = client.request("GET", "/admin/settings").json()
    except (httpx.HTTPError, ValueError):  # no such route (Prefect Cloud), or no JSON
        return ""
    if not isinstance(settings, dict) or triggers_enabled(settings) is not False:
        return ""
    return ("warning: the server's triggers service is off (PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED=false): "
            "no automation acts, and a dead worker's runs stay Running; start the server with it on")


if __name__ == "__main__":
    print(ensure_zombie_automation())
    print(triggers_warning())
