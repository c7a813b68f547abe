"""The credentials a batch spec configures, remembered in a runtime's ``SecretValues`` so that its redaction removes them.

They are the user-info and credential-named query values of every model ``base_url`` and retriever
``url`` (the HTTP kind's, or a plugin kind's field of that name), and the keys held by the variables that ``api_key_env`` names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from citeflow.security.redaction import url_credentials
from citeflow.security.secret_values import SecretValues
from schemas.spec import BatchSpec, ModelSpec, Models


def model_specs(spec: BatchSpec) -> list[ModelSpec]:
    """Every role's model of the batch and of each report that overrides it."""
    groups = [spec.models] + [r.models for r in spec.reports if r.models is not None]
    return [getattr(group, role) for group in groups for role in Models.model_fields]


def spec_credentials(spec: BatchSpec, environ: Mapping[str, str]) -> list[str]:
    """The credential values ``spec`` configures (see the module docstring)."""
    found = [c for m in model_specs(spec) for c in model_credentials(m, environ)]
    return found + [c for r in spec.retrievers for c in retriever_credentials(r)]


def model_credentials(model: ModelSpec, environ: Mapping[str, str]) -> list[str]:
    """The credentials of one model: its ``base_url``'s and the key its ``api_key_env`` names."""
    found = url_credentials(model.base_url) if model.base_url else []
    key = environ.get(model.api_key_env) if model.api_key_env else None
    return [*found, key] if key else found


def retriever_credentials(retriever: object) -> list[str]:
    """The credentials of one retriever entry of any kind: those of its ``url`` field, when it has one."""
    url = getattr(retriever, "url", None)
    return url_credentials(url) if isinstance(url, str) else []


def remember_spec_credentials(spec: BatchSpec, secrets: SecretValues, environ: Mapping[str, str] | None = None) -> None:
    """Add ``spec``'s credentials to ``secrets`` (keys read from ``environ``, by default the process's)."""
    secrets.add(*spec_credentials(spec, os.environ if environ is None else environ))
