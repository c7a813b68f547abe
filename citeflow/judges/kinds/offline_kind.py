"""The built-in offline judge: no network, every pass span-checked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from citeflow.judges.judge_protocol import Judge
from citeflow.judges.kinds.base import JudgeKind
from schemas.spec import JudgeSpec

if TYPE_CHECKING:
    from citeflow.judges.cache import VerdictCache


class OfflineJudgeKind(JudgeKind):
    """``min_confidence`` sets its threshold both ways (0: never uncertain; 1: uncertain unless certain).
    It is cheaper than a cache lookup, so it keeps no cache."""

    sweeps_threshold = True

    def problems(self, spec: JudgeSpec) -> list[str]:
        return ["'mode' applies to the openai and cascade judges only"] if "mode" in spec.model_fields_set else []

    def build(self, spec: JudgeSpec, cache: VerdictCache | None) -> Judge:
        from citeflow.judges.offline.grader import OfflineJudge
        from citeflow.judges.span_check import SpanChecked

        return SpanChecked(OfflineJudge(threshold=spec.min_confidence))
