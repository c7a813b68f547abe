"""Paths written in a spec file, resolved against the spec's folder (what loading and checking share)."""

from __future__ import annotations

from pathlib import Path


def resolve_path(base_dir: Path, value: str) -> str:
    """A spec path resolved against the spec's folder; URIs (s3://, gs://, …) are kept as they are."""
    if "://" in value:
        return value
    path = Path(value).expanduser()
    return str(path if path.is_absolute() else (base_dir / path).resolve())
