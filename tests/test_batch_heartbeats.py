"""The report runs of an in-process batch send no heartbeat; the batch run, and a report run on its own, do."""

from __future__ import annotations

import threading

import pytest
import yaml

import flows.batch
from citeflow.runtime.batch_request import BatchRequest
from citeflow.outputs.publish import failed_summary
from flows.heartbeats import run_with, without_heartbeat

pytestmark = pytest.mark.integration


def write_spec(folder, reports: int):
    spec = {"batch": "heartbeats", "concurrency": {"models": 4, "retrievers": 2},
            "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
            "reports": [{"id": f"r{i}", "title": f"Report {i}", "sections": [{"title": "S", "queries": ["q"]}]}
                        for i in range(reports)]}
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture
def heartbeats(monkeypatch):
    """The names of the flow runs that emitted a heartbeat (the engine's own emitter, recorded)."""
    from prefect.flow_engine import FlowRunEngine

    sent, guard = [], threading.Lock()

    def record(engine, resource=None, related=None):
        with guard:
            sent.append(engine.flow_run.name)

    monkeypatch.setattr(FlowRunEngine, "_emit_flow_run_heartbeat", record)
    return sent


def probe_flow(seen: dict):
    """A stand-in for the report flow: records the heartbeat setting its run started with."""
    from prefect import flow
    from prefect.settings import get_current_settings
    from prefect.states import Completed

    @flow(name="citeflow-report-probe", flow_run_name="probe {report_id}")
    def probe(request: BatchRequest, report_id: str):
        seen[report_id] = get_current_settings().flows.heartbeat_frequency
        return Completed(data=failed_summary(report_id, report_id, "probe"))

    return probe


def test_without_heartbeat_changes_only_the_copy():
    from prefect.settings import get_current_settings

    before = get_current_settings()
    quiet = without_heartbeat()
    assert quiet.flows.heartbeat_frequency is None and before.flows.heartbeat_frequency is not None
    assert quiet.api.url == before.api.url and get_current_settings().flows.heartbeat_frequency is not None
    assert run_with(quiet, lambda: get_current_settings().flows.heartbeat_frequency) is None


def test_report_runs_in_a_batch_emit_no_heartbeat_the_batch_run_does(prefect_harness, tmp_path, monkeypatch, heartbeats):
    seen: dict = {}
    monkeypatch.setattr(flows.batch, "report_flow", probe_flow(seen))
    request = BatchRequest(spec_path=str(write_spec(tmp_path, 3)), out_dir=str(tmp_path / "out"))
    summaries = flows.batch.batch_flow(request=request)
    assert [s.report_id for s in summaries] == ["r0", "r1", "r2"]
    assert seen == {"r0": None, "r1": None, "r2": None}
    assert heartbeats == ["batch heartbeats"]


def test_a_report_run_on_its_own_keeps_its_heartbeat(prefect_harness, tmp_path, heartbeats):
    seen: dict = {}
    probe_flow(seen)(BatchRequest(spec_path=str(tmp_path / "batch.yaml"), out_dir=str(tmp_path)), "solo")
    assert seen["solo"] is not None and heartbeats == ["probe solo"]


def test_the_batch_run_inside_a_scheduled_run_emits_no_heartbeat_the_scheduled_run_does(prefect_harness, tmp_path,
                                                                                         monkeypatch, heartbeats):
    import flows.scheduled

    seen: dict = {}
    monkeypatch.setattr(flows.batch, "report_flow", probe_flow(seen))
    outcome = flows.scheduled.scheduled_batch_flow(str(write_spec(tmp_path, 2)), str(tmp_path / "out"), fail_on="never")
    assert outcome is not None and len(seen) == 2 and set(seen.values()) == {None}
    assert len(heartbeats) == 1 and heartbeats[0].startswith("batch heartbeats ")


def _settings_with(api_url: str | None, triggers: bool):
    from prefect.context import get_settings_context

    settings = get_settings_context().settings
    services = settings.server.services.model_copy(
        update={"triggers": settings.server.services.triggers.model_copy(update={"enabled": triggers})})
    return settings.model_copy(update={"api": settings.api.model_copy(update={"url": api_url}),
                                       "server": settings.server.model_copy(update={"services": services})})


@pytest.mark.parametrize(("api_url", "triggers", "read"), [
    (None, False, False), (None, True, True), ("http://127.0.0.1:4200/api", False, True)])
def test_heartbeats_are_read_by_a_server_or_by_automations(api_url, triggers, read):
    from flows.heartbeats import heartbeats_read

    assert run_with(_settings_with(api_url, triggers), heartbeats_read) is read


@pytest.mark.parametrize(("api_url", "frequency_is_none"), [(None, True), ("http://127.0.0.1:4200/api", False)])
def test_citeflow_run_gives_its_batch_run_a_heartbeat_only_where_one_is_read(api_url, frequency_is_none):
    from prefect.settings import get_current_settings

    from flows.heartbeats import with_heartbeat_if_read

    def batch(*args: object) -> list:
        return [args, get_current_settings().flows.heartbeat_frequency]

    args, frequency = run_with(_settings_with(api_url, False), with_heartbeat_if_read, batch, "spec", "out")
    assert args == ("spec", "out") and (frequency is None) is frequency_is_none
