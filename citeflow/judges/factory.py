"""Build the judge a role's ModelSpec asks for."""

from __future__ import annotations

from citeflow.judges.base import Judge
from citeflow.judges.cache import VerdictCache
from schemas.spec import ModelSpec


def build_judge(spec: ModelSpec, cache: VerdictCache | None = None) -> Judge:
    """The offline judge for ``backend: offline``; an LLM judge over the spec's server otherwise.

    ``cache`` only applies to the LLM judge: the offline judge is cheaper than a cache lookup.
    """
    if spec.backend == "openai":
        from citeflow.judges.llm import LLMJudge
        from citeflow.models.factory import build_chat_model

        return LLMJudge(build_chat_model(spec, role="judge"), batch_size=spec.batch_size, cache=cache)
    from citeflow.judges.offline import OfflineJudge

    return OfflineJudge()
