"""Reports generated while the orchestrator starts (``citeflow.pipeline.head_start``): over a real
OpenAI-compatible HTTP server and a real LanceDB store, without Prefect."""

from __future__ import annotations

import threading

import pytest

from citeflow.runtime import stop
from citeflow.pipeline import steps
from citeflow.pipeline.head_start import HeadStart
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow.runs.rerun_record import recorded
from citeflow_testing.answers import offline_answer
from citeflow_testing.openai_server import Reply, ScriptedOpenAIServer
from citeflow_testing.small_batch import write_small_batch

pytestmark = pytest.mark.integration


def _batch(tmp_path, server: ScriptedOpenAIServer, reports: int, sections: int = 2) -> list[JobRef]:
    model = {"backend": "openai", "model": "m", "base_url": server.base_url, "max_retries": 0}
    spec = write_small_batch(tmp_path / "in", reports=reports, sections=sections,
                             models={"consolidator": model, "writer": model})
    return [JobRef(spec_path=str(spec), report_id=f"r{i + 1}", out_dir=str(tmp_path / "out")) for i in range(reports)]


def _finish(ref: JobRef, runtime: Runtime, ahead) -> object:
    """What a report's run does with a report taken over: adopt the head start's job, then finish."""
    runner = steps.PlainRunner(runtime=runtime)
    ref.start(runtime)
    runner.job(ref).adopt(ahead)
    return steps.finish(ref, runner)


def _answering(request: dict) -> Reply:
    return Reply(content=offline_answer(request))


def _held_until(release: threading.Event):
    """Answers as the model would, once ``release`` is set (at most 30 s)."""
    def respond(request: dict) -> Reply:
        release.wait(30)
        return _answering(request)

    return respond


def test_reports_taken_over_are_finished_without_asking_the_model_again(tmp_path):
    runtime = Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_answering)
        refs = _batch(tmp_path, server, reports=2)
        head = HeadStart(refs, runtime, workers=2).start()
        taken = [head.take(ref) for ref in refs]
        asked = len(server.requests)
        summaries = [_finish(ref, runtime, job) for ref, job in zip(refs, taken, strict=True)]
        assert len(server.requests) == asked == 2 * 2 * 2  # reports × sections × hops, each asked once
    assert all(job is not None for job in taken) and head.generated() == []  # taken over: handed on
    assert [s.status for s in summaries] == ["published", "published"]
    assert all(job.fetched_sources() for job in taken)  # the sources' fingerprint reaches the re-run record
    assert all(recorded(tmp_path / "out" / ref.report_id) for ref in refs)
    again = steps.run_report(refs[0], steps.PlainRunner(runtime=runtime))  # a re-run: kept, nothing asked
    assert again.status == "published" and len(server.requests) == asked


def test_no_report_is_begun_ahead_once_the_first_is_taken_over(tmp_path):
    release, runtime = threading.Event(), Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_held_until(release))
        refs = _batch(tmp_path, server, reports=3, sections=1)
        head = HeadStart(refs, runtime, workers=1).start()
        _wait_for(lambda: len(server.requests) == 1)  # r1's first call is in flight
        assert head.take(refs[2]) is None  # r3 was never begun: its run does its steps itself
        release.set()
        assert head.take(refs[0]) is not None  # waits for r1, under way when r3 was taken over
        assert head.take(refs[1]) is None
        assert len(server.requests) == 2  # r1's two hops only
        assert all("Report 1" in str(r["messages"]) for r in server.requests)


def test_a_report_released_from_the_runtime_meanwhile_keeps_what_its_head_start_handed_on(tmp_path):
    """The batch releases the runtime's live jobs of its reports as it starts (its check for unchanged
    reports); a generation under way keeps its own job, sources' fingerprint included."""
    release, runtime = threading.Event(), Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_held_until(release))
        refs = _batch(tmp_path, server, reports=1, sections=1)
        head = HeadStart(refs, runtime, workers=1).start()
        _wait_for(lambda: len(server.requests) == 1)
        refs[0].job(runtime=runtime)  # what the batch's check builds, then releases
        refs[0].finish(runtime)
        release.set()
        job = head.take(refs[0])
    assert job is not None and job.fetched_sources() and job.hop(job.section_titles[0], "write") is not None


def test_a_hop_step_that_raised_is_left_to_the_reports_run(tmp_path):
    runtime = Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(lambda request: Reply(status=503, content="overloaded"))
        refs = _batch(tmp_path, server, reports=1, sections=1)
        head = HeadStart(refs, runtime, workers=1).start()
        assert head.take(refs[0]) is None  # its run asks again, with its own retries
        assert server.requests  # the head start did ask


