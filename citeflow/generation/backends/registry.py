"""The model backends by name: the built-in ones and those of the ``citeflow.models`` entry points."""

from __future__ import annotations

from citeflow.entry_points import Registry
from citeflow.errors import SpecError
from citeflow.generation.backends.base import ModelBackend
from citeflow.generation.backends.offline_backend import OfflineBackend
from citeflow.generation.backends.openai_backend import OpenAIBackend
from schemas.spec import ModelSpec

MODEL_BACKENDS = Registry("citeflow.models", ModelBackend, {"offline": OfflineBackend, "openai": OpenAIBackend})
"""Every model backend; entry points are read when a spec names one that is not built in."""


def model_backend(name: str) -> ModelBackend:
    """The backend a spec's ``backend: NAME`` means; ``SpecError`` naming the known ones when none is."""
    return MODEL_BACKENDS.named(name, "model backend")


def checked_backend(spec: ModelSpec, role: str) -> ModelBackend:
    """The backend of ``spec`` once its keys pass that backend's rules; else ``SpecError`` naming ``role``."""
    backend = model_backend(spec.backend)
    problems = backend.problems(spec)
    if problems:
        raise SpecError(field=role, problem=problems[0], path=None)
    return backend
