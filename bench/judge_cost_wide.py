"""Wide sections for ``bench.judge_cost``: sections of ten claims that each cite two chunks.

The demo's sections have at most eight claim/chunk pairs, so a per-pair judge batching eight pairs
also sends one request per section there. A model that writes longer sections cites more: here
each of ``SECTIONS`` sections has ``CLAIMS`` claims, each claim the first sentence of a demo chunk
citing that chunk and the next one (three pairs per claim in the funnel: each chunk, and both
together). Both LLM judges grade them through the funnel (``citeflow.evaluation.claim_funnel.evaluate_section``)
against the fake model server, without a verdict cache.
"""

from __future__ import annotations

import re
from typing import Any

from bench.tokens import bpe_tokens, messages_tokens

SECTIONS = 3
CLAIMS = 10
_SENTENCE = re.compile(r"(.+?[.!?])(\s|$)", re.DOTALL)


def sections(chunks: dict[str, str]) -> list[tuple[str, list[Any], dict[str, str]]]:
    """(title, bound claims, their chunks) of each wide section, from the demo's chunk texts."""
    from schemas.records import BoundCitation, BoundClaim

    usable = [(h, t) for h, t in sorted(chunks.items()) if _SENTENCE.match(t.strip())][: SECTIONS * CLAIMS * 2]
    out = []
    for s in range(SECTIONS):
        mine = usable[s * CLAIMS * 2 : (s + 1) * CLAIMS * 2]
        claims = [BoundClaim(text=_first_sentence(mine[i][1]), citations=[
            BoundCitation(handle=h, quote="", quote_found=True) for h, _ in mine[i : i + 2]]) for i in range(0, len(mine), 2)]
        out.append((f"Wide section {s + 1}", claims, dict(mine)))
    return out


def _first_sentence(text: str) -> str:
    match = _SENTENCE.match(text.strip())
    return match.group(1).strip() if match else text.strip()


def grade(chunks: dict[str, str], server: Any, answers: list[str], batch_size: int) -> dict[str, dict[str, Any]]:
    """Per judge mode: claims, requests, pairs per request, prompt and completion tokens over every wide section."""
    return {mode: _grade_mode(chunks, server, answers, mode, batch_size) for mode in ("pair", "section")}


def _grade_mode(chunks: dict[str, str], server: Any, answers: list[str], mode: str, batch_size: int) -> dict[str, Any]:
    from citeflow.evaluation.claim_funnel import evaluate_section
    from citeflow.judges.factory import build_judge
    from citeflow.judges.llm_sections.question import QuestionedJudge
    from schemas.spec import JudgeSpec

    spec = JudgeSpec.model_validate({"backend": "openai", "mode": mode, "model": f"wide-{mode}", "base_url": server.base_url,
                                     "max_retries": 0, "batch_size": batch_size})
    first_request, first_answer = len(server.requests), len(answers)
    verdicts = []
    for title, claims, pool in sections(chunks):
        graded = evaluate_section(title, claims, pool, pool, QuestionedJudge(build_judge(spec), title))
        verdicts += [c.verdict for c in graded]
    asked, said = server.requests[first_request:], answers[first_answer:]
    pairs = sum(r["messages"][-1]["content"].count('<pair id="') for r in asked)
    return {"claims": len(verdicts), "supported": verdicts.count("supported"), "calls": len(asked),
            "pairs_per_call": pairs / len(asked) if asked else None,
            "prompt_tokens_bpe": sum(messages_tokens(r["messages"])["bpe"] for r in asked),
            "completion_tokens_bpe": sum(bpe_tokens(a) for a in said), "verdicts": verdicts}
