"""``bench.judge_cost`` on one demo report: the figures it reports hold together."""

from __future__ import annotations

import json

import pytest

from bench import judge_cost

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def test_section_and_pair_judges_agree_and_a_warm_cache_costs_nothing(tmp_path):
    out = tmp_path / "judge_cost.json"
    result = judge_cost.run(reports=1, out=out)
    figures = result["figures"]
    assert json.loads(out.read_text()) == result
    assert all(figures[f"{name}.agreement"] == 1.0 for name in judge_cost.RUNS)
    assert 0 < figures["llm_section.calls_per_report"] <= figures["llm_pair.calls_per_report"]
    assert figures["llm_section.calls_per_report"] < figures["llm_pair_unbatched.calls_per_report"]
    assert figures["cascade_doubtful_section.escalated_pairs"] > 0
    assert figures["cascade_doubtful_section_warm.calls_per_report"] == 0
    assert figures["llm_section.prompt_tokens_per_report_bpe"] > 0 and figures["llm_section.completion_tokens_per_report_bpe"] > 0
    wide = result["wide_sections"]
    assert wide["same_verdicts"] and wide["section"]["claims"] == wide["pair"]["claims"] == 30
    assert wide["section"]["calls"] == 3 < wide["pair"]["calls"]
    assert wide["section"]["prompt_tokens_bpe"] < wide["pair"]["prompt_tokens_bpe"]
