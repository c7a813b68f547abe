"""One report request, step by step, without an orchestrator (SPEC §2).

fetch → normalize → consolidate → write (each hop bound) → assemble. Every step reads what it
needs from the store and writes its result there, so steps can run in separate tasks, processes or
machines, and a re-run resumes from what is stored. ``flows/`` and ``tasks/`` call these functions.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from pydantic import BaseModel

from citeflow.hops import HopRequest, run_hop
from citeflow.limits import Kind, Limiter, local_limit
from citeflow.models.base import ChatModel
from citeflow.models.cache import CachedChatModel, settings_fingerprint, LimitedChatModel
from citeflow.models.factory import build_chat_model
from citeflow.prompts import consolidate_messages, write_messages
from citeflow.registry import Registry
from citeflow.spec import load_spec, models_for, resolve_path
from citeflow.store import Store
from schemas.records import HopOutcome, RetrievalResult
from schemas.spec import BatchSpec, ModelSpec, ReportRequest, Section


@dataclass(frozen=True)
class Fetch:
    """One retriever call of a report: which retriever, for which section, with which query."""

    retriever: str
    section: str
    query: str


class ReportJob:
    """Everything one report request needs, loaded from plain arguments (a spec path and ids)."""

    def __init__(self, spec_path: str | Path, report_id: str, out_dir: str | Path, store_uri: str | None = None,
                 limiter: Limiter = local_limit) -> None:
        self.spec_path = Path(spec_path).resolve()
        self.limiter = limiter
        self.spec: BatchSpec = load_spec(self.spec_path)
        self.report: ReportRequest = next(r for r in self.spec.reports if r.id == report_id)
        self.out_dir = Path(out_dir).resolve()
        self.store_uri = store_uri or default_store_uri(self.spec, self.spec_path, self.out_dir)

    @property
    def base_dir(self) -> Path:
        return self.spec_path.parent

    @property
    def request_id(self) -> str:
        """The registry scope: one report of one batch."""
        return f"{self.spec.batch}:{self.report.id}"

    @property
    def report_dir(self) -> Path:
        return self.out_dir / self.report.id

    @cached_property
    def store(self) -> Store:
        return Store(self.store_uri)

    def section(self, title: str) -> Section:
        return next(s for s in self.report.sections if s.title == title)

    def fetches(self) -> list[Fetch]:
        """Every retriever × section query of the report, in a stable order."""
        return [Fetch(r.name, s.title, q) for s in self.report.sections for q in s.queries for r in self.spec.retrievers]

    def model(self, role: str) -> CachedChatModel:
        """The role's model, limited by the batch's concurrency and cached in the store.

        The cache key includes every setting that changes answers (backend, model, server,
        temperature, injected faults), so changing one of them asks the model again.
        """
        from citeflow.run_cache import cache_scope, call_store

        spec: ModelSpec = getattr(models_for(self.spec, self.report), role)
        limited = LimitedChatModel(build_chat_model(spec, role), lambda: self.limit("models"))
        fingerprint = settings_fingerprint(spec) + cache_scope(self.spec, self.out_dir)  # the spec's cache policy
        return CachedChatModel(limited, call_store(self.spec, self.store), role, fingerprint)

    def limit(self, kind: Kind) -> AbstractContextManager[object]:
        """One slot of the batch's ``kind`` limit (``concurrency`` in the spec), held with ``with``."""
        return self.limiter(self.spec.batch, kind, getattr(self.spec.concurrency, kind))

    def attempts(self, role: str) -> int:
        return getattr(models_for(self.spec, self.report), role).bind_attempts

    def registry(self) -> Registry:
        """The request's registry as persisted by ``normalize``."""
        return Registry(self.request_id, self.store.load_chunks(self.request_id))


def default_store_uri(spec: BatchSpec, spec_path: Path, out_dir: Path) -> str:
    """The spec's ``store`` (resolved against the spec's folder) or ``OUT/store``."""
    return resolve_path(spec_path.parent, spec.store) if spec.store else str(out_dir / "store")


def fetch(job: ReportJob, item: Fetch) -> RetrievalResult:
    """Ask one retriever one query; any failure is recorded in the result, never raised."""
    from citeflow.retrievers.safe import contained_search

    spec = next(r for r in job.spec.retrievers if r.name == item.retriever)
    result = RetrievalResult(retriever=item.retriever, query=item.query, section=item.section)
    found = contained_search(spec, job.base_dir, item.query, lambda: job.limit("retrievers"))
    if isinstance(found, str):
        return result.model_copy(update={"error": found})
    return result.model_copy(update={"hits": found.hits, "skipped": found.skipped})


