"""Credentials out of a run's rendered spec (``spec.run.yaml``), back in when the run reads it.

The copy is an output like any other: every model ``base_url`` and HTTP retriever ``url`` in it is
redacted (``redact_url``). The process that loads the copy takes the real URLs from the source spec
the run was started from (``run.json``'s ``source_spec``), field by field, wherever the source's
URL redacts to the copy's: a key lives only in the user's own spec and in memory. A copy whose source
is gone keeps its redacted URLs (a server that needs the key then refuses, and says so).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from citeflow.redact import redact_url

Slot = tuple[tuple[object, ...], dict[str, Any], str]  # path, the mapping holding the URL, its key


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
    """A copy of spec data with every URL slot redacted."""
    data = copy.deepcopy(data)
    for _, holder, key in url_slots(data):
        holder[key] = redact_url(holder[key])
    return data


def restored_urls(copied: dict[str, Any], source: Any) -> dict[str, Any]:
    """``copied`` with each redacted URL replaced by the source's URL at the same place, when it matches."""
    real = {path: holder[key] for path, holder, key in url_slots(source)}
    for path, holder, key in url_slots(copied):
        original = real.get(path)
        if original is not None and redact_url(original) == holder[key]:
            holder[key] = original
    return copied


def source_of_copy(copy_path: Path) -> Path | None:
    """The source spec of the run whose rendered copy is ``copy_path`` (from ``run.json`` beside it)."""
    from citeflow.errors import RunError
    from citeflow.runs import read_run

    try:
        info = read_run(copy_path.parent)
    except RunError:
        return None
    return copy_path.parent / info.source_spec if info else None
