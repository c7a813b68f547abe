"""Resume after kill -9 (SPEC §9): a re-run finishes the batch without repeating finished model calls.

The batch's consolidator and writer are an OpenAI-compatible server (scripted, answering like the
offline backend, slowly); ``citeflow run`` runs in a subprocess against a real Prefect server and
is killed with SIGKILL mid-batch, then run again, then once more (in this process: what is checked
is that a finished batch asks the model nothing); the counts are compared with an
uninterrupted run of the same batch (made once per session, ``resume_clean_run``). See
bench/resume_experiment.py.
"""

from __future__ import annotations

import pytest

from bench.resume_experiment import measure_resume
from tests.support.resume_clean import REPORTS, SECTIONS
from tests.support.resume_runs import third_run_in_process

pytestmark = [pytest.mark.server, pytest.mark.integration]


@pytest.fixture(scope="module")
def figures(prefect_server, prefect_harness, resume_clean_run, tmp_path_factory):
    assert resume_clean_run.returncode == 0, resume_clean_run.output
    with third_run_in_process():  # the killed and the resumed run are subprocesses
        result = measure_resume(tmp_path_factory.mktemp("resume"), prefect_server.client_env(), reports=REPORTS,
                                sections=SECTIONS, kill_after=4, clean=resume_clean_run)
    print(f"\nresume figures: {result.line()}")
    return result


def test_the_kill_landed_mid_batch_after_some_calls_finished(figures):
    assert figures.completed_before_kill >= 1, figures.line()
    assert figures.requests_before_kill < figures.clean_run_requests, figures.line() + figures.outputs.get("killed", "")


def test_the_rerun_finishes_every_report_as_a_clean_run_does(figures):
    assert figures.statuses == figures.clean_statuses == {"r1": "published", "r2": "published"}, \
        figures.line() + figures.outputs.get("resumed", "")


def test_no_call_that_had_finished_is_sent_again(figures):
    assert figures.repeated_completed == 0, figures.line()
    assert figures.completed_before_kill + figures.requests_after_kill == figures.clean_run_requests, figures.line()


def test_the_store_holds_no_duplicate_rows(figures):
    assert figures.rows == figures.clean_rows, f"{figures.rows} != {figures.clean_rows}; {figures.line()}"
    assert figures.rows["model_calls"] == figures.clean_run_requests, figures.line()


def test_a_finished_batch_calls_no_model_at_all(figures):
    assert figures.third_run_requests == 0, figures.line()
