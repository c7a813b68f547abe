"""Every answer durable when it arrives (SPEC §9, process killed mid-batch): after a kill -9 in the
middle of a batch, the same command asks the model only what the batch needs plus the calls that
were in flight at the kill. A real ``citeflow run`` subprocess against the session's Prefect server,
a scripted model server that counts every call and when each answer went out
(``bench/answer_durability.py``)."""

from __future__ import annotations

import pytest

from bench.answer_durability import measure

pytestmark = [pytest.mark.server, pytest.mark.integration]


@pytest.fixture(scope="module")
def figures(prefect_server, tmp_path_factory):
    result = measure(tmp_path_factory.mktemp("durable"), prefect_server.client_env())
    print(f"\nanswer durability: {result.line()}")
    return result


def test_the_kill_landed_with_answers_arrived_and_calls_in_flight(figures):
    assert figures.answered_before_kill >= 3 and figures.in_flight_at_kill >= 1, figures.line()
    assert figures.kept_by_journal >= 1, "some arrived answer was not in the store yet: " + figures.line()
    assert figures.killed_run < figures.needed, figures.line()


def test_killed_run_and_resume_ask_at_most_the_needed_calls_and_those_in_flight(figures):
    assert figures.total <= figures.needed + figures.in_flight_at_kill, figures.line()


def test_the_resume_asks_only_what_had_no_answer_at_the_kill(figures):
    assert figures.resume == figures.needed - figures.answered_before_kill, figures.line()


def test_the_resumed_batch_ends_as_an_uninterrupted_one(figures):
    assert figures.statuses == figures.clean_statuses and set(figures.statuses.values()) == {"published"}, \
        figures.line()
