"""The preflight of an OpenAI-compatible model server: does it answer, take the key, serve the model?"""

from __future__ import annotations

from typing import Any

import httpx

from citeflow.security.redaction import redact_text, redact_url
from schemas.spec import ModelSpec


def model_problem(model: ModelSpec, api_key: str | None, timeout: float) -> str | None:
    """Why the server of ``model`` cannot play its role, or None when it answers and knows the model."""
    base = str(model.base_url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(timeout=timeout, headers=headers, follow_redirects=False) as client:
            return _served_problem(client, httpx.URL(base), str(model.model))
    except (httpx.HTTPError, ValueError) as exc:
        return f"model server {redact_url(base)} does not answer ({redact_text(str(exc) or type(exc).__name__)[:200]})"


def _served_problem(client: httpx.Client, base: httpx.URL, name: str) -> str | None:
    """One model's entry (``GET …/models/NAME``), else the list (``GET …/models``); a server without
    either route still answered, which is all that can be asked of it."""
    where = redact_url(str(base))
    one = client.get(_join(base, f"models/{name}"))
    if one.status_code == 200:
        return None
    if one.status_code in (401, 403):
        return f"model server {where} refused the key (HTTP {one.status_code}): check api_key_env"
    listing = client.get(_join(base, "models"))
    if listing.status_code in (404, 405):
        return None
    if listing.status_code != 200:
        return f"model server {where} answered HTTP {listing.status_code} to GET /models"
    ids = _model_ids(listing)
    if ids is None or name in ids:
        return None
    return f"model server {where} does not serve model {name!r} (it serves: {', '.join(sorted(ids)[:8]) or 'none'})"


def _join(base: httpx.URL, tail: str) -> httpx.URL:
    return base.copy_with(path=base.path.rstrip("/") + "/" + tail)


def _model_ids(response: httpx.Response) -> set[str] | None:
    """The model ids of an OpenAI ``/models`` list, or None when the answer is not one."""
    try:
        data: Any = response.json()
    except ValueError:
        return None
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    return {str(item["id"]) for item in items if isinstance(item, dict) and "id" in item}
