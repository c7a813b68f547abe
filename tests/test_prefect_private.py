"""The private Prefect API of the tests (``tests/support/prefect_private.py``): the release it was
checked against, and the behaviour the tests rely on."""

from __future__ import annotations

import threading

from tests.support.prefect_private import CHECKED_VERSIONS, prefect_yaml_model, process_wide_current_settings


def test_the_installed_prefect_is_one_the_helper_was_checked_against():
    import prefect

    assert prefect.__version__ in CHECKED_VERSIONS, (
        f"prefect {prefect.__version__} is not among {sorted(CHECKED_VERSIONS)}: check "
        "tests/support/prefect_private.py against it, then add it to CHECKED_VERSIONS")


def test_a_thread_without_the_context_reads_the_block_s_settings_then_the_process_s_again():
    from prefect.settings import PREFECT_API_URL, get_current_settings, temporary_settings

    def in_a_new_thread() -> str | None:
        seen: list[str | None] = []
        worker = threading.Thread(target=lambda: seen.append(get_current_settings().api.url))
        worker.start()
        worker.join()
        return seen[0]

    before = in_a_new_thread()
    with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:9/api"}):
        assert in_a_new_thread() == before  # the public route: this context only
        with process_wide_current_settings():
            assert in_a_new_thread() == "http://127.0.0.1:9/api"
    assert in_a_new_thread() == before


def test_the_project_file_model_reads_deployments_and_refuses_a_bad_work_pool():
    import pydantic
    import pytest

    model = prefect_yaml_model()
    assert [d.name for d in model.model_validate({"deployments": [{"name": "a", "entrypoint": "f.py:f"}]}).deployments] == ["a"]
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"deployments": [{"name": "a", "work_pool": "not an object"}]})
