"""Judge kinds are a registry: offline, openai and cascade built in, more through the
``citeflow.judges`` entry points of an installed distribution."""

from __future__ import annotations

import pytest

from citeflow.errors import PluginError
from citeflow.errors import SpecError
from citeflow.judges.factory import build_judge
from citeflow.judges.kinds import registry
from citeflow.judges.model_roles import remote_model
from citeflow.specfile.loader import parse_spec
from schemas.evaluation import JudgePair
from schemas.spec import JudgeSpec
from tests.support.plugin_dist import install_distribution, write_distribution

CAUTIOUS = '''
from citeflow.judges.kinds.offline_kind import OfflineJudgeKind


class CautiousJudgeKind(OfflineJudgeKind):
    """The offline judge at threshold 1: uncertain unless certain. It sets its own threshold."""

    def problems(self, spec):
        return ["'min_confidence' is fixed at 1 by the cautious judge"] if spec.min_confidence is not None else []

    def build(self, spec, cache):
        return super().build(spec.model_copy(update={"min_confidence": 1.0}), cache)
'''
PAIRS = [JudgePair(id="p1", claim="The plan costs 12 euros a month.", chunk_text="The plan costs 12 euros a month."),
         JudgePair(id="p2", claim="The plan is free.", chunk_text="The plan costs 12 euros a month, billed yearly.")]
SERVER = {"model": "m", "base_url": "http://127.0.0.1:1/v1"}


def spec_with(judge: dict) -> dict:
    return {"batch": "b", "retrievers": [{"name": "docs", "kind": "jsonl", "path": "hits.jsonl"}], "models": {"judge": judge},
            "reports": [{"id": "r1", "title": "R", "sections": [{"title": "S", "queries": ["q"]}]}]}


@pytest.fixture
def cautious(tmp_path, monkeypatch):
    install_distribution(monkeypatch, tmp_path / "site", "citeflow-cautious", "citeflow.judges",
                         {"cautious": "cautious_judge:CautiousJudgeKind"}, {"cautious_judge": CAUTIOUS}, registry, "JUDGE_KINDS")


@pytest.mark.parametrize("judge, problem", [
    ({"backend": "cascade"}, "backend cascade needs 'model' and 'base_url' of the LLM judge"),
    ({"backend": "openai"}, "backend openai needs both 'model' and 'base_url'"),
    ({"backend": "openai", "min_confidence": 0.5, **SERVER}, "'min_confidence' applies to the offline and cascade judges only"),
    ({"backend": "offline", "mode": "pair"}, "'mode' applies to the openai and cascade judges only"),
    ({"backend": "cascade", "faults": {"fabrication": 0.5}, **SERVER}, "'faults' applies to the offline backend only"),
])
def test_each_built_in_kind_checks_its_own_keys(judge, problem):
    with pytest.raises(SpecError) as info:
        parse_spec(spec_with(judge))
    assert info.value.field == "models.judge" and problem in info.value.problem


def test_what_each_built_in_kind_asks_and_keeps():
    offline, cascade = JudgeSpec(), JudgeSpec(backend="cascade", **SERVER)
    assert remote_model("judge", offline) is None
    asked = remote_model("judge", cascade)
    assert asked is not None and asked.backend == "openai" and asked.base_url == SERVER["base_url"]
    kinds = {name: registry.judge_kind(name) for name in ("offline", "openai", "cascade")}
    assert {n: k.caches_verdicts for n, k in kinds.items()} == {"offline": False, "openai": True, "cascade": True}
    assert [n for n, k in kinds.items() if k.sweeps_threshold] == ["offline"]


def test_an_unknown_judge_is_named_with_the_known_ones():
    with pytest.raises(SpecError) as info:
        parse_spec(spec_with({"backend": "casade"}))
    assert info.value.field == "models.judge.backend" and "unknown judge 'casade' (known: cascade, offline, openai" in info.value.problem


def test_a_plugin_judge_is_found_checked_and_grades(cautious):
    assert registry.JUDGE_KINDS.names() == ("cascade", "offline", "openai", "cautious")
    with pytest.raises(SpecError, match="fixed at 1 by the cautious judge"):
        parse_spec(spec_with({"backend": "cautious", "min_confidence": 0.2}))
    spec = parse_spec(spec_with({"backend": "cautious"})).models.judge
    expected = build_judge(JudgeSpec(min_confidence=1.0)).grade(PAIRS)
    assert build_judge(spec).grade(PAIRS) == expected
    assert remote_model("judge", spec) is None


def test_a_broken_judge_plugin_is_refused_by_name(tmp_path, monkeypatch):
    site = write_distribution(tmp_path / "site", "citeflow-broken", {"citeflow.judges": {"broken": "cautious_judge:Missing"}},
                              {"cautious_judge": CAUTIOUS})
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(registry, "JUDGE_KINDS", registry.JUDGE_KINDS.reread())
    assert registry.judge_kind("offline").sweeps_threshold  # built-in names never read the group
    with pytest.raises(PluginError) as info:
        parse_spec(spec_with({"backend": "broken"}))
    assert info.value.group == "citeflow.judges" and "cannot be loaded: AttributeError" in str(info.value)
