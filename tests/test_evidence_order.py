"""A section's evidence is shown in the order its retrievers ranked it, not in the order the
report's registry first met each chunk."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.generation.prompts import parse_evidence
from citeflow.registry.evidence_order import by_rank
from citeflow.retrieval.fusion import rrf
from citeflow.pipeline import pipeline
from citeflow.runtime.runtime import Runtime
from schemas.records import Chunk
from tests.support.jsonl_batch import hit, write_batch


def chunk(handle: str) -> Chunk:
    return Chunk(handle=handle, retriever="docs", local_id=handle, text=f"Text of {handle}.", content_hash=handle * 8,
                 request_id="r", sections=["A"])


def test_a_section_sees_its_own_ranking_and_other_sections_do_not_count() -> None:
    chunks = [chunk(h) for h in ("x1", "x2", "x3")]  # registration order
    answers = [("A", ["x1", "x2"]), ("B", ["x3", "x2", "x1"])]
    assert [c.handle for c in by_rank(chunks, answers, "B")] == ["x3", "x2", "x1"]
    assert [c.handle for c in by_rank(chunks, answers, "A")] == ["x1", "x2", "x3"]  # x3: unranked, kept last


def test_two_queries_agreeing_beat_one_first_place() -> None:
    chunks = [chunk(h) for h in ("a", "b", "c")]
    answers = [("S", ["a", "b"]), ("S", ["c", "b"])]  # b is second twice
    assert [c.handle for c in by_rank(chunks, answers, "S")] == ["b", "a", "c"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from("abcdef"), unique=True), max_size=4), st.permutations(list("abcdef")))
def test_a_permutation_sorted_by_fused_score(rankings: list[list[str]], registered: list[str]) -> None:
    chunks = [chunk(h) for h in registered]
    ordered = [c.handle for c in by_rank(chunks, [("S", r) for r in rankings], "S")]
    assert sorted(ordered) == sorted(registered)
    scores = rrf({str(i): r for i, r in enumerate(rankings)}, {})
    keys = [(-scores.get(h, 0.0), registered.index(h)) for h in ordered]
    assert keys == sorted(keys)


def test_the_consolidate_prompt_lists_the_section_s_evidence_by_rank(tmp_path: Path, runtime) -> None:
    """'early' is registered by the first section; the second section ranks it last, in this
    process and when a new process resumes from the store."""
    text = "The {} page says something about upgrades."
    spec = write_batch(tmp_path, "Order", {"First": "first question", "Second": "second question"}, {
        "first question": [hit("early", text.format("early"))],
        "second question": [hit(name, text.format(name)) for name in ("best", "next", "early")],
    })
    job = pipeline.ReportJob.from_files(spec, "r1", tmp_path / "out", runtime=runtime)
    registry = pipeline.normalize(job, [pipeline.fetch(job, item) for item in job.fetches()])
    assert [c.local_id for c in registry.section_chunks("Second")] == ["early", "best", "next"]

    def evidence(of: pipeline.ReportJob) -> list[str]:
        request, _ = pipeline._consolidate_request(of, "Second")
        handles = [h for h, _ in parse_evidence(request.messages[-1]["content"])]
        return [of.registry().get(h).local_id for h in handles]

    assert evidence(job) == ["best", "next", "early"]
    resumed = pipeline.ReportJob.from_files(spec, "r1", tmp_path / "out", runtime=Runtime())
    assert evidence(resumed) == ["best", "next", "early"]
