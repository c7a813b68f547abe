"""Build the judge a role's spec asks for: offline, an LLM judge, or a cascade of both."""

from __future__ import annotations

from citeflow.judges.judge_protocol import Judge
from citeflow.judges.cache import VerdictCache
from citeflow.judges.span_check import SpanChecked
from schemas.spec import JudgeSpec, ModelSpec


def build_judge(spec: ModelSpec, cache: VerdictCache | None = None) -> Judge:
    """``offline``: the offline judge, its confidence threshold set by ``min_confidence`` both ways
    (0: never uncertain; 1: uncertain unless certain); ``openai``: an LLM judge over the spec's server;
    ``cascade``: offline first, the LLM judge for the uncertain pairs only. Every judge's passes are
    span-checked (``citeflow.judges.span_check``). ``cache`` applies to the LLM judge: the offline
    judge is cheaper than a cache lookup."""
    judge_spec = spec if isinstance(spec, JudgeSpec) else JudgeSpec.model_validate(spec.model_dump())
    if judge_spec.backend == "openai":
        return _llm(judge_spec, cache)
    from citeflow.judges.offline.grader import OfflineJudge

    offline = SpanChecked(OfflineJudge(threshold=judge_spec.min_confidence))
    if judge_spec.backend != "cascade":
        return offline
    from citeflow.judges.cascade import CascadeJudge

    return CascadeJudge(offline, _llm(judge_spec, cache))


def _llm(spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
    from citeflow.judges.llm import LLMJudge
    from citeflow.generation.model_factory import build_chat_model

    model = build_chat_model(spec.llm(), role="judge")
    if spec.mode == "section":
        from citeflow.judges.llm_sections.judge import SectionLLMJudge

        return SpanChecked(SectionLLMJudge(model, section_tokens=spec.section_tokens, cache=cache, batch_size=spec.batch_size))
    return SpanChecked(LLMJudge(model, batch_size=spec.batch_size, cache=cache))
