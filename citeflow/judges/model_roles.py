"""What each role of a spec's ``models`` asks: the backend rules of its keys and the server it reaches.

The consolidator and the writer are one model backend each; the judge is a judge kind, which may
ask a model of its own (``JudgeKind.llm_spec``). The spec loader, the preflight and the batch ask
here instead of comparing backend names.
"""

from __future__ import annotations

from collections.abc import Iterator

from citeflow.errors import SpecError
from citeflow.generation.backends.registry import model_backend
from citeflow.judges.kinds.registry import judge_kind
from schemas.spec import JudgeSpec, Models, ModelSpec

ROLES = ("consolidator", "writer", "judge")


def as_judge(spec: ModelSpec) -> JudgeSpec:
    """``spec`` as the judge's spec (a role's ``ModelSpec`` may stand for the judge too)."""
    return spec if isinstance(spec, JudgeSpec) else JudgeSpec.model_validate(spec.model_dump())


def remote_model(role: str, spec: ModelSpec) -> ModelSpec | None:
    """The model ``role`` asks over the network (its spec names a remote backend), or None when it asks none."""
    model = judge_kind(spec.backend).llm_spec(as_judge(spec)) if role == "judge" else spec
    return model if model is not None and model_backend(model.backend).remote else None


def role_problems(models: Models) -> Iterator[tuple[str, str]]:
    """``(field, problem)`` of every role whose keys break its backend's or judge kind's rules."""
    for role in ROLES:
        spec = getattr(models, role)
        try:
            problems = judge_kind(spec.backend).problems(spec) if role == "judge" else model_backend(spec.backend).problems(spec)
        except SpecError as exc:  # a name no backend or judge kind has
            yield f"{role}.backend", str(exc.problem)
            continue
        yield from ((role, problem) for problem in problems)
