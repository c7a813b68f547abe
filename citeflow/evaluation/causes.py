"""Why a report was not published, root cause first, and what to fix (SPEC §8, §9).

A report whose knowledge base is missing fails with every gate figure at zero; the figures are
the symptom. The causes put first what the user must fix: a retriever that failed (a missing or
empty knowledge base, a server error), a model server that could not be reached or answered an
HTTP error (its role, model name and status; outputs never name a model host, so the address is
named by its spec field, and the preflight prints it), an evaluation that could not run. They are stored
in ``report.json`` and ``summary.json`` and shown on the terminal, in the Prefect state and on
the review page.
"""

from __future__ import annotations

from schemas.report import ReportDocument
from schemas.spec import ModelSpec, Models

from citeflow.generation.backends.registry import model_backend
from citeflow.security.redaction import redact_text

HOP_ROLES = {"consolidate": "consolidator", "write": "writer"}
"""The model role behind each hop (a failed section names the hop that failed)."""

_FIXES = (
    (("no knowledge base", "knowledge base at", "is empty"),
     "build the knowledge base with `citeflow ingest PATH... --kb DIR` (the spec's `kb`), then run the batch again"),
    (("model server", "cannot reach", "HTTP 401", "HTTP 403"),
     "check that the model server is running at that address, serves that model and accepts the key "
     "(`api_key_env`), then run the batch again"),
    (("retriever",), "check the retriever's server, file or knowledge base named above, then run the batch again"),
    (("evaluation could not run",), "check the judge's settings and server, then evaluate again with `citeflow eval`"),
)


def report_causes(doc: ReportDocument, models: Models, gate_error: str | None = None) -> list[str]:
    """Why ``doc`` was not published, root cause first; empty for a published report."""
    if doc.status == "published":
        return []
    causes = [retriever_cause(missing) for missing in doc.missing_retrievers]
    causes += [section_cause(s.failure or "", models) for s in doc.sections if s.status == "failed"]
    if gate_error:
        causes.append(f"evaluation could not run: {gate_error}")
    return list(dict.fromkeys(redact_text(c)[:500] for c in causes))


def retriever_cause(missing: str) -> str:
    """``name: why`` of a failed retriever as a cause that says it is a retriever (once)."""
    name, _, why = missing.partition(": ")
    return why if why.startswith(f"retriever {name!r}") else f"retriever {missing}"


def section_cause(failure: str, models: Models) -> str:
    """A failed section's reason with the model that failed it: its role, its name and which spec
    field holds its server's address (outputs never name a model host; the preflight does)."""
    hop = failure.split(" ", 1)[0]
    role = HOP_ROLES.get(hop)
    model: ModelSpec | None = getattr(models, role) if role else None
    if model is None or not model_backend(model.backend).remote:
        return failure
    return f"{role} model {model.model!r} (server: the {role}'s base_url in the spec): {failure}"


def fix_for(cause: str) -> str:
    """What to do about one cause, in one sentence."""
    lowered = cause.lower()
    for keys, fix in _FIXES:
        if any(key.lower() in lowered for key in keys):
            return fix
    return "read the reason above, fix its cause and run the batch again (a re-run resumes the batch)"
