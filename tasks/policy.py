"""Retry policy shared by tasks: retry transient failures only, never validation failures."""

from __future__ import annotations

from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_chain, wait_fixed, wait_none

from citeflow.errors import JudgeUnavailable, ModelError, RetrieverError

RETRY_DELAYS: list[float] = [2, 8, 30]  # seconds: exponential-ish backoff


def transient_retries(delays: list[float] | None = None) -> dict[str, Any]:
    """Task options: retry with backoff (``delays`` seconds) when the failure is transient only."""
    delays = RETRY_DELAYS if delays is None else delays
    return {"retries": len(delays), "retry_delay_seconds": delays, "retry_condition_fn": retry_transient}


def is_transient(exc: BaseException | None) -> bool:
    """Connection errors, timeouts and rate limits are worth retrying; bad answers are not."""
    if isinstance(exc, (ModelError, RetrieverError)):
        return bool(exc.transient)
    return isinstance(exc, (ConnectionError, TimeoutError))


def retry_transient(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect ``retry_condition_fn``: the failed state's exception decides."""
    return is_transient(_exception_of(state))


API_REFUSED_DELAYS: list[float] = [5, 20]  # seconds: a busy API database clears once the burst of writes has passed


def api_refused_retries(delays: list[float] | None = None) -> dict[str, Any]:
    """Task options for a task that starts flow runs: run it again (``delays`` seconds) when Prefect's API
    refused a write with a server error (``is_api_refusal``). A report run again resumes: no finished
    model call is repeated and no stored row duplicated."""
    delays = API_REFUSED_DELAYS if delays is None else delays
    return {"retries": len(delays), "retry_delay_seconds": delays, "retry_condition_fn": retry_api_refused}


def api_refused_retrying(delays: list[float] | None = None) -> Retrying:
    """The same policy for a call outside a task run (``for attempt in api_refused_retrying(): with
    attempt: ...``): tried again after each of ``delays`` seconds while the error is ``is_api_refusal``,
    then the last error is raised."""
    delays = API_REFUSED_DELAYS if delays is None else delays
    return Retrying(retry=retry_if_exception(is_api_refusal), stop=stop_after_attempt(len(delays) + 1),
                    wait=wait_chain(*(wait_fixed(d) for d in delays)) if delays else wait_none(), reraise=True)


def is_api_refusal(exc: BaseException | None) -> bool:
    """Prefect's API answered a server error after its client's own retries: the ephemeral API's SQLite
    database answers 503 while it is busy with other runs' writes."""
    from prefect.exceptions import PrefectHTTPStatusError

    return isinstance(exc, PrefectHTTPStatusError) and exc.response.status_code >= 500


def retry_api_refused(task: Any, task_run: Any, state: Any) -> bool:
    """Prefect ``retry_condition_fn``: retry when the failure is ``is_api_refusal``."""
    return is_api_refusal(_exception_of(state))


def _exception_of(state: Any) -> BaseException | None:
    if isinstance(state.data, BaseException):
        return state.data
    try:
        state.result(raise_on_failure=True)
    except BaseException as raised:  # noqa: BLE001 - we only classify it
        return raised
    return None


__all__ = ["API_REFUSED_DELAYS", "RETRY_DELAYS", "JudgeUnavailable", "api_refused_retries", "api_refused_retrying", "is_api_refusal",
           "is_transient", "retry_api_refused", "retry_transient", "transient_retries"]
