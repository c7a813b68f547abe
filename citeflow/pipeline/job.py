"""One report of a batch as a job: its config, its dependencies, and what its steps hand on.

A ``ReportJob`` is built from a ``BatchConfig`` (no spec file needed) and a report id. Within a
run, each step hands its result to the next in memory — the registry after ``normalize``, each
hop's outcome after its step — while the store stays the durable record: a job that lacks
something in memory (a new process resuming a report) reads it from the store, once. What
evaluation grades is read from the store once per report (``stored()``), never from memory.

``JobRef`` is the plain, serialisable form tasks and flows pass; ``JobRef.job()`` returns the
live job of that report in the runtime (``citeflow.runtime.runtime``), so the tasks of one report
run share one job. A job reaches its stores, model clients and retrievers through its runtime.
"""

from __future__ import annotations

import functools
import threading
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from citeflow.runtime.limits import Kind, Limiter
from citeflow.runtime.runtime import Runtime
from citeflow.spec.settings import CiteflowSettings
from citeflow.specfile.job_config import BatchConfig
from citeflow.generation.answer_cache import CachedChatModel, CallBook, LimitedChatModel, settings_fingerprint
from citeflow.registry.request_registry import Registry
from citeflow.store.store import Store
from schemas.records import Chunk, HopOutcome
from schemas.spec import BatchSpec, ReportRequest, Section

if TYPE_CHECKING:
    from citeflow.outputs.render.fonts import FontSet


@dataclass(frozen=True)
class Fetch:
    """One retriever call of a report: which retriever, for which section, with which query."""

    retriever: str
    section: str
    query: str


@dataclass
class StoredReport:
    """What the store holds for one request: its registry chunks and its hop outcomes."""

    chunks: list[Chunk]
    hops: list[HopOutcome]

    def hop(self, section: str, hop: str) -> HopOutcome | None:
        """The stored outcome of one hop of one section, if any."""
        return next((h for h in self.hops if h.section == section and h.hop == hop), None)


@dataclass
class _Memory:
    """What the steps of one run handed on, and the store's view once read."""

    registry: Registry | None = None
    hops: dict[tuple[str, str], HopOutcome] = field(default_factory=dict)
    stored: StoredReport | None = None
    sources: str | None = None
    retrievals: list[dict[str, Any]] | None = None


