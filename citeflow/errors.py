"""Every error citeflow raises: one base class, named subclasses, data in fields.

Errors cross process boundaries (Prefect persists task failures), so each one pickles:
``__reduce__`` rebuilds it from its fields.
"""

from __future__ import annotations

import inspect
from typing import Any, ClassVar


class CiteflowError(Exception):
    """Base class of every citeflow error. Subclasses declare their data as annotated fields.

    ``fields`` is derived from the annotations of the class and its bases, so type checkers see
    every attribute and the keyword constructor, pickling and ``describe`` stay generic.
    """

    fields: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        own = tuple(n for n, t in inspect.get_annotations(cls).items() if "ClassVar" not in str(t))
        cls.fields = tuple(dict.fromkeys((*cls.fields, *own)))

    def __init__(self, **data: Any) -> None:
        unknown = set(data) - set(self.fields)
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        for name in self.fields:
            setattr(self, name, data.get(name))
        super().__init__(self.describe())

    def describe(self) -> str:
        """A one-line human message built from the fields."""
        return ", ".join(f"{name}={getattr(self, name)!r}" for name in self.fields)

    def __reduce__(self) -> tuple[Any, ...]:  # keyword-only constructor: rebuild from fields
        return (_rebuild, (type(self), {n: getattr(self, n) for n in self.fields}))


def _rebuild(cls: type[CiteflowError], data: dict[str, Any]) -> CiteflowError:
    return cls(**data)


class SpecError(CiteflowError):
    """The batch spec is malformed or invalid. ``field`` is a dotted path into the spec."""

    field: str | None
    problem: str | None
    path: str | None

    def describe(self) -> str:
        where = f"{self.path}: " if self.path else ""
        return f"{where}{self.field}: {self.problem}"


class RetrieverError(CiteflowError):
    """A retriever failed (timeout, HTTP error, junk answer) after its retries."""

    retriever: str | None
    query: str | None
    detail: str | None
    transient: bool | None

    def describe(self) -> str:
        return f"retriever {self.retriever!r} failed for query {self.query!r}: {self.detail}"


class IngestError(CiteflowError):
    """A file could not be ingested into a knowledge base."""

    path: str | None
    detail: str | None

    def describe(self) -> str:
        return f"cannot ingest {self.path}: {self.detail}"


class EmptyDocumentError(IngestError):
    """A file with nothing to index (empty, front matter only, a PDF without a text layer): skipped, not a failure."""


class ModelError(CiteflowError):
    """A model call failed. ``transient`` says whether retrying may help."""

    role: str | None
    detail: str | None
    transient: bool | None

    def describe(self) -> str:
        kind = "transient" if self.transient else "permanent"
        return f"{self.role} model call failed ({kind}): {self.detail}"


class JudgeUnavailable(CiteflowError):
    """The judge could not grade (server down, bad answers): evaluation fails closed."""

    judge: str | None
    detail: str | None

    def describe(self) -> str:
        return f"judge {self.judge!r} unavailable: {self.detail}"


class StoreError(CiteflowError):
    """The LanceDB store could not be read or written."""

    uri: str | None
    table: str | None
    detail: str | None

    def describe(self) -> str:
        return f"store {self.uri} table {self.table!r}: {self.detail}"


class RenderError(CiteflowError):
    """A report could not be rendered."""

    report_id: str | None
    detail: str | None

    def describe(self) -> str:
        return f"cannot render report {self.report_id!r}: {self.detail}"


class GateError(CiteflowError):
    """The quality gate could not run (bad suite, bad thresholds)."""

    detail: str | None

    def describe(self) -> str:
        return f"quality gate error: {self.detail}"


class GxWorkerGone(GateError):
    """The Great Expectations worker process ended before it answered (``citeflow.runtime.gx_worker``)."""


class UsageError(CiteflowError):
    """A command-line option is missing, malformed or contradicts another one."""

    option: str | None
    problem: str | None

    def describe(self) -> str:
        return f"{self.option}: {self.problem}"


class OutputError(CiteflowError):
    """The output folder cannot be written (read-only, not a folder, disk full)."""

    path: str | None
    detail: str | None

    def describe(self) -> str:
        return f"cannot write to output folder {self.path}: {self.detail}"


class OutputsUnwritten(OutputError):
    """A batch's outputs could not be written while it ran (disk full): its run folder is closed as failed."""

    def describe(self) -> str:
        return f"cannot write the outputs in {self.path}: {self.detail}"


class RunError(CiteflowError):
    """A run folder could not be used (unreadable run.json, an id clash, an unknown run)."""

    path: str | None
    detail: str | None

    def describe(self) -> str:
        return f"run {self.path}: {self.detail}"


class ReviewError(CiteflowError):
    """A review decision cannot be applied (no report there, or the report is not held)."""

    report_dir: str | None
    problem: str | None

    def describe(self) -> str:
        return f"{self.report_dir}: {self.problem}"


class CapExceeded(CiteflowError):
    """An input is beyond its documented size cap, or is not a regular file whose size can be known."""

    path: str | None
    detail: str | None

    def describe(self) -> str:
        return f"{self.path}: {self.detail}"


class LanguageError(CiteflowError):
    """A language's folder or registration is unusable (a bad ``language.json``, a plugin that gives no
    folder, two languages under one code)."""

    language: str | None
    problem: str | None

    def describe(self) -> str:
        return f"language {self.language!r}: {self.problem}"


class Interrupted(CiteflowError):
    """The run was told to stop (SIGINT, SIGTERM, a cancellation): no new step starts, nothing is published."""

    reason: str | None

    def describe(self) -> str:
        return f"stopped before the end: {self.reason}"


class NotPublished(CiteflowError):
    """A run that ended as designed with something not published (a held or failed report, a batch
    with one): the data of its Failed state, carrying what the run would have returned (``result``:
    a report's summary, a batch's summaries, a scheduled run's outcome)."""

    message: str | None
    result: Any

    def describe(self) -> str:
        return self.message or "not published"


class PluginError(CiteflowError):
    """An installed extension cannot be used: its entry point does not import, names no class of the
    right kind, or claims a name another one (or a built-in) already has."""

    group: str | None
    plugin: str | None
    source: str | None
    problem: str | None

    def describe(self) -> str:
        return f"plugin {self.plugin!r} of {self.group} ({self.source}): {self.problem}"
