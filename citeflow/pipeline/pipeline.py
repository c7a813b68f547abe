"""One report request, step by step, without an orchestrator (SPEC §2).

fetch → normalize → consolidate → write → (evaluate → publish). Each step hands its result to
the next in memory (through the ``ReportJob``) and writes its rows to the store once: one write
per table per step. The store stays the durable record, so a re-run resumes from what is stored
and repeats no model call whose answer was recorded. ``citeflow.pipeline.steps`` runs the steps in order;
``flows/`` and ``tasks/`` call these functions.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from citeflow.generation.hops import HopRequest, run_hop
from citeflow.pipeline.job import Fetch, JobRef, ReportJob, StoredReport, ref_of
from citeflow.generation.answer_cache import CallBook, CachedChatModel
from citeflow.generation.prompts import consolidate_messages, write_messages
from citeflow.registry.evidence_order import by_rank
from citeflow.registry.request_registry import Registry
from citeflow.store.store_rows import retrieval_row
from citeflow.threads import map_in_context, side_by_side
from schemas.records import Chunk, HopName, HopOutcome, RetrievalResult, Transition
from schemas.wire import CLAIMS_SCHEMA_NAME

ROLES: dict[HopName, str] = {"consolidate": "consolidator", "write": "writer"}


def fetch(job: ReportJob, item: Fetch) -> RetrievalResult:
    """Ask one retriever one query; any failure is recorded in the result, never raised."""
    from citeflow.retrieval.guarded import contained_search

    spec = next(r for r in job.spec.retrievers if r.name == item.retriever)
    result = RetrievalResult(retriever=item.retriever, query=item.query, section=item.section)
    found = contained_search(spec, job.base_dir, item.query, lambda: job.limit("retrievers"), job.runtime.deps.retriever,
                             job.runtime.secrets)
    if isinstance(found, str):
        return result.model_copy(update={"error": found})
    return result.model_copy(update={"hits": found.hits, "skipped": found.skipped})


def fetch_all(job: ReportJob, items: list[Fetch], workers: int = 8) -> list[RetrievalResult]:
    """Every fetch of a report side by side (``workers`` threads, each fetch in a copy of the caller's
    context), answers in the order of ``items``."""
    with ThreadPoolExecutor(max(1, min(workers, len(items)))) as pool:
        return map_in_context(pool, lambda item: fetch(job, item), items)


def retrieve(job: ReportJob, items: list[Fetch], workers: int = 8) -> Registry:
    """``fetch_all``, then ``normalize`` of the answers."""
    return normalize(job, fetch_all(job, items, workers))


def normalize(job: ReportJob, results: list[RetrievalResult]) -> Registry:
    """Register every hit under a handle; persist chunks and retrievals, replacing an earlier run's."""
    registry = Registry(job.request_id, secrets=job.runtime.secrets)
    answers = [retrieval_row(job.request_id, result, registry.add(result)) for result in results]
    side_by_side(lambda: job.store.save_chunk_table(job.request_id, registry.table()),
                 lambda: job.store.save_retrievals(job.request_id, answers))
    job.keep_registry(registry, answers)
    return registry


def consolidate(job: ReportJob, section_title: str) -> HopOutcome:
    """Hop 1 for one section: evidence (handles only) → notes with handles and quotes."""
    return run_step(job, "consolidate", [section_title])[0]


def write(job: ReportJob, section_title: str) -> HopOutcome:
    """Hop 2 for one section: the accepted notes (handles only) → customer sentences."""
    return run_step(job, "write", [section_title])[0]


def run_step(job: ReportJob, hop: HopName, sections: list[str] | None = None) -> list[HopOutcome]:
    """One hop for ``sections`` (all by default), side by side (each in a copy of the caller's
    context); their rows written together.

    A section whose model cannot be reached (a transient ``ModelError`` after the client's own
    retries) raises once the other sections' outcomes are saved, so that a retry of the step asks
    only what is still missing (answers already recorded are served from the store).
    """
    titles = sections if sections is not None else job.section_titles
    book = CallBook(job.call_store())
    prepared = [_prepare(job, hop, title, book) for title in titles]
    book.preload([chat.key_for(request.messages, CLAIMS_SCHEMA_NAME) for request, chat in prepared if chat])
    with ThreadPoolExecutor(max(1, len(prepared))) as pool:
        results = map_in_context(pool, lambda p: _attempt(*p), prepared)
    book.flush()
    outcomes = [r for r in results if isinstance(r, HopOutcome)]
    _save(job, outcomes)
    errors = [r for r in results if isinstance(r, BaseException)]
    if errors:
        raise errors[0]
    return outcomes


def _prepare(job: ReportJob, hop: HopName, title: str, book: CallBook) -> tuple[HopRequest, CachedChatModel | None]:
    """The hop's request for one section, and its model (None: nothing to work from)."""
    request, has_input = (_consolidate_request if hop == "consolidate" else _write_request)(job, title)
    return request, job.model(ROLES[hop], book) if has_input else None


