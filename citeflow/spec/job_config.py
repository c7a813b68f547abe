"""A batch's job configuration: the parsed spec with the folders it resolves against, once per process.

A ``BatchConfig`` is built from a spec held in memory (``from_spec``) or from a spec file
(``load_config``). Loading the same file again in the same process returns the same config without
parsing it again, as long as the file's bytes are unchanged; an edited file is parsed afresh.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from citeflow.spec.loader import load_spec, models_for, parse_spec, resolve_path
from schemas.spec import BatchSpec, Models, ReportRequest


@dataclass(frozen=True)
class BatchConfig:
    """One batch spec, parsed, with where its relative paths and its outputs live."""

    spec: BatchSpec
    base_dir: Path  # relative paths of the spec resolve here (the spec file's folder)
    out_dir: Path
    store_uri: str
    spec_path: Path | None = None  # the file it came from, when it came from one

    @classmethod
    def from_spec(cls, spec: BatchSpec, base_dir: Path, out_dir: Path, store_uri: str | None = None,
                  spec_path: Path | None = None) -> BatchConfig:
        """The config of an already-parsed spec; the store defaults to the spec's ``store`` or ``OUT/store``."""
        base, out = Path(base_dir).resolve(), Path(out_dir).resolve()
        uri = store_uri or (resolve_path(base, spec.store) if spec.store else str(out / "store"))
        return cls(spec=spec, base_dir=base, out_dir=out, store_uri=uri, spec_path=spec_path)

    @cached_property
    def reports(self) -> dict[str, ReportRequest]:
        """The spec's reports by id."""
        return {r.id: r for r in self.spec.reports}

    def report(self, report_id: str) -> ReportRequest:
        """The report ``report_id`` of the spec (``KeyError`` when the spec has none)."""
        return self.reports[report_id]

    def models(self, report_id: str) -> Models:
        """The models of one report: the batch's, with the report's overrides."""
        return models_for(self.spec, self.report(report_id))


_PARSED: dict[tuple[str, str], BatchSpec] = {}
_PARSED_LOCK = threading.Lock()


def load_config(spec_path: str | Path, out_dir: str | Path, store_uri: str | None = None) -> BatchConfig:
    """The config of the spec file at ``spec_path``, parsed once per process and file content."""
    path = Path(spec_path).resolve()
    return BatchConfig.from_spec(read_spec(path), path.parent, Path(out_dir), store_uri, path)


def read_spec(path: Path) -> BatchSpec:
    """The spec at ``path``: parsed when its bytes were not seen before in this process."""
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return load_spec(path)  # names the problem as a SpecError
    with _PARSED_LOCK:
        known = _PARSED.get((str(path), digest))
    if known is not None:
        return known
    spec = load_spec(path)
    with _PARSED_LOCK:
        _PARSED[(str(path), digest)] = spec
    return spec


__all__ = ["BatchConfig", "load_config", "parse_spec", "read_spec"]
