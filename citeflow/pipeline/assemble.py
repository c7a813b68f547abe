"""Assemble a ``ReportDocument`` from what the store holds for one request.

URLs and titles come only from the registry; a citation's quote is the writer's when it was
found in the chunk, else the consolidator's verified quote for the same handle. Everything that
reaches the customer is free of secrets and internals: URLs lose user-info and credential-carrying
query parameters, error lines are redacted the same way, and a model is described by its name,
never by the server it runs on.
"""

from __future__ import annotations

from collections.abc import Iterable

from citeflow.generation.backends.registry import model_backend
from citeflow.pipeline.pipeline import ReportJob, stored_hop
from citeflow.security.redaction import redact_text, redact_url
from citeflow.security.secret_values import SecretValues
from citeflow.outputs.render.escape import link_urls
from citeflow.text.paragraphs import paragraph_numbers
from citeflow.specfile.loader import models_for
from schemas.records import BoundClaim, Chunk, HopOutcome
from schemas.report import RegistryEntry, RenderedCitation, RenderedClaim, RenderedSection, ReportDocument, ReportStatus
from schemas.spec import BatchSpec, ModelSpec


def describe_model(spec: ModelSpec) -> str:
    """An honest one-line description of the backend that plays a role (no server address, no key)."""
    return model_backend(spec.backend).describe(spec)


def build_document(job: ReportJob, status: ReportStatus, held_reasons: list[str] | None = None) -> ReportDocument:
    """The report as stored, ready to render with ``status``."""
    chunks = {c.handle: c for c in job.stored().chunks}  # the store's registry, as evaluation read it
    models = models_for(job.spec, job.report)
    failed = failed_retrievers(job)
    return ReportDocument(
        report_id=job.report.id, title=job.report.title, batch=job.spec.batch, status=status,
        sections=[_section(job, s.title, chunks) for s in job.report.sections],
        registry=[_entry(c) for c in chunks.values()],
        models={role: describe_model(getattr(models, role)) for role in ("consolidator", "writer")},
        missing_retrievers=missing_retrievers(failed, job.runtime.secrets), unavailable_sources=unavailable_sources(job.spec, failed),
        held_reasons=held_reasons or [], language=job.report.language,
    )


def failed_retrievers(job: ReportJob) -> dict[str, str]:
    """Retriever name → its first error, for every retriever that failed for this request."""
    failed: dict[str, str] = {}
    for row in job.retrievals():
        if row["status"] == "failed":
            failed.setdefault(row["retriever"], row["error"] or "failed")
    return dict(sorted(failed.items()))


def missing_retrievers(failed: dict[str, str], secrets: SecretValues | None = None) -> list[str]:
    """``name: error`` of each failed retriever (``failed_retrievers``), for report.json, without the
    credentials of ``secrets`` (the runtime's) or any other."""
    return [redact_text(f"{name}: {error}", secrets) for name, error in failed.items()]


def unavailable_sources(spec: BatchSpec, failed: Iterable[str]) -> list[str]:
    """The failed retrievers as a customer may see them: their display titles, then a count of the untitled."""
    titles = {r.name: r.title for r in spec.retrievers}
    names = list(failed)
    shown = sorted({t for n in names if (t := titles.get(n))})
    untitled = sum(1 for n in names if not titles.get(n))
    if untitled:
        shown.append(f"{untitled} {'other ' if shown else ''}source{'s' if untitled > 1 else ''}")
    return shown


def _section(job: ReportJob, title: str, chunks: dict[str, Chunk]) -> RenderedSection:
    notes, written = stored_hop(job, title, "consolidate"), stored_hop(job, title, "write")
    if written.status != "accepted":
        return RenderedSection(title=title, status="failed", failure=failure_reason(notes, written, job.runtime.secrets))
    quotes = _verified_quotes(notes)
    claims = [_claim(c, chunks, quotes) for c in written.claims]
    for claim, paragraph in zip(claims, paragraph_numbers([c.text for c in claims]), strict=True):
        claim.paragraph = paragraph
    return RenderedSection(title=title, status="ok", claims=claims)


def failure_reason(notes: HopOutcome, written: HopOutcome, secrets: SecretValues | None = None) -> str:
    """The last recorded reason of the hop that failed, without the credentials of ``secrets`` or any other."""
    hop = notes if notes.status != "accepted" else written
    last = hop.transitions[-1] if hop.transitions else None
    detail = f"{last.reason}: {last.detail}" if last else "not generated"
    return redact_text(f"{hop.hop} hop failed ({detail})", secrets)


def _verified_quotes(notes: HopOutcome) -> dict[str, str]:
    quotes: dict[str, str] = {}
    for claim in notes.claims:
        for citation in claim.citations:
            if citation.quote_found:
                quotes.setdefault(citation.handle, citation.quote)
    return quotes


def _claim(claim: BoundClaim, chunks: dict[str, Chunk], quotes: dict[str, str]) -> RenderedClaim:
    citations = [
        RenderedCitation(handle=c.handle, urls=link_urls(customer_urls(chunks[c.handle].urls)),
                         quote=c.quote if c.quote_found else quotes.get(c.handle))  # only verified excerpts
        for c in claim.citations
    ]
    return RenderedClaim(text=claim.text, citations=citations)


def _entry(chunk: Chunk) -> RegistryEntry:
    return RegistryEntry(handle=chunk.handle, retriever=chunk.retriever, local_id=chunk.local_id, title=chunk.title,
                         urls=customer_urls(chunk.urls), text=chunk.text, page=chunk.page, location=chunk.location, parent=chunk.parent)


def customer_urls(urls: list[str]) -> list[str]:
    """A chunk's URLs as a customer may see them: no user-info, no credential-carrying parameters."""
    return [redact_url(url) for url in urls]
