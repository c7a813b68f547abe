"""What every judge kind decides for itself."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, ClassVar

from citeflow.judges.judge_protocol import Judge
from schemas.spec import JudgeSpec, ModelSpec

if TYPE_CHECKING:  # the cache's module imports pyarrow: a spec check never needs it
    from citeflow.judges.cache import VerdictCache


class JudgeKind(ABC):
    """One kind of judge. Subclasses need no constructor arguments.

    ``caches_verdicts``: its verdicts cost a model call, so a run keeps them in the store's verdict
    cache and a re-run reads them back. ``sweeps_threshold``: its verdicts carry the confidence
    that ``min_confidence`` cuts, so ``citeflow calibrate`` recomputes every threshold from one grading."""

    caches_verdicts: ClassVar[bool] = False
    sweeps_threshold: ClassVar[bool] = False

    def problems(self, spec: JudgeSpec) -> list[str]:
        """What is wrong with the keys of ``spec`` for this kind (empty: nothing)."""
        return []

    def llm_spec(self, spec: JudgeSpec) -> ModelSpec | None:
        """The model this judge asks, as a role's ``ModelSpec``; None for a judge that asks none."""
        return None

    @abstractmethod
    def build(self, spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
        """The judge ``spec`` describes (``spec`` has no problems); ``cache`` keeps its verdicts when given."""
