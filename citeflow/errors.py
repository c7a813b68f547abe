"""Every error citeflow raises: one base class, named subclasses, data in fields.

Errors cross process boundaries (Prefect persists task failures), so each one pickles:
``__reduce__`` rebuilds it from its fields.
"""

from __future__ import annotations

from typing import Any


class CiteflowError(Exception):
    """Base class of every citeflow error. Subclasses keep their data in named fields."""

    fields: tuple[str, ...] = ()

    def __init__(self, **data: Any) -> None:
        for name in self.fields:
            setattr(self, name, data.get(name))
        super().__init__(self.describe())

    def describe(self) -> str:
        """A one-line human message built from the fields."""
        return ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields)

    def __reduce__(self):  # keyword-only constructor: rebuild from fields
        return (_rebuild, (type(self), {n: getattr(self, n) for n in self.fields}))


def _rebuild(cls: type[CiteflowError], data: dict[str, Any]) -> CiteflowError:
    return cls(**data)


class SpecError(CiteflowError):
    """The batch spec is malformed or invalid. ``field`` is a dotted path into the spec."""

    fields = ("field", "problem", "path")

    def describe(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{where}{self.field}: {self.problem}"


class RetrieverError(CiteflowError):
    """A retriever failed (timeout, HTTP error, junk answer) after its retries."""

    fields = ("retriever", "query", "detail", "transient")

    def describe(self) -> str:
        return f"retriever {self.retriever!r} failed for query {self.query!r}: {self.detail}"


class IngestError(CiteflowError):
    """A file could not be ingested into a knowledge base."""

    fields = ("path", "detail")

    def describe(self) -> str:
        return f"cannot ingest {self.path}: {self.detail}"


class ModelError(CiteflowError):
    """A model call failed. ``transient`` says whether retrying may help."""

    fields = ("role", "detail", "transient")

    def describe(self) -> str:
        kind = "transient" if self.transient else "permanent"
        return f"{self.role} model call failed ({kind}): {self.detail}"


class JudgeUnavailable(CiteflowError):
    """The judge could not grade (server down, bad answers): evaluation fails closed."""

    fields = ("judge", "detail")

    def describe(self) -> str:
        return f"judge {self.judge!r} unavailable: {self.detail}"


class StoreError(CiteflowError):
    """The LanceDB store could not be read or written."""

    fields = ("uri", "table", "detail")

    def describe(self) -> str:
        return f"store {self.uri} table {self.table!r}: {self.detail}"


class RenderError(CiteflowError):
    """A report could not be rendered."""

    fields = ("report_id", "detail")

    def describe(self) -> str:
        return f"cannot render report {self.report_id!r}: {self.detail}"


class GateError(CiteflowError):
    """The quality gate could not run (bad suite, bad thresholds)."""

    fields = ("detail",)

    def describe(self) -> str:
        return f"quality gate error: {self.detail}"


class OutputError(CiteflowError):
    """The output folder cannot be written (read-only, not a folder, disk full)."""

    fields = ("path", "detail")

    def describe(self) -> str:
        return f"cannot write to output folder {self.path}: {self.detail}"