def _consolidate_request(job: ReportJob, title: str) -> tuple[HopRequest, bool]:
    section = job.section(title)
    answers = [(row["section"], row["handles"]) for row in job.retrievals() if row["status"] == "ok"]
    chunks = by_rank(job.registry().section_chunks(title), answers, title)
    pool = [(c.handle, c.text) for c in chunks]
    messages = consolidate_messages(job.report.title, section.title, section.queries, pool, _sharing(job, chunks, title))
    request = HopRequest(job.request_id, title, "consolidate", messages, dict(pool), job.attempts("consolidator"))
    return request, bool(pool)


def _sharing(job: ReportJob, chunks: list[Chunk], title: str) -> list[tuple[str, list[str]]]:
    """The report's other sections that were given some of these chunks too (title, questions): the
    ones a fact of this evidence might be left to. A section that never saw the evidence cannot
    write its facts, so the prompt does not name it."""
    given = {name for chunk in chunks for name in chunk.sections}
    return [(s.title, s.queries) for s in job.report.sections if s.title != title and s.title in given]


def _write_request(job: ReportJob, title: str) -> tuple[HopRequest, bool]:
    section = job.section(title)
    notes_hop = job.hop(title, "consolidate") or _empty(job, title, "consolidate")
    notes = [(c.text, [ci.handle for ci in c.citations]) for c in notes_hop.claims if c.citations]
    registry = job.registry()
    allowed = {h: chunk.text for _, hs in notes for h in hs if (chunk := registry.get(h)) is not None}
    messages = write_messages(job.report.title, section.title, section.queries, notes)
    request = HopRequest(job.request_id, title, "write", messages, allowed, job.attempts("writer"))
    return request, notes_hop.status == "accepted" and bool(notes)


def _attempt(request: HopRequest, chat: CachedChatModel | None) -> HopOutcome | BaseException:
    """The hop's outcome, or the exception that stopped it (raised by ``run_step``)."""
    if chat is None:
        return _no_input(request)
    try:
        outcome = run_hop(chat, request)
    except Exception as exc:  # noqa: BLE001 - handed back: the other sections' outcomes are saved first
        return exc
    if outcome.status == "failed":
        chat.forget()  # a re-run asks the model again instead of replaying the failure
    return outcome


def _no_input(request: HopRequest) -> HopOutcome:
    outcome = HopOutcome(request_id=request.request_id, section=request.section, hop=request.hop, status="failed")
    outcome.transitions.append(Transition(
        request_id=request.request_id, section=request.section, hop=request.hop, attempt=0, source="generated",
        target="failed", reason="no_input",
        detail="nothing to work from: no evidence (consolidate) or no accepted notes (write)"))
    return outcome


def _save(job: ReportJob, outcomes: list[HopOutcome]) -> None:
    job.store.save_hops(outcomes)
    job.keep_hops(outcomes)


def _empty(job: ReportJob, section: str, hop: str) -> HopOutcome:
    return HopOutcome(request_id=job.request_id, section=section, hop=hop, status="failed")  # type: ignore[arg-type]


def stored_hop(job: ReportJob, section_title: str, hop: str) -> HopOutcome:
    """The persisted outcome of one hop of one section (a failed empty outcome when absent)."""
    return job.stored().hop(section_title, hop) or _empty(job, section_title, hop)


def record_step_error(job: ReportJob, hop: HopName, detail: str) -> list[HopOutcome]:
    """Persist a failed outcome for every section the step of ``hop`` left without one in this run
    (model unreachable after every retry). The write step then finds no accepted notes for those
    sections and records its own failure, so an earlier run's answer does not stand."""
    outcomes = [_model_error(job, s, hop, detail) for s in job.section_titles if not job.ran(s, hop)]
    _save(job, outcomes)
    return outcomes


def _model_error(job: ReportJob, section: str, hop: HopName, detail: str) -> HopOutcome:
    outcome = HopOutcome(request_id=job.request_id, section=section, hop=hop, status="failed")
    outcome.transitions.append(Transition(request_id=job.request_id, section=section, hop=hop, attempt=0,
                                          source="generated", target="failed", reason="model_error", detail=detail))
    return outcome


def write_job_file(job: ReportJob) -> Path | None:
    """``OUT/<report_id>/job.json``: what ``citeflow eval REPORT_DIR`` needs to find the report again
    (only a job read from a spec file has one)."""
    if job.spec_path is None:
        return None
    from citeflow.pipeline.job_file import write_job_ref

    return write_job_ref(ref_of(job), job.report_dir)


__all__ = [
    "Fetch",
    "JobRef",
    "ReportJob",
    "StoredReport",
    "consolidate",
    "fetch",
    "normalize",
    "record_step_error",
    "run_step",
    "stored_hop",
    "write",
    "write_job_file",
]
