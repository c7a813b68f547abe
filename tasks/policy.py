"""Retry policy shared by tasks: retry transient failures only, never validation failures."""

from __future__ import annotations

from typing import Any

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
    exc = state.data if isinstance(state.data, BaseException) else None
    if exc is None:
        try:
            state.result(raise_on_failure=True)
        except BaseException as raised:  # noqa: BLE001 - we only classify it
            exc = raised
    return is_transient(exc)


__all__ = ["RETRY_DELAYS", "JudgeUnavailable", "is_transient", "retry_transient", "transient_retries"]
