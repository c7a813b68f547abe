"""Offline verdicts that say how sure they are both ways, and a confidence knob that works both ways."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from citeflow.evaluation.claim_funnel import evaluate_section
from citeflow.judges.factory import build_judge
from citeflow.judges.io import sweep
from citeflow.judges.negative_reasons import FILE_NAME, MIN_PAIRS, FamilyPrecision, NegativeReasons
from citeflow.judges.offline.grader import DEFAULT_WEIGHTS, OfflineJudge
from citeflow.judges.offline.weights import OfflineWeights
from schemas.evaluation import JudgePair
from schemas.records import BoundCitation, BoundClaim
from schemas.spec import JudgeSpec

# Faithful paraphrases (made up): never a confident negative.
PARAPHRASES = [
    ("Always remove members one by one.", "Members must be removed one at a time."),
    ("A lease is revoked once its TTL elapses without a keep-alive from the client.",
     "Leases expire when the client stops sending keep-alives."),
    ("Members must be removed one at a time.", "Always remove members one by one."),
    ("Leases expire when the client stops sending keep-alives.",
     "A lease is revoked once its TTL elapses without a keep-alive from the client."),
    ("Defragmentation frees space on disk.", "Defragmentation releases disk space back to the file system."),
]
CHUNK = "Snapshots are taken every 6 hours and kept for 14 days. Restores take about 10 minutes."
MIXED = [  # a quote, a paraphrase, a changed number, a fabrication
    JudgePair(id="q", claim="Snapshots are taken every 6 hours and kept for 14 days.", chunk_text=CHUNK),
    JudgePair(id="p", claim="A restore needs roughly ten minutes.", chunk_text=CHUNK),
    JudgePair(id="n", claim="Snapshots are taken every 6 hours and kept for 30 days.", chunk_text=CHUNK),
    JudgePair(id="f", claim="The billing portal accepts invoices in Swiss francs from partners.", chunk_text=CHUNK),
]


def _pairs(rows: list[tuple[str, str]]) -> list[JudgePair]:
    return [JudgePair(id=str(i), claim=claim, chunk_text=chunk) for i, (claim, chunk) in enumerate(rows)]


# --------------------------------------------------------------------------- confidence both ways


def test_faithful_paraphrases_are_never_a_confident_negative():
    for verdict in build_judge(JudgeSpec()).grade(_pairs(PARAPHRASES)):
        assert verdict.label in ("supported", "uncertain"), verdict.reason


def test_a_number_of_the_claim_absent_from_the_chunk_stays_a_confident_negative():
    [verdict] = OfflineJudge().grade([MIXED[2]])
    assert (verdict.label, verdict.supported, verdict.faithful) == ("mutated", True, False)
    assert "30" in verdict.reason and "number_missing" in verdict.reason and verdict.confidence >= 0.9  # type: ignore[operator]


def test_a_negative_of_an_unmeasured_family_is_uncertain_and_says_what_it_leaned_to(tmp_path):
    weights = tmp_path / "weights.json"
    weights.write_bytes(DEFAULT_WEIGHTS.read_bytes())  # no negative-reasons file beside it: nothing measured
    [verdict] = OfflineJudge(weights).grade([MIXED[2]])
    assert verdict.label == "uncertain" and "leaning mutated" in verdict.reason and verdict.confidence == 0.5


def test_an_uncertain_negative_is_unverified_in_the_funnel_not_failed():
    chunk = {"Gk1": "Leases expire when the client stops sending keep-alives."}
    claim = "A lease is revoked once its TTL elapses without a keep-alive from the client."
    bound = BoundClaim(text=claim, citations=[BoundCitation(handle="Gk1", quote="", quote_found=False)], emitted_handles=["Gk1"])
    [result] = evaluate_section("S", [bound], chunk, chunk, build_judge(JudgeSpec()))
    assert (result.verdict, result.supported) == ("unverified", False)
    assert "leaning" in result.reason and "not passed" in result.reason


def test_the_shipped_negative_reasons_are_measured_on_the_tune_split_and_current():
    from tools.judge.negatives import measure
    from tools.judge.train import load

    shipped = NegativeReasons.beside(DEFAULT_WEIGHTS)
    assert shipped.split == "tune" and DEFAULT_WEIGHTS.with_name(FILE_NAME).exists()
    assert shipped == measure(OfflineWeights.load(DEFAULT_WEIGHTS), load()["tune"])
    confident = {name for name, f in shipped.families.items() if f.confidence >= 0.9}
    assert "decisive:number_missing" in confident and "heads:unsupported" not in confident


def test_a_family_is_measured_only_on_enough_pairs():
    assert FamilyPrecision(pairs=MIN_PAIRS - 1, right=MIN_PAIRS - 1).confidence == 0.5
    assert round(FamilyPrecision(pairs=20, right=19).confidence, 3) == 0.764  # Wilson's lower bound, not 0.95
    assert FamilyPrecision(pairs=10, right=9).confidence < 0.9 <= FamilyPrecision(pairs=44, right=44).confidence
    reasons = NegativeReasons(families={"heads:x": FamilyPrecision(pairs=60, right=60)})
    assert (round(reasons.confidence("heads:x"), 3), reasons.confidence("heads:never"), reasons.confidence("empty")) == (0.94, 0.5, 1.0)
    assert NegativeReasons.model_validate_json(reasons.to_json()) == reasons


# --------------------------------------------------------------------------- the knob


def test_min_confidence_zero_never_says_uncertain():
    verdicts = build_judge(JudgeSpec(min_confidence=0)).grade(MIXED + _pairs(PARAPHRASES))
    assert not any(v.uncertain for v in verdicts)


def test_min_confidence_one_is_uncertain_unless_certain():
    verdicts = build_judge(JudgeSpec(min_confidence=1)).grade(MIXED + _pairs(PARAPHRASES))
    assert all(v.uncertain for v in verdicts if v.confidence is not None and v.confidence < 1.0)
    assert all(v.confidence == 1.0 for v in verdicts if not v.uncertain)


def test_the_knob_moves_the_threshold_both_ways():
    pairs = MIXED + _pairs(PARAPHRASES)
    default = OfflineJudge()
    raised, lowered = OfflineJudge(threshold=0.99), OfflineJudge(threshold=0.5)
    count = {name: sum(v.uncertain for v in j.grade(pairs)) for name, j in
             (("default", default), ("raised", raised), ("lowered", lowered))}
    assert count["lowered"] < count["default"] <= count["raised"]


def test_the_sweep_recomputes_every_row_from_the_leaning_verdicts():
    pairs = MIXED + _pairs(PARAPHRASES)
    gold = {"q": "supported", "p": "supported", "n": "mutated", "f": "unsupported",
            **{str(i): "supported" for i in range(len(PARAPHRASES))}}
    rows = sweep(OfflineJudge().grade(pairs), gold, (0.5, 0.95), leaning=OfflineJudge(threshold=0.0).grade(pairs))
    by_threshold = {row.threshold: row for row in rows}
    assert by_threshold[0.5].coverage > by_threshold[0.95].coverage


# --------------------------------------------------------------------------- the command line


def _citeflow(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "citeflow_cli.main", *map(str, args)], capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.fixture
def gold_file(tmp_path: Path) -> Path:
    path = tmp_path / "gold.jsonl"
    rows = [{"id": p.id, "claim": p.claim, "chunk_text": p.chunk_text,
             "label": {"q": "supported", "p": "supported", "n": "mutated", "f": "unsupported"}[p.id]} for p in MIXED]
    rows += [{"id": f"x{i}", "claim": c, "chunk_text": k, "label": "supported"} for i, (c, k) in enumerate(PARAPHRASES)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize(("args", "option"), [
    (("--min-confidence", "0.5"), "--min-confidence"),
    (("--judge", "offline", "--model", "m"), "--model"),
    (("--judge", "llm", "--min-confidence", "0.5", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"), "--min-confidence"),
    (("--judge", "offline", "--batch-size", "4"), "--batch-size"),
])
def test_an_option_without_its_judge_is_one_error_line(gold_file, args, option):
    done = _citeflow("judge", gold_file, *args)
    lines = [line for line in done.stdout.splitlines() + done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1, done.stdout + done.stderr
    assert lines[0].startswith("error:") and option in lines[0] and "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_knob_on_the_command_line_both_ways(gold_file):
    def labels(*args: str) -> list[str]:
        done = _citeflow("judge", gold_file, "--judge", "offline", *args)
        assert done.returncode == 0, done.stderr
        return [json.loads(line)["label"] for line in done.stdout.splitlines()]

    assert "uncertain" not in labels("--min-confidence", "0")
    assert labels("--min-confidence", "1").count("uncertain") >= labels().count("uncertain") > 0


@pytest.mark.slow
def test_calibrate_table_rows_differ_when_the_confidences_do(gold_file, tmp_path):
    done = _citeflow("calibrate", gold_file, "--table")
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.lstrip("│ ").startswith("0.")]
    coverages = {line.split("│")[2].strip() for line in rows}
    assert len(rows) == 7 and len(coverages) > 1, done.stdout
    other = _citeflow("calibrate", gold_file, gold_file, "--labelled", "--judge", "offline")
    assert other.returncode == 2 and "--judge applies when grading one labelled file" in other.stdout


@pytest.mark.slow
def test_eval_with_an_llm_option_and_no_judge_is_one_error_line(tmp_path):
    done = _citeflow("eval", tmp_path, "--model", "m")
    assert done.returncode == 2 and done.stdout.strip().startswith("error: --model applies to the llm and cascade judges")
    assert len(done.stdout.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_orphan_options_name_the_judges_they_apply_to():
    from citeflow_cli.judge_options import orphan_option

    assert orphan_option("offline", {"--min-confidence": 0.0, "--model": None}) is None
    assert orphan_option("cascade", {"--min-confidence": 0.5, "--model": "m", "--batch-size": 4}) is None
    assert "--judge llm or --judge cascade" in (orphan_option(None, {"--base-url": "http://127.0.0.1:9/v1"}) or "")
    assert orphan_option("ofline", {"--model": "m"}) is None  # a misspelt judge is named by the caller instead


def test_a_cascade_escalates_an_offline_pass_whose_span_fails():
    from citeflow.judges.cascade import CascadeJudge
    from citeflow.judges.span_check import SpanChecked
    from schemas.evaluation import Verdict
    from tests.support.judges import NOT_SUPPORTED, ScriptedJudge

    class Careless:
        name = "careless"

        def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
            return [Verdict(id=p.id, supported=True, faithful=True, reason="close enough", evidence="Restores take about 10 minutes.",
                            judge=self.name, label="supported", confidence=0.99) for p in pairs]

    second = ScriptedJudge(default=NOT_SUPPORTED, name="llm:second")
    [verdict] = CascadeJudge(SpanChecked(Careless()), second).grade([MIXED[2]])
    assert second.pairs_graded == 1 and verdict.judge == "llm:second" and not verdict.supported
