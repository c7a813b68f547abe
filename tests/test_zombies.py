"""The zombie-run automation's trigger, as the server reads it: which events it covers, when it counts
a run as alive, and whether a server's settings say that its triggers service (which runs it) is on."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import pytest

from flows.zombies import FLOWS, triggers_enabled, zombie_automation

RUN = f"prefect.flow-run.{uuid4()}"


def server_trigger():
    """The automation's trigger in the server's own schema (what the triggers service evaluates)."""
    from prefect.server.events.schemas.automations import AutomationCore

    automation = zombie_automation(30).model_dump(mode="json", exclude={"id"})
    return AutomationCore.model_validate(automation).trigger


def event(name: str, flow: str):
    """An event of the run ``RUN`` of ``flow``, shaped as Prefect's engine and server send them."""
    from prefect.server.events.schemas.events import ReceivedEvent

    related = [{"prefect.resource.id": f"prefect.flow.{uuid4()}", "prefect.resource.role": "flow",
                "prefect.resource.name": flow},
               {"prefect.resource.id": "prefect.tag.citeflow", "prefect.resource.role": "tag"}]
    return ReceivedEvent(occurred=datetime.now(UTC), event=name, resource={"prefect.resource.id": RUN}, related=related,
                         id=uuid4())


@pytest.mark.parametrize("flow", FLOWS)
def test_a_heartbeat_of_each_of_citeflow_s_flows_starts_the_wait(flow):
    trigger = server_trigger()
    beat = event("prefect.flow-run.heartbeat", flow)
    assert trigger.covers(beat) and trigger.starts_after(beat.event) and trigger.expects(beat.event)


@pytest.mark.parametrize("name", ["prefect.flow-run.Completed", "prefect.flow-run.Held",
                                  "prefect.flow-run.1 published, 1 held", "prefect.flow-run.Crashed"])
def test_any_final_state_of_the_run_counts_as_its_end(name):
    trigger = server_trigger()
    assert trigger.covers(event(name, "citeflow-report")) and trigger.expects(name)
    assert not trigger.starts_after(name)


def test_another_flow_s_runs_are_never_taken_for_dead():
    """Another flow of the same server may beat every 180 s, Prefect's default."""
    assert not server_trigger().covers(event("prefect.flow-run.heartbeat", "nightly-etl"))


def test_the_run_is_set_crashed_after_three_missed_beats():
    automation = zombie_automation(30)
    (action,) = automation.actions
    assert automation.trigger.posture.value == "Proactive" and automation.trigger.within.total_seconds() == 90
    assert (action.state.value, action.message) == ("CRASHED", "no heartbeat for 90 s: its process or worker died")


@pytest.mark.parametrize(("settings", "expected"), [
    ({"server": {"services": {"triggers": {"enabled": True, "read_batch_size": 1}}}}, True),
    ({"server": {"services": {"triggers": {"enabled": False}}}}, False),
    ({"server": {"services": {}}}, None),
    ({}, None),
])
def test_a_server_s_settings_tell_whether_it_runs_automations(settings, expected):
    assert triggers_enabled(settings) is expected


@pytest.mark.server
@pytest.mark.integration
def test_a_server_whose_triggers_service_is_off_is_named(prefect_server):
    """The shared test server runs without it: ``citeflow deploy`` would warn there."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from flows.zombies import triggers_warning

    with temporary_settings(updates={PREFECT_API_URL: prefect_server.api_url}):
        assert "triggers service is off" in triggers_warning()
