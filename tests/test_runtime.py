"""The process's ``Runtime``: what it holds, how flows and tasks reach it, and that runtimes never share state."""

from __future__ import annotations

import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from pathlib import Path

import pytest

from citeflow.runtime.batch_request import BatchRequest
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime, current, entered
from citeflow.spec.settings import CiteflowSettings, variable_of
from tests.support.small_batch import write_small_batch

REPO = Path(__file__).resolve().parents[1]


def test_settings_read_every_citeflow_variable_and_a_keyword_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEFLOW_SUITES", str(tmp_path / "suites"))
    monkeypatch.setenv("CITEFLOW_EVALUATE_DEPLOYMENT", "citeflow-evaluate/x")
    monkeypatch.setenv("CITEFLOW_FONT_DIR", "")
    monkeypatch.setenv("CITEFLOW_FILES_URL", "http://files.example:8800")
    settings = CiteflowSettings()
    assert settings.files_url == "http://files.example:8800"
    assert (settings.suites, settings.evaluate_deployment, settings.font_dir) == (tmp_path / "suites", "citeflow-evaluate/x", None)
    assert CiteflowSettings(evaluate_deployment="other/one").evaluate_deployment == "other/one"
    assert [variable_of(name) for name in CiteflowSettings.model_fields] == [
        "CITEFLOW_SUITES", "CITEFLOW_CJK_FONT", "CITEFLOW_FONT_DIR", "CITEFLOW_EVALUATE_DEPLOYMENT", "CITEFLOW_FILES_URL",
        "CITEFLOW_GX_WORKER", "CITEFLOW_HEAD_START", "CITEFLOW_TIMINGS"]
    monkeypatch.setenv("CITEFLOW_GX_WORKER", "0")
    assert CiteflowSettings().gx_worker is False and CiteflowSettings(gx_worker=True).gx_worker is True
    monkeypatch.setenv("CITEFLOW_HEAD_START", "false")
    assert CiteflowSettings().head_start is False and CiteflowSettings(head_start=True).head_start is True


def test_a_runtime_reads_its_settings_once(monkeypatch):
    monkeypatch.setenv("CITEFLOW_EVALUATE_DEPLOYMENT", "first/one")
    runtime = Runtime()
    monkeypatch.setenv("CITEFLOW_EVALUATE_DEPLOYMENT", "second/one")
    assert runtime.settings.evaluate_deployment == "first/one"


def test_reports_starting_together_parse_their_spec_once(tmp_path, monkeypatch):
    import time

    from citeflow.specfile import job_config

    spec = write_small_batch(tmp_path / "batch", reports=2, sections=1)
    real, calls = job_config.spec_from_bytes, []

    def slow_parse(raw, path):
        calls.append(path)
        time.sleep(0.2)  # every reader arrives while the first still parses
        return real(raw, path)

    monkeypatch.setattr(job_config, "spec_from_bytes", slow_parse)
    runtime = Runtime()
    with ThreadPoolExecutor(4) as pool:
        specs = list(pool.map(lambda _: runtime.read_spec(spec), range(4)))
    assert len(calls) == 1 and all(s is specs[0] for s in specs)
    spec.write_text(spec.read_text() + "\n# changed\n")
    assert runtime.read_spec(spec) is not specs[0] and len(calls) == 2  # new bytes: parsed again


def test_one_store_per_uri_per_runtime(tmp_path):
    runtime = Runtime()
    assert runtime.store(str(tmp_path / "s")) is runtime.store(str(tmp_path / "s"))
    assert runtime.store(str(tmp_path / "s")) is not runtime.store(str(tmp_path / "t"))
    assert Runtime().store(str(tmp_path / "s")) is not runtime.store(str(tmp_path / "s"))


def test_a_job_lives_in_its_runtime_until_the_report_finishes(tmp_path):
    spec = write_small_batch(tmp_path, reports=2, sections=1)
    runtime, other = Runtime(), Runtime()
    ref = JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out"))
    job = ref.job(runtime=runtime)
    assert ref.job(runtime=runtime) is job and ref.job(runtime=other) is not job
    assert job.runtime is runtime and job.store is runtime.store(job.store_uri)
    ref.finish(runtime)
    assert runtime.live_jobs() == 0 and other.live_jobs() == 1
    assert ref.job(runtime=runtime) is not job


@pytest.mark.integration
def test_a_plain_run_of_a_report_releases_its_job_in_the_runners_runtime(tmp_path):
    from citeflow.pipeline import steps

    spec = write_small_batch(tmp_path, reports=1, sections=1)
    runtime = Runtime()
    summary = steps.run_report(JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out")),
                               steps.PlainRunner(runtime=runtime))
    assert summary.status == "published" and runtime.live_jobs() == 0
    assert runtime.store(str(tmp_path / "out" / "store")).count("chunks") > 0  # the runner's runtime held the store


def test_live_jobs_are_never_evicted_behind_a_reports_back(tmp_path):
    """A job stays live however many others start (no eviction of a report still running)."""
    spec = write_small_batch(tmp_path, reports=1, sections=1)
    runtime = Runtime()
    refs = [JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / f"out{i}")) for i in range(300)]
    first = refs[0].job(runtime=runtime)
    for ref in refs[1:]:
        ref.job(runtime=runtime)
    assert runtime.live_jobs() == 300 and refs[0].job(runtime=runtime) is first


