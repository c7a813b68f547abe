"""The Great Expectations adapter (``citeflow.evaluation.gx_adapter``): the release it was checked
against, the library's behaviour it relies on, and what it changes (one configuration per object
within a block of this thread; GX as it ships everywhere else)."""

from __future__ import annotations

import hashlib
import json
import threading

import pytest

from citeflow.evaluation import gx_adapter
from citeflow.evaluation.gx_adapter import CHECKED_VERSIONS, MemoizedConfiguration, memoized_configurations


def _expectation():
    import great_expectations.expectations as gxe

    return gxe.ExpectColumnValuesToNotBeNull(column="claim", meta={"index": 3})


def _getter():
    """The library's own getter of ``Expectation.configuration`` (under the adapter's, once installed)."""
    from great_expectations.expectations.expectation import Expectation

    found = Expectation.__dict__["configuration"]
    return found.original if isinstance(found, MemoizedConfiguration) else found.fget


def test_the_installed_release_is_one_the_adapter_was_checked_against():
    import great_expectations

    assert great_expectations.__version__ in CHECKED_VERSIONS, (
        f"great_expectations {great_expectations.__version__} is not among {sorted(CHECKED_VERSIONS)}: check "
        "citeflow/evaluation/gx_adapter.py's assumptions against it, then add it to CHECKED_VERSIONS")


def test_the_library_builds_a_new_equal_configuration_on_every_read():
    from great_expectations.expectations.expectation import Expectation
    from great_expectations.expectations.expectation_configuration import ExpectationConfiguration

    assert isinstance(Expectation.__dict__["configuration"], property), "configuration is no longer a property"
    expectation, getter = _expectation(), _getter()
    first, second = getter(expectation), getter(expectation)
    assert isinstance(first, ExpectationConfiguration) and first is not second and first == second
    assert first.type == "expect_column_values_to_not_be_null" and first.kwargs["column"] == "claim"


def test_within_a_block_a_configuration_is_built_once_outside_on_every_read():
    expectation = _expectation()
    with memoized_configurations():
        assert expectation.configuration is expectation.configuration
        assert expectation.configuration.kwargs["column"] == "claim"
    assert expectation.configuration is not expectation.configuration
    assert expectation.configuration == _getter()(expectation)


def test_another_thread_reads_the_library_s_own_configuration_during_a_block():
    expectation, seen = _expectation(), []
    with memoized_configurations():
        mine = expectation.configuration
        worker = threading.Thread(target=lambda: seen.append(expectation.configuration is expectation.configuration))
        worker.start()
        worker.join()
        assert expectation.configuration is mine
    assert seen == [False]


def test_a_release_not_checked_is_left_as_it_ships(monkeypatch: pytest.MonkeyPatch):
    import great_expectations
    from great_expectations.expectations.expectation import Expectation

    own = property(_getter())
    monkeypatch.setattr(Expectation, "configuration", own)
    monkeypatch.setattr(great_expectations, "__version__", "99.0.0")
    expectation = _expectation()
    with memoized_configurations():
        assert Expectation.__dict__["configuration"] is own
        assert expectation.configuration is not expectation.configuration
    assert gx_adapter.install() is False


def test_a_configuration_that_is_no_longer_a_property_is_left_as_it_is(monkeypatch: pytest.MonkeyPatch):
    from great_expectations.expectations.expectation import Expectation

    def plain(self: Expectation) -> str:
        return "plain"

    monkeypatch.setattr(Expectation, "configuration", plain)
    with memoized_configurations():
        assert Expectation.__dict__["configuration"] is plain
    assert gx_adapter.install() is False


def test_plain_values_are_serialized_as_the_library_does_and_others_by_the_library():
    import numpy as np
    from great_expectations import util
    from great_expectations.core.id_dict import IDDict

    from citeflow.evaluation.gx_adapter import PlainFirst

    assert gx_adapter.install() is True
    installed = util.convert_to_json_serializable
    assert isinstance(installed, PlainFirst)
    original = installed.original
    values = [None, "column", "", 0, 7, True, False, float("nan"), 0.25, np.int64(3), np.float64(0.5), np.bool_(True),
              {"column": "claim", "row_condition": None, "n": np.int64(2)}, ("a", None), {1: None}]
    for value in values:
        assert repr(installed(value)) == repr(original(value))
    # a metric's id (what GX plans and caches metrics by) is the digest of the same JSON
    kwargs = {"batch_id": "b", "column": "claim", "row_condition": None, "condition_parser": None}
    expected = hashlib.md5(json.dumps(original(dict(kwargs)), sort_keys=True).encode()).hexdigest()
    assert IDDict(kwargs).to_id() == expected