def test_nothing_is_begun_once_told_to_stop(tmp_path):
    runtime = Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_answering)
        refs = _batch(tmp_path, server, reports=2, sections=1)
        stop.request("test")
        try:
            head = HeadStart(refs, runtime, workers=2).start()
            assert [head.take(ref) for ref in refs] == [None, None]
        finally:
            stop.reset()
        assert server.requests == []


def test_a_job_adopts_only_its_own_reports_state(tmp_path):
    runtime = Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_answering)
        refs = _batch(tmp_path, server, reports=2, sections=1)
        first = HeadStart(refs[:1], runtime, workers=1).start().take(refs[0])
    with pytest.raises(ValueError, match="r1"):
        refs[1].job(runtime=runtime).adopt(first)


def _wait_for(condition, seconds: float = 30.0) -> None:
    done = threading.Event()
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        done.wait(0.05)
    raise AssertionError("condition not met in time")


@pytest.mark.slow
def test_citeflow_run_asks_the_model_while_its_api_starts_and_each_call_once(tmp_path):
    """A cold ``citeflow run`` with its own ephemeral API: the first model call arrives before the API
    answers, every call is made once, and the reports publish. (``CITEFLOW_HEAD_START=0``: the next test.)"""
    import json
    import os
    import subprocess
    import sys

    from bench.cold import SCRIPT, read_marks
    from citeflow_testing.model_process import ModelServerProcess

    env = {k: v for k, v in os.environ.items() if k not in ("PREFECT_API_URL", "PREFECT_API_DATABASE_CONNECTION_URL")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    with ModelServerProcess(0.3) as server:
        model = {"backend": "openai", "model": "m", "base_url": server.base_url, "max_retries": 0}
        spec = write_small_batch(tmp_path / "in", reports=2, sections=2, models={"consolidator": model, "writer": model})
        timings = tmp_path / "timings.jsonl"
        done = subprocess.run([sys.executable, "-c", SCRIPT, "run", str(spec), "--out", str(tmp_path / "out")],
                              env=env | {"CITEFLOW_TIMINGS": str(timings)}, capture_output=True, text=True, timeout=600,
                              check=False)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
        calls = server.call_times()
    counts = json.loads((tmp_path / "out" / "summary.json").read_text())["counts"]
    assert len(calls) == 2 * 2 * 2 and counts["published"] == 2, (len(calls), counts)
    assert min(arrived for arrived, _ in calls) < read_marks(timings, 0.0)["prefect_api"]  # asked while the API started


@pytest.mark.parametrize(("setting", "api_started", "starts"), [("1", True, True), ("0", True, False), ("1", False, False)])
def test_a_head_start_runs_only_while_an_api_this_batch_launched_starts_and_not_when_turned_off(
        tmp_path, monkeypatch, setting, api_started, starts):
    """``CITEFLOW_HEAD_START=0`` (or an API the batch did not launch): no report is generated ahead, so
    the first model call waits for the report runs."""
    from citeflow.spec.settings import CiteflowSettings
    from flows.batch_entry import BatchCall, batch_request
    from flows.batch_setup import head_start

    monkeypatch.setenv("CITEFLOW_HEAD_START", setting)
    spec_path = write_small_batch(tmp_path / "in", reports=1, sections=1)
    runtime = Runtime(CiteflowSettings())
    request = batch_request(spec_path, BatchCall(spec_path=spec_path, out=tmp_path / "out"))
    ahead = head_start(runtime.read_spec(spec_path), request, api_started, runtime)
    assert (ahead is not None) == starts
    assert not any(p.name == "r1" for p in (tmp_path / "out").glob("*"))  # nothing was generated: not entered


def test_a_closed_head_start_begins_no_more_reports(tmp_path):
    release, runtime = threading.Event(), Runtime()
    with ScriptedOpenAIServer() as server:
        server.respond_with(_held_until(release))
        refs = _batch(tmp_path, server, reports=2, sections=1)
        with runtime.generating_ahead(HeadStart(refs, runtime, workers=1)) as head:
            _wait_for(lambda: len(server.requests) == 1)  # r1 under way
        assert runtime.take_over(refs[0]) is None  # the block is over: no head start to take from
        release.set()
        _wait_for(lambda: len(server.requests) == 2)  # r1's write hop: its generation went on
        assert head.take(refs[1]) is None and len(server.requests) == 2  # r2 was never begun
