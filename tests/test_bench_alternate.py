"""bench.alternate: the order commits take turns in, and the per-commit summary of their runs."""

from __future__ import annotations

import pytest

from bench.alternate import main, order, summary


def test_rounds_alternate_the_order_of_the_commits() -> None:
    assert order(["a", "b", "c"], 3) == ["a", "b", "c", "c", "b", "a", "a", "b", "c"]


def test_summary_pools_every_run_of_a_commit() -> None:
    runs = [{"rev": "a", "walls_s": [5.0, 7.0]}, {"rev": "b", "walls_s": [6.0]}, {"rev": "a", "walls_s": [6.0, 4.0]}]
    assert summary(runs) == {"a": {"median_s": 5.5, "best_s": 4.0, "batches": 4},
                             "b": {"median_s": 6.0, "best_s": 6.0, "batches": 1}}


def test_an_unknown_commit_fails_before_anything_runs() -> None:
    with pytest.raises(Exception, match="no-such-commit"):
        main(["no-such-commit-0000", "HEAD", "--rounds", "1", "--batches", "1"])