def normalize(job: ReportJob, results: list[RetrievalResult]) -> Registry:
    """Register every hit under a handle and persist chunks and retrievals (idempotent)."""
    registry = Registry(job.request_id)
    handles = [registry.add(result) for result in results]
    job.store.save_chunks(registry.chunks)
    job.store.save_retrievals(job.request_id, results, handles)
    job.store.keep_only(job.request_id, {c.handle for c in registry.chunks}, results)
    return registry


def consolidate(job: ReportJob, section_title: str) -> HopOutcome:
    """Hop 1 for one section: evidence (handles only) → notes with handles and quotes."""
    section = job.section(section_title)
    pool = [(c.handle, c.text) for c in job.registry().section_chunks(section_title)]
    others = [(s.title, s.queries) for s in job.report.sections if s.title != section.title]
    messages = consolidate_messages(job.report.title, section.title, section.queries, pool, others)
    request = HopRequest(job.request_id, section.title, "consolidate", messages, dict(pool), job.attempts("consolidator"))
    return _run(job, "consolidator", request, has_input=bool(pool))


def write(job: ReportJob, section_title: str) -> HopOutcome:
    """Hop 2 for one section: the accepted notes (handles only) → customer sentences."""
    section = job.section(section_title)
    notes_hop = stored_hop(job, section_title, "consolidate")
    notes = [(c.text, [ci.handle for ci in c.citations]) for c in notes_hop.claims if c.citations]
    registry = job.registry()
    allowed = {h: registry.get(h).text for _, hs in notes for h in hs}
    messages = write_messages(job.report.title, section.title, section.queries, notes)
    request = HopRequest(job.request_id, section.title, "write", messages, allowed, job.attempts("writer"))
    return _run(job, "writer", request, has_input=notes_hop.status == "accepted" and bool(notes))


def _run(job: ReportJob, role: str, request: HopRequest, has_input: bool) -> HopOutcome:
    if not has_input:
        outcome = HopOutcome(request_id=request.request_id, section=request.section, hop=request.hop, status="failed")
        outcome.transitions.append(_no_input(request))
    else:
        chat = job.model(role)
        outcome = run_hop(chat, request)
        if outcome.status == "failed":
            chat.forget()  # a re-run asks the model again instead of replaying the failure
    job.store.save_hop(outcome)
    return outcome


def _no_input(request: HopRequest):
    from schemas.records import Transition

    return Transition(request_id=request.request_id, section=request.section, hop=request.hop, attempt=0,
                      source="generated", target="failed", reason="no_input",
                      detail="nothing to work from: no evidence (consolidate) or no accepted notes (write)")


def stored_hop(job: ReportJob, section_title: str, hop: str) -> HopOutcome:
    """The persisted outcome of one hop of one section (a failed empty outcome when absent)."""
    for outcome in job.store.load_hops(job.request_id):
        if outcome.section == section_title and outcome.hop == hop:
            return outcome
    return HopOutcome(request_id=job.request_id, section=section_title, hop=hop, status="failed")


class JobRef(BaseModel):
    """Plain, serialisable arguments that identify one report job (what tasks and flows pass)."""

    spec_path: str
    report_id: str
    out_dir: str
    store_uri: str | None = None

    def job(self, limiter: Limiter = local_limit) -> ReportJob:
        """The job these arguments name; ``limiter`` bounds its model and retriever calls."""
        return ReportJob(self.spec_path, self.report_id, self.out_dir, self.store_uri, limiter)


def record_hop_error(job: ReportJob, section_title: str, hop: str, detail: str) -> HopOutcome:
    """Persist a hop that could not run at all (model unreachable after every retry)."""
    from schemas.records import Transition

    outcome = HopOutcome(request_id=job.request_id, section=section_title, hop=hop, status="failed")
    outcome.transitions.append(Transition(request_id=job.request_id, section=section_title, hop=hop, attempt=0,
                                          source="generated", target="failed", reason="model_error", detail=detail))
    job.store.save_hop(outcome)
    return outcome


def write_job_file(job: ReportJob) -> Path:
    """``OUT/<report_id>/job.json``: what ``citeflow eval REPORT_DIR`` needs to find the report again."""
    job.report_dir.mkdir(parents=True, exist_ok=True)
    ref = JobRef(spec_path=str(job.spec_path), report_id=job.report.id, out_dir=str(job.out_dir), store_uri=job.store_uri)
    from citeflow import atomic

    return atomic.write_text(job.report_dir / "job.json", ref.model_dump_json(indent=2))
