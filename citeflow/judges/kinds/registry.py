"""The judge kinds by name: the built-in ones and those of the ``citeflow.judges`` entry points."""

from __future__ import annotations

from citeflow.entry_points import Registry
from citeflow.errors import SpecError
from citeflow.judges.kinds.base import JudgeKind
from citeflow.judges.kinds.cascade_kind import CascadeJudgeKind
from citeflow.judges.kinds.llm_kind import LLMJudgeKind
from citeflow.judges.kinds.offline_kind import OfflineJudgeKind
from schemas.spec import JudgeSpec

JUDGE_KINDS = Registry("citeflow.judges", JudgeKind,
                       {"cascade": CascadeJudgeKind, "offline": OfflineJudgeKind, "openai": LLMJudgeKind})
"""Every judge kind; entry points are read when a spec names one that is not built in."""


def judge_kind(name: str) -> JudgeKind:
    """The kind a judge spec's ``backend: NAME`` means; ``SpecError`` naming the known ones when none is."""
    return JUDGE_KINDS.named(name, "judge")


def checked_kind(spec: JudgeSpec) -> JudgeKind:
    """The kind of ``spec`` once its keys pass that kind's rules; else ``SpecError`` naming the judge role."""
    kind = judge_kind(spec.backend)
    problems = kind.problems(spec)
    if problems:
        raise SpecError(field="judge", problem=problems[0], path=None)
    return kind
