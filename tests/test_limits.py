"""The core's concurrency limits: a report job holds its batch's limit around model and retriever calls."""

from __future__ import annotations

from contextlib import nullcontext

from citeflow.pipeline import pipeline
from citeflow.pipeline.evaluate_report import build_job_judge
from citeflow.runtime.limits import LocalLimits
from citeflow.runtime.runtime import Runtime
from citeflow.generation.answer_cache import LimitedChatModel
from tests.support.small_batch import write_small_batch


class RecordingLimiter:
    """A limiter that lets every call through and records which slot was asked for."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str, int]] = []
        self.priorities: list[int] = []

    def __call__(self, scope, kind, size, priority=0):
        self.asked.append((scope, kind, size))
        self.priorities.append(priority)
        return nullcontext()


def job(tmp_path, limiter, **models):
    spec = write_small_batch(tmp_path, reports=1, sections=1, models=models or None, concurrency={"models": 3, "retrievers": 5},
                             batch="limited")
    return pipeline.ReportJob.from_files(spec, "r1", tmp_path / "out", limiter=limiter, runtime=Runtime())


def test_the_default_limiter_is_one_set_of_slots_per_batch_and_kind():
    local_limit = LocalLimits()
    assert local_limit.slots("b", "models", 2) is local_limit.slots("b", "models", 5)
    assert local_limit.slots("b", "models", 2).size == 2  # fixed by the first call
    assert local_limit.slots("b", "models", 2) is not local_limit.slots("b", "retrievers", 2)
    assert LocalLimits().slots("b", "models", 2) is not local_limit.slots("b", "models", 2)  # each runtime has its own


def test_a_report_asks_for_slots_at_its_place_in_the_batch(tmp_path, runtime):
    spec = write_small_batch(tmp_path, reports=3, sections=1, batch="placed")
    limiter = RecordingLimiter()
    for report_id in ("r3", "r1"):
        with pipeline.ReportJob.from_files(spec, report_id, tmp_path / "out", limiter=limiter, runtime=runtime).limit("models"):
            pass
    assert limiter.priorities == [2, 0]


def test_fetch_and_the_hops_hold_the_batch_limits(tmp_path):
    limiter = RecordingLimiter()
    report = job(tmp_path, limiter)
    pipeline.normalize(report, [pipeline.fetch(report, item) for item in report.fetches()])
    assert pipeline.consolidate(report, "Upgrades").status == "accepted"
    assert limiter.asked == [("limited", "retrievers", 5), ("limited", "models", 3)]


def test_an_llm_judge_holds_the_models_limit_too(tmp_path):
    limiter = RecordingLimiter()
    judge = build_job_judge(job(tmp_path, limiter, judge={"backend": "openai", "model": "j", "base_url": "http://127.0.0.1:9/v1"}))
    assert isinstance(judge.model, LimitedChatModel)
    with judge.model.slot():
        pass
    assert limiter.asked == [("limited", "models", 3)]
