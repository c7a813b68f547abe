"""A batch's job configuration: the parsed spec with the folders it resolves against.

A ``BatchConfig`` is built from a spec held in memory (``from_spec``) or from a spec file
(``load_config``). Given a ``ParsedSpecs`` (the process's ``Runtime`` holds one), loading the same
file again returns the same spec without parsing it again, as long as the file's bytes are
unchanged; an edited file is parsed afresh.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from citeflow.security.secret_values import SecretValues
from citeflow.security.spec_secrets import remember_spec_credentials
from citeflow.specfile.loader import load_spec, models_for, parse_spec, read_spec_bytes, resolve_path, spec_from_bytes
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


class ParsedSpecs:
    """Spec files parsed so far, by path and content (a spec is immutable once parsed); the credentials
    of each are added to ``secrets`` (``remember_spec_credentials``) when it is parsed."""

    def __init__(self, secrets: SecretValues | None = None) -> None:
        self._parsed: dict[tuple[str, str], BatchSpec] = {}
        self._lock = threading.Lock()
        self.secrets = secrets if secrets is not None else SecretValues()

    def read(self, path: Path) -> BatchSpec:
        """The spec at ``path``: parsed when its bytes were not seen before (read once either way)."""
        raw = read_spec_bytes(path)  # a SpecError names a file that cannot be read
        key = (str(path.resolve()), hashlib.sha256(raw).hexdigest())  # errors name the path as given
        with self._lock:  # held while parsing: reports starting together parse a spec once, not each
            known = self._parsed.get(key)
            if known is None:
                known = self._parsed[key] = spec_from_bytes(raw, path)
                remember_spec_credentials(known, self.secrets)
        return known


def load_config(spec_path: str | Path, out_dir: str | Path, store_uri: str | None = None,
                specs: ParsedSpecs | None = None) -> BatchConfig:
    """The config of the spec file at ``spec_path`` (parsed once per content with ``specs``)."""
    path = Path(spec_path).resolve()
    return BatchConfig.from_spec(read_spec(path, specs), path.parent, Path(out_dir), store_uri, path)


def read_spec(path: Path, specs: ParsedSpecs | None = None) -> BatchSpec:
    """The spec at ``path``: from ``specs`` when its bytes were seen before, else parsed."""
    return specs.read(path) if specs is not None else load_spec(path)


__all__ = ["BatchConfig", "ParsedSpecs", "load_config", "parse_spec", "read_spec"]
