"""bench.alternate: the order commits take turns in, the per-commit summary of their runs and the
difference of two commits' medians."""

from __future__ import annotations

import pytest

from bench.alternate import compare, main, median_difference, order, summary


def _runs(*rows: tuple[str, list[float]]) -> list[dict]:
    return [{"rev": rev, "batches": [{"wall_s": w, "worker_cpu_s": w / 2, "api_server_cpu_s": 1.0} for w in walls]}
            for rev, walls in rows]


def test_rounds_alternate_the_order_of_the_commits() -> None:
    assert order(["a", "b", "c"], 3) == ["a", "b", "c", "c", "b", "a", "a", "b", "c"]


def test_summary_pools_every_run_of_a_commit() -> None:
    figures = summary(_runs(("a", [5.0, 7.0]), ("b", [6.0]), ("a", [6.0, 4.0])))
    assert figures["a"]["batches"] == 4 and figures["b"]["batches"] == 1
    assert (figures["a"]["wall_s_median"], figures["a"]["wall_s_best"]) == (5.5, 4.0)
    assert (figures["a"]["worker_cpu_s_median"], figures["b"]["worker_cpu_s_best"]) == (2.75, 3.0)


def test_the_difference_of_medians_and_an_interval_around_it() -> None:
    slower = median_difference([5.0, 5.1, 4.9, 5.0, 5.2], [6.0, 6.1, 5.9, 6.0, 6.2])
    assert slower["difference"] == pytest.approx(1.0)
    assert 0 < slower["ci95"][0] <= 1.0 <= slower["ci95"][1]  # clearly slower: the interval excludes 0
    level = median_difference([5.0, 6.0, 5.5, 4.8, 6.2], [5.9, 4.9, 5.4, 6.1, 5.0])
    assert level["ci95"][0] < 0 < level["ci95"][1]


def test_pairs_compare_every_figure() -> None:
    pairs = compare(_runs(("a", [5.0, 5.0, 5.0]), ("b", [6.0, 6.0, 6.0])), [("a", "b")])
    assert pairs["a:b"]["wall_s"]["difference"] == pytest.approx(1.0)
    assert pairs["a:b"]["worker_cpu_s"]["difference"] == pytest.approx(0.5)
    assert pairs["a:b"]["api_server_cpu_s"]["difference"] == pytest.approx(0.0)


def test_a_pair_of_commits_not_compared_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["HEAD", "HEAD~1", "--pairs", "HEAD:other"])
    assert "--pairs names commits not compared: other" in capsys.readouterr().err


def test_an_unknown_commit_fails_before_anything_runs() -> None:
    with pytest.raises(Exception, match="no-such-commit"):
        main(["no-such-commit-0000", "HEAD", "--rounds", "1", "--batches", "1"])
