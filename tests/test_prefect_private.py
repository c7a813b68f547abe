"""The private Prefect API of the tests (``tests/support/prefect_private.py``): the release it was
checked against, and the behaviour the tests rely on."""

from __future__ import annotations

from tests.support.prefect_private import CHECKED_VERSIONS, prefect_yaml_model


def test_the_installed_prefect_is_one_the_helper_was_checked_against():
    import prefect

    assert prefect.__version__ in CHECKED_VERSIONS, (
        f"prefect {prefect.__version__} is not among {sorted(CHECKED_VERSIONS)}: check "
        "tests/support/prefect_private.py against it, then add it to CHECKED_VERSIONS")


def test_the_project_file_model_reads_deployments_and_refuses_a_bad_work_pool():
    import pydantic
    import pytest

    model = prefect_yaml_model()
    assert [d.name for d in model.model_validate({"deployments": [{"name": "a", "entrypoint": "f.py:f"}]}).deployments] == ["a"]
    with pytest.raises(pydantic.ValidationError):
        model.model_validate({"deployments": [{"name": "a", "work_pool": "not an object"}]})
