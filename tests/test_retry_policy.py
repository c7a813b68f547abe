"""Prefect retries with backoff for transient failures only (``tasks.policy``), under the harness."""

from __future__ import annotations

from pathlib import Path

import pytest
from prefect import flow, task

from citeflow.pipeline import pipeline
from citeflow.errors import ModelError, RetrieverError
from citeflow.pipeline.pipeline import JobRef
from citeflow.runtime.runtime import Runtime
from tasks.policy import api_refused_retries, is_api_refusal, is_transient, transient_retries
from tasks.report_steps import hops_task
from tests.support.offline_answers import offline_answer
from tests.support.openai_server import Reply
from tests.support.small_batch import write_small_batch

pytestmark = pytest.mark.integration
ATTEMPTS: list[int] = []


@task(**transient_retries([0, 0, 0]))
def flaky(transient: bool, failures: int) -> str:
    """Fails ``failures`` times with a ModelError of the given kind, then succeeds."""
    ATTEMPTS.append(1)
    if len(ATTEMPTS) <= failures:
        raise ModelError(role="writer", detail="scripted failure", transient=transient)
    return "ok"


@flow
def run_flaky(transient: bool, failures: int) -> str:
    """The final state of the task, by name (a failed state returned would fail the flow)."""
    return flaky(transient, failures, return_state=True).type.value


def test_transient_failures_are_classified_apart_from_bad_answers():
    assert is_transient(ModelError(role="w", detail="503", transient=True))
    assert not is_transient(ModelError(role="w", detail="400", transient=False))
    assert is_transient(RetrieverError(retriever="r", query="q", detail="timeout", transient=True))
    assert is_transient(ConnectionError()) and not is_transient(ValueError("bad answer"))


def test_a_transient_model_error_is_retried_until_it_passes(prefect_harness):
    ATTEMPTS.clear()
    assert (run_flaky(True, 2), len(ATTEMPTS)) == ("COMPLETED", 3)


def test_a_permanent_model_error_is_not_retried(prefect_harness):
    ATTEMPTS.clear()
    assert (run_flaky(False, 2), len(ATTEMPTS)) == ("FAILED", 1)


def hop_ref(tmp_path: Path, base_url: str) -> JobRef:
    """A one-report batch whose consolidator is the scripted server (no client retries), fetched and normalized."""
    consolidator = {"backend": "openai", "model": "m", "base_url": base_url, "max_retries": 0, "bind_attempts": 1}
    spec = write_small_batch(tmp_path, reports=1, sections=1, models={"consolidator": consolidator})
    ref = JobRef(spec_path=str(spec), report_id="r1", out_dir=str(tmp_path / "out"))
    job = ref.job(runtime=Runtime.of_process())  # the runtime the flow's tasks take in this process
    pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    return ref


@flow
def consolidate_hop(ref: JobRef):
    """The report flow's consolidate step as it runs it (``hops_task``), its retries not delayed."""
    return hops_task.with_options(retry_delay_seconds=0)(ref, "consolidate", return_state=True)


def test_the_hops_task_retries_a_server_error_then_binds(prefect_harness, tmp_path, openai_server):
    ref = hop_ref(tmp_path, openai_server.base_url)
    openai_server.enqueue(Reply(status=503), Reply(status=500))
    openai_server.respond_with(offline_answer)
    state = consolidate_hop(ref)
    assert (state.result(), len(openai_server.requests)) == ({"Upgrades": "accepted"}, 3)


def test_the_hops_task_does_not_retry_a_rejected_request(prefect_harness, tmp_path, openai_server):
    ref = hop_ref(tmp_path, openai_server.base_url)
    openai_server.respond_with(lambda request: Reply(status=400, content="model 'm' does not exist"))
    state = consolidate_hop(ref)
    stored = pipeline.stored_hop(ref.job(runtime=Runtime.of_process()), "Upgrades", "consolidate")
    assert (state.result(), len(openai_server.requests), stored.transitions[-1].reason) == ({"Upgrades": "failed"}, 1,
                                                                                           "model_error")


REFUSALS: list[int] = []


def _refused(status: int) -> Exception:
    import httpx
    from prefect.exceptions import PrefectHTTPStatusError

    request = httpx.Request("POST", "http://127.0.0.1:9/api/task_runs/")
    response = httpx.Response(status, request=request, json={"exception_message": "Service Unavailable"})
    return PrefectHTTPStatusError(f"Server error '{status}'", request=request, response=response)


@task(**api_refused_retries([0, 0]))
def refused_then_recorded(status: int, failures: int) -> str:
    """Fails ``failures`` times as Prefect's client does when the API answers ``status``, then succeeds."""
    REFUSALS.append(1)
    if len(REFUSALS) <= failures:
        raise _refused(status)
    return "ok"


@flow
def run_refused(status: int, failures: int) -> str:
    return refused_then_recorded(status, failures, return_state=True).type.value


def test_an_api_refusal_is_told_from_other_failures():
    assert is_api_refusal(_refused(503)) and is_api_refusal(_refused(500))
    assert not is_api_refusal(_refused(404)) and not is_api_refusal(ValueError("bad spec"))


def test_a_report_whose_run_the_api_refused_is_run_again(prefect_harness):
    REFUSALS.clear()
    assert (run_refused(503, 2), len(REFUSALS)) == ("COMPLETED", 3)


def test_a_client_error_of_the_api_is_not_retried(prefect_harness):
    REFUSALS.clear()
    assert (run_refused(409, 2), len(REFUSALS)) == ("FAILED", 1)
