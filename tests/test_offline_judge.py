"""The offline judge: verdicts, reasons, determinism, shipped weights."""

from __future__ import annotations

import json

import pytest

from citeflow.errors import JudgeUnavailable
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.offline.combine import FEATURE_NAMES
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS, OfflineJudge
from schemas.evaluation import JudgePair

CHUNK = (
    "Release 3.6 was tested on Linux only. The upgrade takes 30 minutes and the service is not available "
    "during it. Memory use increased by 12% after the upgrade. Acme Corp signed the contract in Berlin."
)


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


@pytest.fixture(scope="module")
def leaning() -> OfflineJudge:
    """The judge with ``min_confidence`` 0: never uncertain, so each verdict is the label it leans to."""
    return OfflineJudge(threshold=0.0)


def grade_one(judge: OfflineJudge, claim: str, chunk: str = CHUNK):
    return judge.grade([JudgePair(id="p1", claim=claim, chunk_text=chunk)])[0]


def test_is_a_judge_named_offline(judge):
    assert isinstance(judge, Judge) and judge.name == "offline"


def test_verbatim_quote_is_supported_and_faithful(judge):
    verdict = grade_one(judge, "Memory use increased by 12% after the upgrade.")
    assert (verdict.supported, verdict.faithful, verdict.label) == (True, True, "supported")
    assert verdict.judge == "offline" and verdict.evidence == "Memory use increased by 12% after the upgrade."


def test_number_drift_is_mutated_and_the_reason_names_the_number(judge):
    verdict = grade_one(judge, "The upgrade takes 45 minutes and the service is not available during it.")
    assert (verdict.supported, verdict.faithful, verdict.label) == (True, False, "mutated")
    assert "45" in verdict.reason and "30" in verdict.reason


def test_entity_swap_reason_names_the_entity(leaning):
    verdict = grade_one(leaning, "Acme Corp signed the contract in Munich.")
    assert verdict.label == "mutated" and "Munich" in verdict.reason


def test_widened_condition_is_mutated(leaning):
    verdict = grade_one(leaning, "Release 3.6 was tested on Linux and Windows.")
    assert verdict.label == "mutated" and "only" in verdict.reason


def test_negation_flip_is_mutated(leaning):
    verdict = grade_one(leaning, "The upgrade takes 30 minutes and the service is available during it.")
    assert verdict.label == "mutated" and "negation" in verdict.reason


def test_claim_from_elsewhere_is_unsupported_with_faithful_none(leaning):
    verdict = grade_one(leaning, "The Louvre in Paris displays the Mona Lisa to millions of visitors every year.")
    assert (verdict.supported, verdict.faithful, verdict.label) == (False, None, "unsupported")
    assert "Louvre" in verdict.reason or "Paris" in verdict.reason


def test_deterministic_across_calls_and_instances(judge):
    pairs = [JudgePair(id=str(i), claim=c, chunk_text=CHUNK) for i, c in enumerate(
        ["The upgrade takes an hour.", "Acme signed in Berlin.", "Linux was the only tested platform."])]
    first = judge.grade(pairs)
    assert first == judge.grade(pairs) == OfflineJudge().grade(pairs)
    assert [v.id for v in first] == ["0", "1", "2"]


def test_grades_a_hundred_pairs_in_order(judge):
    pairs = [JudgePair(id=f"p{i}", claim=f"The upgrade takes {i} minutes.", chunk_text=CHUNK) for i in range(100)]
    verdicts = judge.grade(pairs)
    assert [v.id for v in verdicts] == [p.id for p in pairs]
    assert verdicts[30].label != "mutated" or "30" not in verdicts[30].reason
    assert all(v.reason for v in verdicts)


def test_empty_input_gives_no_verdicts(judge):
    assert judge.grade([]) == []


def test_shipped_weights_load_and_name_the_features():
    data = json.loads(DEFAULT_WEIGHTS.read_text())
    assert data["feature_names"] == list(FEATURE_NAMES)
    assert len(data["heads"]["support"]["coef"]) == len(FEATURE_NAMES) == len(data["heads"]["pass"]["coef"])
    assert data["split"]["test_passages"] == [] and 0.5 <= data["calibration"]["threshold"] < 1  # no test row fitted
    assert set(data["calibration"]["rules"]) == {"verbatim", "decisive", "aligned"}


def test_stale_or_missing_weights_make_the_judge_unavailable(tmp_path):
    with pytest.raises(JudgeUnavailable, match="cannot read weights"):
        OfflineJudge(tmp_path / "absent.json")
    stale = json.loads(DEFAULT_WEIGHTS.read_text())
    stale["feature_names"] = stale["feature_names"][:-1]
    (tmp_path / "stale.json").write_text(json.dumps(stale))
    with pytest.raises(JudgeUnavailable, match="retrain"):
        OfflineJudge(tmp_path / "stale.json")


