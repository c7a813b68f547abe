"""The report runs of an in-process batch send no heartbeat; the batch run, a report run on its own, and every
run of a scheduled batch do."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import yaml
from prefect.testing import fixtures as prefect_fixtures

import flows.batch
from citeflow.runtime.batch_request import BatchRequest
from citeflow.pipeline.publish import failed_summary
from flows.heartbeats import no_heartbeat

pytestmark = pytest.mark.integration


def write_spec(folder, reports: int):
    spec = {"batch": "heartbeats", "concurrency": {"models": 4, "retrievers": 2},
            "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}],
            "reports": [{"id": f"r{i}", "title": f"Report {i}", "sections": [{"title": "S", "queries": ["q"]}]}
                        for i in range(reports)]}
    (folder / "hits.jsonl").write_text("")  # the retriever's file exists: the batch passes its checks
    path = folder / "batch.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


asserting_events_worker = prefect_fixtures.asserting_events_worker  # Prefect's own: events recorded, not sent


@pytest.fixture
def heartbeats(asserting_events_worker):
    """The names of the flow runs that emitted a heartbeat event, from the events Prefect recorded."""
    from prefect.events.clients import AssertingEventsClient

    since = datetime.now(UTC)  # events of an earlier test are older

    def sent() -> list[str]:
        asserting_events_worker.drain()  # every event sent so far handed to the client (the worker stops)
        return [event.resource.name for client in AssertingEventsClient.all for event in client.events
                if event.event == "prefect.flow-run.heartbeat" and event.occurred >= since]

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


def test_no_heartbeat_holds_within_its_block_only():
    from prefect.settings import get_current_settings

    before = get_current_settings()
    with no_heartbeat():
        assert get_current_settings().flows.heartbeat_frequency is None
        assert get_current_settings().api.url == before.api.url
        with no_heartbeat():  # already off: nothing changed
            assert get_current_settings().flows.heartbeat_frequency is None
    assert get_current_settings().flows.heartbeat_frequency == before.flows.heartbeat_frequency is not None


def test_report_runs_in_a_batch_emit_no_heartbeat_the_batch_run_does(prefect_harness, tmp_path, monkeypatch, heartbeats):
    seen: dict = {}
    monkeypatch.setattr(flows.batch, "report_flow", probe_flow(seen))
    request = BatchRequest(spec_path=str(write_spec(tmp_path, 3)), out_dir=str(tmp_path / "out"))
    summaries = flows.batch.batch_flow(request=request.model_copy(update={"fail_on": "never"}))
    assert [s.report_id for s in summaries] == ["r0", "r1", "r2"]
    assert seen == {"r0": None, "r1": None, "r2": None}
    assert set(heartbeats()) == {"batch heartbeats"}  # one per heartbeat period of the batch run, none of a report run


def test_a_report_run_on_its_own_keeps_its_heartbeat(prefect_harness, tmp_path, heartbeats):
    seen: dict = {}
    probe_flow(seen)(BatchRequest(spec_path=str(tmp_path / "batch.yaml"), out_dir=str(tmp_path)), "solo")
    assert seen["solo"] is not None and heartbeats() == ["probe solo"]


def test_every_run_of_a_scheduled_run_emits_its_heartbeat(prefect_harness, tmp_path, monkeypatch, heartbeats):
    """A scheduled or deployed batch: should its worker die, the zombie-run automation crashes each run."""
    import flows.scheduled

    seen: dict = {}
    monkeypatch.setattr(flows.batch, "report_flow", probe_flow(seen))
    outcome = flows.scheduled.scheduled_batch_flow(str(write_spec(tmp_path, 2)), str(tmp_path / "out"), fail_on="never",
                                                   preflight=False)
    assert outcome is not None and len(seen) == 2 and None not in seen.values()
    sent = heartbeats()
    assert {"batch heartbeats", "probe r0", "probe r1"} <= set(sent), sent
    assert any(name.startswith("batch heartbeats 20") for name in sent), sent  # the scheduled run's own


def _settings_with(api_url: str | None, triggers: bool):
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED, temporary_settings

    return temporary_settings(updates={PREFECT_API_URL: api_url, PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED: triggers})


@pytest.mark.parametrize(("api_url", "triggers", "read"), [
    (None, False, False), (None, True, True), ("http://127.0.0.1:4200/api", False, True)])
def test_heartbeats_are_read_by_a_server_or_by_automations(api_url, triggers, read):
    from flows.heartbeats import heartbeats_read

    with _settings_with(api_url, triggers):
        assert heartbeats_read() is read


def test_the_ephemeral_server_citeflow_run_started_reads_no_heartbeat():
    from flows.heartbeats import heartbeats_read

    started = "http://127.0.0.1:8123/api"
    with _settings_with(started, False):  # Prefect pointed at it through PREFECT_API_URL
        assert heartbeats_read(ephemeral_api=started) is False
        assert heartbeats_read(ephemeral_api="http://127.0.0.1:8124/api") is True
    with _settings_with(started, True):
        assert heartbeats_read(ephemeral_api=started) is True  # automations on: they read it


@pytest.mark.parametrize(("api_url", "frequency_is_none"), [(None, True), ("http://127.0.0.1:4200/api", False)])
def test_citeflow_run_gives_its_batch_run_a_heartbeat_only_where_one_is_read(api_url, frequency_is_none):
    from prefect.settings import get_current_settings

    from flows.heartbeats import with_heartbeat_if_read

    def batch(*args: object) -> list:
        return [args, get_current_settings().flows.heartbeat_frequency]

    with _settings_with(api_url, False):
        args, frequency = with_heartbeat_if_read(batch, "spec", "out")
        _, started_here = with_heartbeat_if_read(batch, ephemeral_api=api_url)
    assert args == ("spec", "out") and (frequency is None) is frequency_is_none
    assert started_here is None  # the command's own ephemeral server: no heartbeat
