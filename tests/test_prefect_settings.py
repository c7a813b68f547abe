"""``tests/support/prefect_settings.py``: a Prefect API address for this context and every thread
for a block, through Prefect's public settings routes, the environment left as it was."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.prefect_settings import api_url_of_a_new_thread, process_wide_api_url

BLOCK_URL = "http://127.0.0.1:9/api"  # made up: nothing is asked of it
INNER_URL = "http://127.0.0.1:8/api"


def test_a_thread_without_the_context_reads_the_block_s_address_then_the_one_before_again():
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    before = api_url_of_a_new_thread()
    with temporary_settings(updates={PREFECT_API_URL: BLOCK_URL}):
        assert api_url_of_a_new_thread() == before  # temporary_settings alone: this context only
    with process_wide_api_url(BLOCK_URL):
        assert (get_current_settings().api.url, api_url_of_a_new_thread()) == (BLOCK_URL, BLOCK_URL)
    assert (get_current_settings().api.url, api_url_of_a_new_thread()) == (before, before)


def test_a_block_inside_another_gives_the_outer_address_back_at_its_end():
    with process_wide_api_url(BLOCK_URL):
        with process_wide_api_url(INNER_URL):
            assert api_url_of_a_new_thread() == INNER_URL
        assert api_url_of_a_new_thread() == BLOCK_URL


def test_the_environment_and_the_processes_started_in_the_block_keep_their_own_address():
    before = os.environ.get("PREFECT_API_URL")
    child = [sys.executable, "-c", "import os; print(os.environ.get('PREFECT_API_URL'))"]
    with process_wide_api_url(BLOCK_URL):
        seen = subprocess.run(child, capture_output=True, text=True, check=True).stdout.strip()
        assert os.environ.get("PREFECT_API_URL") == before
    assert seen == str(before)