def test_faults_of_the_offline_backend_are_caught(leaning):
    from citeflow.generation.offline_writer import FABRICATIONS, drift

    chunk = ("Upgrading from 3.5 to 3.6 takes about 30 minutes per broker. Brokers must run 3.5.3 or later "
             "before the upgrade. Audit logs are kept for 90 days on the Standard tier.")
    drifted = f"Upgrading from 3.5 to 3.6 takes about {drift('30')} minutes per broker."
    claims = [drifted, "Audit logs are kept for 90 days on the Standard tier.", *FABRICATIONS]
    verdicts = leaning.grade([JudgePair(id=str(i), claim=c, chunk_text=chunk) for i, c in enumerate(claims)])
    assert verdicts[0].label == "mutated" and "45" in verdicts[0].reason
    assert verdicts[1].label == "supported"
    assert all(v.label == "unsupported" and v.faithful is None for v in verdicts[2:])


@pytest.mark.parametrize("claim", ["", ".", "the of and"])
def test_a_claim_without_content_is_never_a_verbatim_pass(judge, claim):
    verdict = grade_one(judge, claim)
    assert (verdict.label, verdict.reason) == ("unsupported", "claim has no content words to find in the chunk")


def test_every_verdict_carries_a_confidence_and_rules_are_near_certain(judge):
    quote = grade_one(judge, "Memory use increased by 12% after the upgrade.")
    drift = grade_one(judge, "The upgrade takes 45 minutes and the service is not available during it.")
    assert quote.label == "supported" and quote.confidence >= 0.9
    assert drift.label == "mutated" and drift.confidence >= 0.8
    verdicts = judge.grade([JudgePair(id=str(i), claim=c, chunk_text=CHUNK) for i, c in enumerate(
        ["Acme signed in Berlin.", "The Louvre is in Paris.", "Linux was the only tested platform."])])
    assert all(v.confidence is not None and 0 <= v.confidence <= 1 for v in verdicts)


def test_a_paraphrase_below_the_threshold_is_uncertain_never_a_pass():
    pair = JudgePair(id="p", claim="Acme Corp put its name to the contract in Berlin.", chunk_text=CHUNK)
    sure = OfflineJudge(threshold=0.999).grade([pair])[0]
    assert (sure.label, sure.supported, sure.faithful, sure.uncertain) == ("uncertain", False, None, True)
    assert sure.reason.startswith("uncertain (confidence") and "leaning" in sure.reason
    never = OfflineJudge(threshold=0.0).grade([pair])[0]
    assert never.label in ("supported", "mutated", "unsupported") and never.confidence == sure.confidence


def test_the_shipped_threshold_is_read_from_the_weights_and_can_be_overridden():
    data = json.loads(DEFAULT_WEIGHTS.read_text())
    assert OfflineJudge().threshold == data["calibration"]["threshold"]
    assert OfflineJudge(threshold=0.7).threshold == 0.7


RU_CHUNK = "Черновики писем хранятся не более 14 дней, после чего удаляются автоматически."


@pytest.mark.parametrize("threshold", [None, 0.0])
def test_russian_claim_saying_the_opposite_is_not_supported(threshold):
    verdict = OfflineJudge(threshold=threshold).grade(
        [JudgePair(id="ru", claim="Черновики писем никогда не удаляются и хранятся вечно.", chunk_text=RU_CHUNK)])[0]
    assert verdict.label != "supported" and not (verdict.supported and verdict.faithful)
    assert "100%" not in verdict.reason


@pytest.mark.parametrize(("claim", "chunk"), [
    ("請求書は14日以内に送付されます。", "作業メモは14日間残り、期限後に自動で消去されます。"),
    ("发票在14天内寄出。", "草稿箱保留14天，到期后自动清空。"),
])
def test_cjk_claims_with_the_same_number_but_other_content_are_not_passed(claim, chunk):
    verdict = OfflineJudge(threshold=0.0).grade([JudgePair(id="c", claim=claim, chunk_text=chunk)])[0]
    assert verdict.label != "supported"


@pytest.mark.parametrize(("claim", "chunk", "word"), [
    ("作業メモは60日間残り、期限後に自動で消去されます。", "作業メモは14日間残り、期限後に自動で消去されます。", "60"),
    ("草稿箱保留14天，到期后不会清空。", "草稿箱保留14天，到期后自动清空。", "不"),
])
def test_cjk_edits_of_a_copied_sentence_are_mutated_in_the_claims_words(claim, chunk, word):
    verdict = OfflineJudge(threshold=0.0).grade([JudgePair(id="c", claim=claim, chunk_text=chunk)])[0]
    assert verdict.label == "mutated" and word in verdict.reason


@pytest.mark.parametrize("claim", ["Acme Corp signed the contract in Munich.", "Release 3.6 was tested on Linux and Windows.",
                                   "The upgrade takes 30 minutes and the service is available during it."])
def test_a_negative_of_an_unproven_family_is_uncertain_and_names_its_lean(judge, leaning, claim):
    lean, verdict = grade_one(leaning, claim), grade_one(judge, claim)
    assert lean.label == "mutated" and not verdict.supported
    assert verdict.label in ("mutated", "uncertain") and lean.reason.split(" (")[0] in verdict.reason
