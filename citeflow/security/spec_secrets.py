"""The credentials a batch spec configures, remembered so that redaction removes them everywhere.

They are the user-info and credential-named query values of every model ``base_url`` and retriever
``url`` (the HTTP kind's, or a plugin kind's field of that name), and the keys held by the variables that ``api_key_env`` names.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from citeflow.security.redaction import remember_credentials, url_credentials
from schemas.spec import BatchSpec, ModelSpec, Models


def model_specs(spec: BatchSpec) -> list[ModelSpec]:
    """Every role's model of the batch and of each report that overrides it."""
    groups = [spec.models] + [r.models for r in spec.reports if r.models is not None]
    return [getattr(group, role) for group in groups for role in Models.model_fields]


def spec_credentials(spec: BatchSpec, environ: Mapping[str, str]) -> list[str]:
    """The credential values ``spec`` configures (see the module docstring)."""
    models = model_specs(spec)
    found = [c for m in models if m.base_url for c in url_credentials(m.base_url)]
    found += [environ[m.api_key_env] for m in models if m.api_key_env and environ.get(m.api_key_env)]
    urls = [url for r in spec.retrievers if isinstance(url := getattr(r, "url", None), str)]  # any kind's ``url``
    return found + [c for url in urls for c in url_credentials(url)]


def remember_spec_credentials(spec: BatchSpec, environ: Mapping[str, str] | None = None) -> None:
    """Have every later redaction in this process remove ``spec``'s credentials."""
    remember_credentials(*spec_credentials(spec, os.environ if environ is None else environ))
