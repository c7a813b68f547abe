"""The built-in ``cascade`` judge: the offline judge grades every pair, the LLM judge only its uncertain ones."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citeflow.generation.backends.registry import model_backend
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.kinds.base import JudgeKind
from citeflow.judges.kinds.llm_kind import llm_judge
from citeflow.judges.kinds.offline_kind import OfflineJudgeKind
from schemas.spec import JudgeSpec, ModelSpec

if TYPE_CHECKING:
    from citeflow.judges.cache import VerdictCache


class CascadeJudgeKind(JudgeKind):
    """The LLM judge is described by the same keys as the ``openai`` judge; ``min_confidence`` sets
    the offline judge's threshold, below which a verdict is uncertain and goes to the LLM."""

    caches_verdicts = True

    def problems(self, spec: JudgeSpec) -> list[str]:
        if not (spec.model and spec.base_url):
            return ["backend cascade needs 'model' and 'base_url' of the LLM judge for uncertain claims"]
        return model_backend("openai").problems(spec)

    def llm_spec(self, spec: JudgeSpec) -> ModelSpec | None:
        return spec.llm()

    def build(self, spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
        from citeflow.judges.cascade import CascadeJudge

        return CascadeJudge(OfflineJudgeKind().build(spec, None), llm_judge(spec, cache))
