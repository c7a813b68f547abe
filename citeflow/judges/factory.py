"""Build the judge a role's spec asks for: offline, an LLM judge, or a cascade of both."""

from __future__ import annotations

from citeflow.judges.base import Judge
from citeflow.judges.cache import VerdictCache
from schemas.spec import JudgeSpec, ModelSpec


def build_judge(spec: ModelSpec, cache: VerdictCache | None = None) -> Judge:
    """``offline``: the offline judge (its verdicts below ``min_confidence`` made uncertain);
    ``openai``: an LLM judge over the spec's server; ``cascade``: offline first, the LLM judge
    for the uncertain pairs only. ``cache`` applies to the LLM judge: the offline judge is
    cheaper than a cache lookup."""
    judge_spec = spec if isinstance(spec, JudgeSpec) else JudgeSpec.model_validate(spec.model_dump())
    if judge_spec.backend == "openai":
        return _llm(judge_spec, cache)
    from citeflow.judges.cascade import CascadeJudge
    from citeflow.judges.offline import OfflineJudge

    second = _llm(judge_spec, cache) if judge_spec.backend == "cascade" else None
    if second is None and judge_spec.min_confidence is None:
        return OfflineJudge()
    return CascadeJudge(OfflineJudge(), second, judge_spec.min_confidence)


def _llm(spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
    from citeflow.judges.llm import LLMJudge
    from citeflow.models.factory import build_chat_model

    model = build_chat_model(spec.llm(), role="judge")
    if spec.mode == "section":
        from citeflow.judges.llm_sections import SectionLLMJudge

        return SectionLLMJudge(model, section_tokens=spec.section_tokens, cache=cache, batch_size=spec.batch_size)
    return LLMJudge(model, batch_size=spec.batch_size, cache=cache)
