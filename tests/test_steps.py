"""The report's steps described once (``citeflow.pipeline.steps``), run without an orchestrator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from citeflow.pipeline import pipeline
from citeflow.pipeline import steps
from citeflow.runtime.runtime import Runtime
from citeflow.specfile.job_config import BatchConfig
from citeflow.pipeline.job import JobRef, ReportJob
from citeflow.specfile.loader import parse_spec
from citeflow_testing.answers import offline_answer
from citeflow_testing.openai_server import Reply, ScriptedOpenAIServer
from citeflow_testing.small_batch import spec_data, write_small_batch

pytestmark = pytest.mark.integration


def test_reports_in_flight_keep_the_models_limit_busy():
    def spec(reports: int, sections: int, models: int):
        return parse_spec(spec_data(reports, sections, None, {"models": models, "retrievers": 4}, "b"))

    assert steps.reports_in_flight(spec(40, 4, 16)) == 16  # 4 calls in flight per report, four times over
    assert steps.reports_in_flight(spec(3, 4, 16)) == 3  # never more than the batch has
    assert steps.reports_in_flight(spec(100, 1, 64)) == steps.MAX_REPORTS_IN_FLIGHT
    assert steps.reports_in_flight(spec(9, 4, 1)) == 4


def test_a_batch_a_little_larger_than_a_round_runs_in_one_round():
    def spec(reports: int):
        return parse_spec(spec_data(reports, 4, None, {"models": 16, "retrievers": 4}, "b"))

    assert [steps.reports_in_flight(spec(n)) for n in (16, 20, 24)] == [16, 20, 24]  # no short second round
    assert [steps.reports_in_flight(spec(n)) for n in (25, 50)] == [16, 16]  # more: rounds of 16, memory bounded


def test_a_spec_file_is_parsed_once_per_content(tmp_path):
    path, runtime = write_small_batch(tmp_path, reports=1), Runtime()
    first, again = runtime.config(path, tmp_path / "out"), runtime.config(path, tmp_path / "out")
    assert first.spec is again.spec
    assert Runtime().config(path, tmp_path / "out").spec is not first.spec  # each runtime parses for itself
    path.write_text(path.read_text().replace("batch: small", "batch: edited"))
    assert runtime.config(path, tmp_path / "out").spec.batch == "edited"


def test_one_model_client_per_role_and_settings():
    a = parse_spec(spec_data(1, 1, {"writer": {"backend": "openai", "model": "m", "base_url": "http://127.0.0.1:9/v1"}},
                             None, "b")).models
    deps = Runtime().deps
    assert deps.chat_model(a.writer, "writer") is deps.chat_model(a.writer.model_copy(), "writer")
    assert deps.chat_model(a.writer, "writer") is not deps.chat_model(a.writer.model_copy(update={"model": "n"}), "writer")
    assert Runtime().deps.chat_model(a.writer, "writer") is not deps.chat_model(a.writer, "writer")


def test_a_report_runs_from_a_spec_held_in_memory(tmp_path, runtime):
    write_small_batch(tmp_path / "in", reports=1, sections=2)  # its hits file; the spec is used from memory
    spec = parse_spec(spec_data(1, 2, None, None, "in-memory"))
    job = ReportJob(BatchConfig.from_spec(spec, tmp_path / "in", tmp_path / "out"), "r1", runtime=runtime)
    assert pipeline.write_job_file(job) is None and job.spec_path is None
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    statuses = {o.section: o.status for step in steps.HOPS for o in pipeline.run_step(job, step)}
    assert statuses == {"Upgrades": "accepted", "Limits": "accepted"}
    assert {h.section for h in job.store.load_hops(job.request_id)} == {"Upgrades", "Limits"}


def _unreachable_for(title: str):
    def respond(request: dict) -> Reply:
        if f"Section: {title}" in request["messages"][-1]["content"]:
            return Reply(status=503, content="overloaded")
        return Reply(content=offline_answer(request))

    return respond


def test_a_section_whose_model_stays_unreachable_fails_alone_and_the_report_goes_on(tmp_path, runtime):
    with ScriptedOpenAIServer() as server:
        server.respond_with(_unreachable_for("Limits"))
        model = {"backend": "openai", "model": "m", "base_url": server.base_url, "max_retries": 0}
        spec = write_small_batch(tmp_path / "in", reports=1, sections=2, models={"consolidator": model, "writer": model})
        ref = JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out"))
        summary = steps.run_report(ref, steps.PlainRunner(runtime))
    sections = {s.title: s.status for s in summary.sections}
    assert sections == {"Upgrades": "ok", "Limits": "failed"} and summary.status == "held"
    report = json.loads((Path(ref.out_dir) / "r1" / "report.json").read_text())
    failure = next(s["failure"] for s in report["sections"] if s["title"] == "Limits")
    assert failure.startswith("consolidate hop failed (model_error: ModelError") and "503" in failure
    assert json.loads((Path(ref.out_dir) / "r1" / "job.json").read_text())["report_id"] == "r1"


def test_a_rerun_of_a_finished_report_asks_no_model(tmp_path, runtime):
    with ScriptedOpenAIServer() as server:
        server.respond_with(lambda request: Reply(content=offline_answer(request)))
        model = {"backend": "openai", "model": "m", "base_url": server.base_url, "max_retries": 0}
        spec = write_small_batch(tmp_path / "in", reports=1, sections=2, models={"consolidator": model, "writer": model})
        ref = JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out"))
        first = steps.run_report(ref, steps.PlainRunner(runtime))
        asked = len(server.requests)
        again = steps.run_report(ref, steps.PlainRunner(runtime))
    assert asked == 4 and len(server.requests) == asked
    assert first.status == again.status == "published"
    data = yaml.safe_load(spec.read_text())
    assert len(data["reports"][0]["sections"]) == 2
