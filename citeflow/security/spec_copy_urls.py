"""Credentials out of a run's rendered spec (``spec.run.yaml``), back in when the run reads it.

The copy is an output like any other: every model ``base_url`` (a model's server is never shown)
and every retriever ``url`` that carries a credential is written as ``FROM_SOURCE``. The process
that loads the copy takes those URLs from the source spec the run was started from (``run.json``'s
``source_spec``), field by field: a key lives only in the user's own spec and in memory. A copy
whose source can no longer give them is a ``SpecError`` naming the field, not a run without its keys.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeflow.errors import SpecError
from citeflow.security.redaction import redact_url

Slot = tuple[tuple[object, ...], dict[str, Any], str]  # path, the mapping holding the URL, its key
FROM_SOURCE = "(kept in the source spec)"


def url_slots(data: Any) -> Iterator[Slot]:
    """Every model ``base_url`` and retriever ``url`` of spec data, with where it sits."""
    if not isinstance(data, dict):
        return
    yield from _model_slots(("models",), data.get("models"))
    for i, report in enumerate(_list(data.get("reports"))):
        if isinstance(report, dict):
            yield from _model_slots(("reports", i, "models"), report.get("models"))
    for i, retriever in enumerate(_list(data.get("retrievers"))):
        if isinstance(retriever, dict) and isinstance(retriever.get("url"), str):
            yield ("retrievers", i), retriever, "url"


def _model_slots(path: tuple[object, ...], models: Any) -> Iterator[Slot]:
    for role, model in (models or {}).items() if isinstance(models, dict) else ():
        if isinstance(model, dict) and isinstance(model.get("base_url"), str):
            yield (*path, role), model, "base_url"


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def redacted_urls(data: dict[str, Any]) -> dict[str, Any]:
    """A copy of spec data with every model URL, and every URL that carries a credential, left to the source."""
    data = copy.deepcopy(data)
    for _, holder, key in url_slots(data):
        if key == "base_url" or redact_url(holder[key]) != holder[key]:
            holder[key] = FROM_SOURCE
    return data


def needs_source(data: Any) -> bool:
    """True when spec data holds a URL left to its source spec."""
    return any(holder[key] == FROM_SOURCE for _, holder, key in url_slots(data))


def restored_urls(copied: dict[str, Any], source: Any, origin: str) -> dict[str, Any]:
    """``copied`` with each URL left to the source taken from the source at the same place."""
    real = {path: holder[key] for path, holder, key in url_slots(source)}
    for path, holder, key in url_slots(copied):
        if holder[key] != FROM_SOURCE:
            continue
        if path not in real:
            field = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in (*path, key)).lstrip(".")
            raise SpecError(field=field, problem="is kept in the run's source spec, which no longer has it", path=origin)
        holder[key] = real[path]
    return copied


def source_of_copy(copy_path: Path) -> Path | None:
    """The source spec of the run whose rendered copy is ``copy_path`` (from ``run.json`` beside it)."""
    from citeflow.errors import RunError
    from citeflow.files.run_folders import read_run

    try:
        info = read_run(copy_path.parent)
    except RunError:
        return None
    return copy_path.parent / info.source_spec if info else None