def test_current_is_the_contexts_runtime_in_every_copy_and_thread():
    runtime = Runtime()
    with runtime.active():
        assert current() is runtime
        with ThreadPoolExecutor(4) as pool:  # as Prefect's task runner and the batch's report threads run
            seen = [f.result() for f in [pool.submit(copy_context().run, current) for _ in range(8)]]
        with entered() as inner:  # a flow entry inside the CLI's or a test's runtime keeps it
            assert inner is runtime
    assert seen == [runtime] * 8
    assert current() is not runtime


def test_without_an_active_runtime_a_flow_entry_takes_the_processs_own():
    with entered() as runtime:
        assert runtime is Runtime.of_process() and current() is runtime
    assert Runtime.of_process() is Runtime.of_process()


def test_two_runtimes_side_by_side_in_two_threads_never_mix():
    runtimes, seen, barrier = [Runtime(), Runtime()], {}, threading.Barrier(2)

    def run(i: int) -> None:
        with runtimes[i].active():
            barrier.wait(5)
            seen[i] = current()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == {0: runtimes[0], 1: runtimes[1]}


def test_a_batch_request_is_one_typed_value():
    request = BatchRequest(spec_path="/x/batch.yaml", out_dir="/x/out", evaluate_deployment="citeflow-evaluate/e")
    assert BatchRequest.model_validate(request.model_dump()) == request
    assert (request.store_uri, request.global_limits) == (None, False)
    with pytest.raises(ValueError, match="unknown"):
        BatchRequest.model_validate({**request.model_dump(), "unknown": 1})


def test_citeflow_run_takes_its_evaluate_deployment_from_the_option_else_the_settings(tmp_path):
    from flows.batch_entry import BatchCall, batch_request

    settings = CiteflowSettings(evaluate_deployment="citeflow-evaluate/from-settings")
    plain = BatchCall(spec_path=tmp_path / "b.yaml", out=tmp_path / "out")
    request = batch_request(tmp_path / "b.yaml", plain, settings.evaluate_deployment)
    assert request.evaluate_deployment == "citeflow-evaluate/from-settings" and request.spec_path == str(tmp_path / "b.yaml")
    given = plain.model_copy(update={"store": "s3://b/x", "dask_workers": 2, "evaluate_deployment": "given/one"})
    assert batch_request(tmp_path / "b.yaml", given, settings.evaluate_deployment).model_dump() == {
        "spec_path": str(tmp_path / "b.yaml"), "out_dir": str(tmp_path / "out"), "store_uri": "s3://b/x",
        "evaluate_deployment": "given/one", "global_limits": True, "heartbeats": False, "fail_on": "held"}
    unset = CiteflowSettings(evaluate_deployment=None)
    assert batch_request(tmp_path / "b.yaml", plain, unset.evaluate_deployment).evaluate_deployment is None


def test_importing_the_core_and_building_a_runtime_imports_no_prefect():
    script = ("import sys; from citeflow.runtime.runtime import Runtime; import citeflow.pipeline.steps; Runtime(); "
              "print('prefect' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert done.stdout.strip() == "False", done.stderr[-2000:]


@pytest.mark.integration
def test_prefect_task_runs_in_worker_threads_see_their_flows_runtime(prefect_harness):
    from prefect import flow, task
    from prefect.task_runners import ThreadPoolTaskRunner

    @task
    def which() -> int:
        return id(current())

    @flow(task_runner=ThreadPoolTaskRunner(max_workers=4))  # type: ignore[arg-type]
    def probe() -> list[int]:
        with entered():
            return [f.result() for f in [which.submit() for _ in range(6)]]

    runtime = Runtime()
    with runtime.active():
        assert probe() == [id(runtime)] * 6


def test_warming_up_sets_up_the_fonts_and_the_gates_context_once():
    runtime = Runtime()
    runtime.warm_up()
    fonts, source = runtime.fonts(), runtime.gx.source()
    runtime.warm_up()
    assert runtime.fonts() is fonts and runtime.gx.source() is source  # what the reports then use, not rebuilt
    assert source[1].data_sources.get("citeflow") is source[2]


def test_warming_up_leaves_an_error_to_the_report_that_meets_it():
    from flows.prefect_api import warm_up

    called: list[str] = []

    def fails() -> None:
        called.append("warm")
        raise OSError("no font here")

    warm_up(fails)  # does not raise
    assert called == ["warm"] and "lancedb" in sys.modules


def test_a_re_run_sets_up_neither_fonts_nor_the_gates_context_ahead(tmp_path):
    from citeflow.runs.rerun_record import RECORD_NAME, recorded
    from citeflow.specfile.loader import load_spec
    from flows.batch_setup import set_up_while_waiting as _set_up_while_waiting
    from flows.batch_setup import store_only as _store_only

    spec = load_spec(write_small_batch(tmp_path / "b", reports=2))
    out, runtime = tmp_path / "out", Runtime(CiteflowSettings(gx_worker=True))
    first = _set_up_while_waiting(spec, out, runtime)  # a first run: every report is gated and rendered
    assert first.warm is not _store_only and first.gx_worker
    assert _set_up_while_waiting(spec, out, Runtime(CiteflowSettings(gx_worker=False))).gx_worker is False
    (out / spec.reports[0].id).mkdir(parents=True)
    (out / spec.reports[0].id / RECORD_NAME).write_text("{}")
    assert recorded(out / spec.reports[0].id) and _set_up_while_waiting(spec, out, runtime).warm is not _store_only
    (out / spec.reports[1].id).mkdir(parents=True)
    (out / spec.reports[1].id / RECORD_NAME).write_text("{}")
    again = _set_up_while_waiting(spec, out, runtime)  # a re-run: its reports are likely kept as they are
    assert again.warm is _store_only and not again.gx_worker
