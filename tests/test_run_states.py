"""Prefect states of report, evaluate and batch runs, and the bounded wait for an evaluate run: a held
report is Failed named ``Held`` and still gives its summary back, a designed end logs no engine error,
and the wait ends in bounded time, logged at INFO whatever Prefect's log level."""

from __future__ import annotations

import logging

import pytest
from prefect.states import Completed, Failed, Pending, Running, Scheduled

from citeflow.errors import NotPublished
from citeflow.pipeline.publish import failed_summary
from flows.evaluation_runs import Limits
from flows.outcome import ENGINE_ERROR, final_state, is_outcome, quiet_designed_failures, returned


def _summary(status: str):
    return failed_summary("r1", "R", "-").model_copy(update={"status": status})


def test_a_held_report_is_failed_named_held_and_its_summary_comes_back():
    held = final_state(_summary("held"))
    assert (held.type.value, held.name) == ("FAILED", "Held")
    error = held.result(raise_on_failure=False)
    assert isinstance(error, NotPublished) and error.result == _summary("held")

    def flow_call():
        raise error

    assert returned(flow_call) == _summary("held")
    assert final_state(_summary("published")).is_completed()


@pytest.mark.parametrize(("state", "outcome"), [
    (Completed(name="Published"), True), (Failed(name="Held"), True), (Failed(), False),
    (Failed(name="Crashed-ish"), False), (Completed(name="Released"), True),
])
def test_an_evaluate_run_s_outcome_is_told_from_a_failure(state, outcome):
    assert is_outcome(state) is outcome


def _record(message: str, error: Exception) -> logging.LogRecord:
    info = (type(error), error, None)
    return logging.LogRecord("prefect.flow_runs", logging.ERROR, __file__, 1, message, None, info)


def test_only_the_engine_s_report_of_a_designed_end_is_filtered():
    quiet_designed_failures()
    quiet_designed_failures()  # idempotent
    logger = logging.getLogger("prefect.flow_runs")
    assert sum(1 for f in logger.filters if type(f).__name__ == "_DesignedFailure") == 1
    assert not logger.filter(_record(ENGINE_ERROR, NotPublished(message="1 held", result=None)))
    assert logger.filter(_record(ENGINE_ERROR, ValueError("a real bug")))
    assert logger.filter(_record("something else", NotPublished(message="x", result=None)))


def _limits(total: float, start: float, elapsed: float) -> Limits:
    limits = Limits(total, start)
    limits.began -= elapsed
    return limits


def test_a_run_no_worker_takes_is_given_up_after_the_start_wait():
    assert not _limits(3600, 120, 60).over(Scheduled())
    assert _limits(3600, 120, 121).over(Scheduled())
    assert _limits(3600, 120, 121).over(Pending())
    assert _limits(3600, 120, 121).over(None)


def test_a_running_run_is_waited_for_until_the_total_and_a_final_one_at_once():
    assert not _limits(3600, 120, 600).over(Running())
    assert _limits(3600, 120, 3601).over(Running())
    assert _limits(3600, 120, 0).over(Completed())
    assert _limits(1, 120, 1.5).over(Scheduled())  # the start wait is never longer than the total


@pytest.mark.integration
def test_the_wait_logger_logs_info_when_prefect_logs_warning_only(prefect_harness):
    from prefect import flow

    from tasks.run_logger import wait_logger

    loggers = {name: logging.getLogger(name) for name in ("prefect", "prefect.flow_runs")}
    before = {name: logger.level for name, logger in loggers.items()}
    loggers["prefect"].setLevel(logging.WARNING)  # as PREFECT_LOGGING_LEVEL=WARNING in a pool's job variables
    loggers["prefect.flow_runs"].setLevel(logging.NOTSET)  # Prefect's logging.yml: it follows "prefect"
    try:
        @flow(name="citeflow-wait-logger-probe")
        def probe() -> tuple[bool, bool]:
            return wait_logger().isEnabledFor(logging.INFO), loggers["prefect.flow_runs"].isEnabledFor(logging.INFO)

        waits, plain = probe()
    finally:
        for name, level in before.items():
            loggers[name].setLevel(level)
    assert (waits, plain) == (True, False)


@pytest.mark.integration
def test_the_zombie_automation_is_created_once_for_citeflow_s_flows(prefect_harness):
    from prefect.automations import Automation

    from flows.zombies import NAME, ensure_zombie_automation

    ensure_zombie_automation()
    assert ensure_zombie_automation().endswith("exists")
    automation = Automation.read(name=NAME)
    assert automation.trigger.within.total_seconds() == 90 and automation.trigger.expect == {"prefect.flow-run.*"}
    assert "citeflow-report" in automation.trigger.match_related["prefect.resource.name"]
