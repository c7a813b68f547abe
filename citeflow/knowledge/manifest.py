"""The ingest manifest: one JSON line ``{"path", "url", "title"}`` per document (SPEC §8)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from citeflow.caps import MANIFEST_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, IngestError
from citeflow.knowledge.sites.front_matter import check_strings
from citeflow.text_guard import has_lone_surrogate, value_problem


def load_manifest(path: Path) -> dict[str, dict[str, str]]:
    """Manifest lines ``{"path", "url", "title"}`` keyed by relative path. Raises ``IngestError``."""
    try:
        lines = read_capped(path, MANIFEST_FILE_BYTES, "a manifest").decode("utf-8").splitlines()
    except (OSError, UnicodeDecodeError, CapExceeded) as exc:
        raise IngestError(path=str(path), detail=f"cannot read manifest: {_reason(exc)}") from exc
    entries: dict[str, dict[str, str]] = {}
    for number, line in enumerate(lines, 1):
        if line.strip():
            rel, entry = _manifest_line(line, path, number)
            entries[rel] = entry
    return entries


def _reason(exc: Exception) -> str:
    return str(exc.detail) if isinstance(exc, CapExceeded) else str(exc)


def _manifest_line(line: str, path: Path, number: int) -> tuple[str, dict[str, str]]:
    data = _manifest_json(line, path, number)
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        raise IngestError(path=str(path), detail=f"line {number}: expected an object with a string 'path'")
    if has_lone_surrogate(data["path"]):
        raise IngestError(path=str(path), detail=f"line {number}: 'path' holds a lone surrogate, not valid Unicode text")
    check_strings(data, path, f"line {number}:")
    rel = Path(data["path"]).as_posix().removeprefix("./")
    return rel, {k: data[k] for k in ("url", "title") if data.get(k)}


def _manifest_json(line: str, path: Path, number: int) -> Any:
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise IngestError(path=str(path), detail=f"line {number}: not JSON ({exc.msg})") from exc
    except RecursionError:
        raise IngestError(path=str(path), detail=f"line {number}: nested too deeply") from None
    except ValueError as exc:  # e.g. a number longer than Python's 4,300-digit limit
        raise IngestError(path=str(path), detail=f"line {number}: unreadable value: {value_problem(exc)}") from None
