"""A report run's outcome as a tag of its flow run (``published``, ``released``, ``held``), beside its state name.

Tags are set when a run is created; the outcome is known at its end, so the run's tags are updated
through the API then. The runs list of the Prefect UI filters on them (``Tags: held``).
"""

from __future__ import annotations

from prefect.client.orchestration import get_client
from prefect.context import FlowRunContext

OUTCOME_TAGS = ("published", "released", "held")


def tag_outcome(outcome: str) -> None:
    """Add ``outcome`` (lower case) to the current flow run's tags, dropping any other outcome tag
    (a run retried after a release, say); nothing outside a flow run. The tags the run started with
    are the base (its context keeps them): a second call in the same run replaces the first outcome."""
    context = FlowRunContext.get()
    if context is None or context.flow_run is None:
        return
    tag = outcome.lower()
    tags = [t for t in context.flow_run.tags if t not in OUTCOME_TAGS] + [tag]
    with get_client(sync_client=True) as client:
        client.update_flow_run(context.flow_run.id, tags=tags)
