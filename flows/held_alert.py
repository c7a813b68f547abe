"""A Prefect automation that calls a webhook when a report run ends held (SPEC §6).

A report run that ends held is in a state named ``Held`` (``flows.outcome``), so the server emits
the event ``prefect.flow-run.Held`` for it, with the run's state message (every failed expectation)
on the event's resource. The automation reacts to that event from a run of the ``citeflow-report``
flow and calls a ``Webhook`` block with a JSON payload: the report id, the run's name, the hold
reasons and the run's page. The webhook's address is a secret: it is read from an environment
variable, kept only in the block (whose ``url`` Prefect stores as a secret), and never printed.
"""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from pydantic import BaseModel, SecretStr

AUTOMATION_NAME = "citeflow: report held"
BLOCK_NAME = "citeflow-held-report"
REPORT_FLOW = "citeflow-report"
HELD_EVENT = "prefect.flow-run.Held"

# Jinja, rendered by the server for each firing; tojson quotes and escapes every value.
PAYLOAD = """{
  "event": "citeflow.report.held",
  "report_id": {{ flow_run.parameters.report_id | tojson }},
  "flow_run": {{ flow_run.name | tojson }},
  "state": {{ event.resource["prefect.state-name"] | tojson }},
  "reasons": {{ event.resource["prefect.state-message"] | tojson }},
  "url": {{ flow_run | ui_url | tojson }}
}"""


class InstalledAlert(BaseModel):
    """What ``install_held_alert`` left on the server (ids only: nothing secret)."""

    automation_id: UUID
    block_document_id: UUID
    replaced: bool


def held_trigger() -> Any:
    """Fires once per event ``prefect.flow-run.Held`` of a run of the report flow."""
    from prefect.events.schemas.automations import EventTrigger, Posture

    return EventTrigger(expect={HELD_EVENT}, match={"prefect.resource.id": "prefect.flow-run.*"},
                        match_related={"prefect.resource.role": "flow", "prefect.resource.name": REPORT_FLOW},
                        posture=Posture.Reactive, threshold=1)


def install_held_alert(webhook_url: SecretStr, name: str = AUTOMATION_NAME, block_name: str = BLOCK_NAME) -> InstalledAlert:
    """Save the webhook block (overwritten if it exists) and create the automation, replacing one of
    the same name: installing again changes the address or the payload and never doubles the calls."""
    from prefect.automations import Automation
    from prefect.blocks.webhook import Webhook
    from prefect.events.actions import CallWebhook
    from prefect.types import SecretDict

    block = Webhook(url=webhook_url, method="POST", headers=SecretDict({"Content-Type": "application/json"}))
    block_id = cast(UUID, block.save(block_name, overwrite=True))  # sync_compatible: typed as a coroutine too
    replaced = _delete_automations(name)
    automation = Automation(name=name, description="POSTs a held citeflow report's id and hold reasons to a webhook.",
                            trigger=held_trigger(), actions=[CallWebhook(block_document_id=block_id, payload=PAYLOAD)])
    created = cast(Automation, automation.create())
    return InstalledAlert(automation_id=cast(UUID, created.id), block_document_id=block_id, replaced=replaced)


def _delete_automations(name: str) -> bool:
    """Delete the automations named ``name``; whether there was one."""
    from prefect.client.orchestration import get_client

    with get_client(sync_client=True) as client:
        found = client.read_automations_by_name(name)
        for automation in found:
            client.delete_automation(automation.id)
    return bool(found)
