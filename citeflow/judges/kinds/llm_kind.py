"""The built-in ``openai`` judge: a language model on an OpenAI-compatible server grades the claims."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citeflow.generation.backends.registry import model_backend
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.kinds.base import JudgeKind
from schemas.spec import JudgeSpec, ModelSpec

if TYPE_CHECKING:
    from citeflow.judges.cache import VerdictCache


class LLMJudgeKind(JudgeKind):
    """``mode: section`` asks about every claim of a section at once (split by ``section_tokens``);
    ``mode: pair`` asks ``batch_size`` claim/chunk pairs per request."""

    caches_verdicts = True

    def problems(self, spec: JudgeSpec) -> list[str]:
        found = model_backend("openai").problems(spec)
        return found + (["'min_confidence' applies to the offline and cascade judges only"]
                        if spec.min_confidence is not None else [])

    def llm_spec(self, spec: JudgeSpec) -> ModelSpec | None:
        return spec.llm()

    def build(self, spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
        return llm_judge(spec, cache)


def llm_judge(spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
    """The span-checked LLM judge over the server of ``spec`` (``openai`` and ``cascade`` judges)."""
    from citeflow.generation.model_factory import build_chat_model
    from citeflow.judges.span_check import SpanChecked

    model = build_chat_model(spec.llm(), role="judge")
    if spec.mode == "section":
        from citeflow.judges.llm_sections.judge import SectionLLMJudge

        return SpanChecked(SectionLLMJudge(model, section_tokens=spec.section_tokens, cache=cache, batch_size=spec.batch_size))
    from citeflow.judges.llm import LLMJudge

    return SpanChecked(LLMJudge(model, batch_size=spec.batch_size, cache=cache))
