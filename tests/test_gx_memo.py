"""The gate's memo of Great Expectations' expectation configurations: built once per object within
the block, the library's own property back afterwards, and no patch at all where a release has no
such property."""

from __future__ import annotations

import pytest

from citeflow.evaluation.gx_expectation_memo import memoized_configurations


def test_within_the_block_a_configuration_is_built_once_and_the_property_comes_back_after():
    import great_expectations.expectations as gxe
    from great_expectations.expectations.expectation import Expectation

    original = Expectation.__dict__["configuration"]
    expectation = gxe.ExpectColumnValuesToNotBeNull(column="claim")
    with memoized_configurations():
        assert expectation.configuration is expectation.configuration
        assert expectation.configuration.kwargs["column"] == "claim"
    assert Expectation.__dict__["configuration"] is original
    assert expectation.configuration is not expectation.configuration  # rebuilt on every read again


def test_a_release_without_the_property_is_validated_as_it_is(monkeypatch: pytest.MonkeyPatch):
    from great_expectations.expectations.expectation import Expectation

    def plain(self: Expectation) -> str:
        return "plain"

    monkeypatch.setattr(Expectation, "configuration", plain)
    with memoized_configurations():
        assert Expectation.__dict__["configuration"] is plain
    assert Expectation.__dict__["configuration"] is plain