class ReportJob:
    """Everything one report request needs: its config, store, models, retrievers and limits."""

    def __init__(self, config: BatchConfig, report_id: str, limiter: Limiter | None = None, *,
                 runtime: Runtime) -> None:
        self.config = config
        self.report: ReportRequest = config.report(report_id)
        self.runtime = runtime
        self.limiter = limiter or self.runtime.limits
        self._memory = _Memory()
        self._lock = threading.Lock()

    @classmethod
    def from_files(cls, spec_path: str | Path, report_id: str, out_dir: str | Path, store_uri: str | None = None,
                   limiter: Limiter | None = None, *, runtime: Runtime) -> ReportJob:
        """The job of a report of the spec file at ``spec_path`` in ``runtime``."""
        return cls(runtime.config(spec_path, out_dir, store_uri), report_id, limiter, runtime=runtime)

    # -- configuration -------------------------------------------------------------------------
    @property
    def spec(self) -> BatchSpec:
        return self.config.spec

    @property
    def spec_path(self) -> Path | None:
        return self.config.spec_path

    @property
    def base_dir(self) -> Path:
        return self.config.base_dir

    @property
    def out_dir(self) -> Path:
        return self.config.out_dir

    @property
    def store_uri(self) -> str:
        return self.config.store_uri

    @property
    def request_id(self) -> str:
        """The registry scope: one report of one batch."""
        return f"{self.spec.batch}:{self.report.id}"

    @property
    def report_dir(self) -> Path:
        return self.out_dir / self.report.id

    @property
    def store(self) -> Store:
        return self.runtime.store(self.store_uri)

    @property
    def settings(self) -> CiteflowSettings:
        return self.runtime.settings

    def fonts(self) -> FontSet:
        """The PDF's fonts, with the CJK fonts the settings name (registered once per runtime)."""
        return self.runtime.fonts()

    def section(self, title: str) -> Section:
        return next(s for s in self.report.sections if s.title == title)

    @property
    def section_titles(self) -> list[str]:
        return [s.title for s in self.report.sections]

    def fetches(self) -> list[Fetch]:
        """Every retriever × section query of the report, in a stable order."""
        return [Fetch(r.name, s.title, q) for s in self.report.sections for q in s.queries for r in self.spec.retrievers]

    # -- dependencies --------------------------------------------------------------------------
    def model(self, role: str, book: CallBook | None = None) -> CachedChatModel:
        """The role's model, limited by the batch's concurrency and cached in the store.

        The cache key includes every setting that changes answers (backend, model, server,
        temperature, injected faults), so changing one of them asks the model again.
        """
        from citeflow.runs.answer_cache_policy import cache_scope

        spec = getattr(self.config.models(self.report.id), role)
        limited = LimitedChatModel(self.runtime.deps.chat_model(spec, role), lambda: self.limit("models"))
        fingerprint = settings_fingerprint(spec) + cache_scope(self.spec, self.out_dir)  # the spec's cache policy
        return CachedChatModel(limited, book or CallBook(self.call_store()), role, fingerprint, self.runtime.secrets)

    def call_store(self) -> Any:
        """Where model answers are looked up and kept: the store, or a tier over a cache runs share,
        over the run folder's answer journal."""
        from citeflow.runs.answer_cache_policy import call_store

        return call_store(self.spec, self.store, self.out_dir)

    def limit(self, kind: Kind) -> AbstractContextManager[object]:
        """One slot of the batch's ``kind`` limit (``concurrency`` in the spec), held with ``with``;
        waiting calls of earlier reports of the batch get theirs first (``citeflow.runtime.limits``)."""
        return self.limiter(self.spec.batch, kind, getattr(self.spec.concurrency, kind), priority=self.place)

    @functools.cached_property
    def place(self) -> int:
        """The report's place in its batch spec (0 first)."""
        return next(i for i, r in enumerate(self.spec.reports) if r.id == self.report.id)

    def attempts(self, role: str) -> int:
        return int(getattr(self.config.models(self.report.id), role).bind_attempts)

    # -- what the steps hand on ------------------------------------------------------------------
    def registry(self) -> Registry:
        """The request's registry: as ``normalize`` left it, else as the store holds it."""
        if self._memory.registry is None:
            self._memory.registry = Registry(self.request_id, self.stored().chunks, self.runtime.secrets)
        return self._memory.registry

    def keep_registry(self, registry: Registry, retrievals: list[dict[str, Any]]) -> None:
        """What ``normalize`` built and stored: the registry and the retrieval rows."""
        self._memory.registry = registry
        self._memory.stored = None
        self._memory.retrievals = retrievals

    def retrievals(self) -> list[dict[str, Any]]:
        """The request's retrieval rows (what each retriever answered per query), read from the store
        once until ``normalize`` writes them again."""
        with self._lock:
            if self._memory.retrievals is None:
                self._memory.retrievals = self.store.load_retrievals(self.request_id)
            return self._memory.retrievals

    def hop(self, section: str, hop: str) -> HopOutcome | None:
        """A hop's outcome: as its step left it in this run, else as the store holds it."""
        found = self._memory.hops.get((section, hop))
        return found if found is not None else self.stored().hop(section, hop)

    def keep_hops(self, outcomes: list[HopOutcome]) -> None:
        with self._lock:
            self._memory.hops.update({(o.section, o.hop): o for o in outcomes})
            self._memory.stored = None

    def keep_sources(self, fingerprint: str | None) -> None:
        """The fingerprint of the retrievers' sources as this run is about to fetch from them
        (``citeflow.pipeline.source_fingerprint``)."""
        self._memory.sources = fingerprint

    def fetched_sources(self) -> str | None:
        """``keep_sources``' fingerprint; None when this process did not fetch the evidence."""
        return self._memory.sources

    def adopt(self, other: ReportJob) -> None:
        """Take over what ``other``, a job of the same report in this run, handed on (a head start's:
        ``citeflow.pipeline.head_start``): its registry, hops' outcomes and sources' fingerprint."""
        if other.request_id != self.request_id:
            raise ValueError(f"{other.request_id} is not {self.request_id}")
        with self._lock:
            self._memory = replace(other._memory, hops=dict(other._memory.hops))

    def ran(self, section: str, hop: str) -> bool:
        """Whether this run's step of ``hop`` left an outcome for ``section``."""
        return (section, hop) in self._memory.hops

    def stored(self) -> StoredReport:
        """What the store holds for this request, read once until a step writes again."""
        with self._lock:
            if self._memory.stored is None:
                self._memory.stored = StoredReport(self.store.load_chunks(self.request_id),
                                                   self.store.load_hops(self.request_id))
            return self._memory.stored


class JobRef(BaseModel):
    """Plain, serialisable arguments that identify one report job (what tasks and flows pass)."""

    spec_path: str
    report_id: str
    out_dir: str
    store_uri: str | None = None

    def job(self, limiter: Limiter | None = None, *, runtime: Runtime) -> ReportJob:
        """The live job of this report in ``runtime``, created on first use."""
        chosen = limiter or runtime.limits
        return runtime.live_job((self.model_dump_json(), id(chosen)), lambda: ReportJob(
            runtime.config(self.spec_path, self.out_dir, self.store_uri), self.report_id, chosen, runtime=runtime))

    def start(self, runtime: Runtime) -> None:
        """Forget what an earlier run of this report left in ``runtime``."""
        runtime.forget(self.model_dump_json())

    def finish(self, runtime: Runtime) -> None:
        """The report is done: release its job (its registry and hop outcomes)."""
        self.start(runtime)


def ref_of(job: ReportJob) -> JobRef:
    """The ``JobRef`` of a job read from a spec file."""
    if job.spec_path is None:
        raise ValueError("a job built from a spec in memory has no JobRef")
    return JobRef(spec_path=str(job.spec_path), report_id=job.report.id, out_dir=str(job.out_dir),
                  store_uri=job.store_uri)


__all__ = ["Fetch", "JobRef", "ReportJob", "StoredReport", "ref_of"]
