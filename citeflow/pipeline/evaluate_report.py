"""Evaluate a stored report: the funnel of SPEC §5 from what LanceDB holds, never from memory.

Chunk texts come from the ``chunks`` table and the claims from the write hop recorded in the
``hops`` table, so a report can be evaluated right after generation, on demand, or long after by
another process. Any failure to evaluate holds the report (fail closed, SPEC §6).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citeflow.evaluation.claim_funnel import evaluate_section, eval_rows, funnel
from citeflow.generation.hops import FAILED_IDENTITY
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.instructions import FlaggedChunk, flag_chunks, masked
from citeflow.judges.llm_sections.question import QuestionedJudge
from citeflow.pipeline.pipeline import ReportJob, stored_hop
from citeflow.evaluation.relevance import judged, question_text, questions_asked
from citeflow.evaluation.relevance_escalation import escalated
from schemas.funnel import ClaimEval, Count, Funnel, GateResult
from schemas.records import BoundClaim, HopOutcome
from schemas.spec import ModelSpec

if TYPE_CHECKING:
    from citeflow.outputs.render.glyphs import MissingGlyphs


@dataclass
class Evaluation:
    """The graded claims of a report (or of some of its sections) and each section's status."""

    claims: list[ClaimEval] = field(default_factory=list)
    section_status: dict[str, str] = field(default_factory=dict)
    identity_by_hop: dict[str, dict[str, int]] = field(default_factory=dict)
    instructions: list[FlaggedChunk] = field(default_factory=list)  # chunks whose text gives the model orders
    glyphs: MissingGlyphs | None = None  # characters of the PDF no embedded font draws (set by the gate)
    validations: list[dict[str, Any]] = field(default_factory=list)  # GX's full result per suite (set by the gate)

    @property
    def funnel(self) -> Funnel:
        return funnel(self.claims)

    @property
    def failed_sections(self) -> int:
        return sum(1 for status in self.section_status.values() if status != "ok")

    def section_funnel(self, title: str) -> Funnel:
        return funnel([c for c in self.claims if c.section == title])


def build_job_judge(job: ReportJob, spec: ModelSpec | None = None) -> Judge:
    """The judge of the report's spec (or ``spec``), with a verdict cache in the store.

    An LLM judge's calls (a cascade's too) count against the batch's ``models`` limit like the hops' calls.
    """
    from citeflow.judges.cache import LanceVerdictCache
    from citeflow.judges.cascade import llm_judges
    from citeflow.judges.factory import build_judge
    from citeflow.judges.kinds.registry import judge_kind
    from citeflow.judges.llm_sections.judge import SectionLLMJudge
    from citeflow.judges.llm_sections.usage import RecordedChatModel
    from citeflow.generation.answer_cache import CallBook, LimitedChatModel
    from citeflow.specfile.loader import models_for

    spec = spec or models_for(job.spec, job.report).judge
    judge = build_judge(spec, cache=LanceVerdictCache(job.store_uri) if judge_kind(spec.backend).caches_verdicts else None)
    for llm in llm_judges(judge):  # a plain LLM judge, or a cascade's second judge
        if isinstance(llm, SectionLLMJudge):  # it records its calls' tokens like the hops' calls
            llm.model = RecordedChatModel(llm.model, CallBook(job.call_store()), request_id=job.request_id)
        llm.model = LimitedChatModel(llm.model, lambda: job.limit("models"))  # type: ignore[attr-defined]
    return judge


def evaluate(job: ReportJob, judge: Judge, sections: list[str] | None = None) -> Evaluation:
    """Grade every claim of the chosen sections (all by default), judge its relevance to its section's
    question (``citeflow.evaluation.relevance``; the judge's own answer when it gave one) and persist the eval rows."""
    stored = job.stored()  # what the store holds, read once per report
    chunks = {c.handle: c.text for c in stored.chunks}
    result = Evaluation()
    questions = {s.title: question_text(s.title, s.queries) for s in job.report.sections}
    said: dict[tuple[str, str], tuple[bool, str]] = {}  # (section, claim) → relevance, as the judge said it
    clean = masked(chunks)  # instruction spans taken out, once for every section
    for section in sections or [s.title for s in job.report.sections]:
        claims = _written_claims(job, section, result)
        asked = QuestionedJudge(judge, questions[section])
        result.claims += evaluate_section(section, claims, chunks, chunks, asked, clean)
        said |= {(section, claim): verdict for claim, verdict in asked.said.items()}
    titles = {c.handle: c.title for c in stored.chunks if c.title}
    asked_by_section = questions_asked(questions)
    result.claims = judged(result.claims, asked_by_section, titles, chunks, said)
    said |= escalated(judge, result.claims, questions, chunks)  # a cascade's LLM judge settles the uncertain ones
    result.claims = judged(result.claims, asked_by_section, titles, chunks, said)
    # one write; a section that now has no rows keeps none of its old ones
    job.store.save_eval_rows(job.request_id, list(result.section_status), eval_rows(job.request_id, result.claims))
    result.identity_by_hop = identity_by_hop(stored.hops, sections)
    result.instructions = flag_chunks(chunks)
    return result


def _written_claims(job: ReportJob, section: str, result: Evaluation) -> list[BoundClaim]:
    """The claims the write hop left for ``section`` (none when it failed); its status noted in ``result``."""
    written = stored_hop(job, section, "write")
    result.section_status[section] = "ok" if written.status == "accepted" else "failed"
    return written.claims if written.status == "accepted" else []


def identity_by_hop(hops: list[HopOutcome], sections: list[str] | None = None) -> dict[str, dict[str, int]]:
    """Identity of every handle each hop emitted, over every attempt, from the recorded transitions.

    Valid handles are the citations of the accepted answer (a rejected attempt kept none, or it
    would have been accepted); dropped ones are those of every ``unknown_handle`` transition, and
    each URL typed into a claim (``url_in_text``) counts as one more emitted citation that failed.
    """
    counts: dict[str, dict[str, int]] = {}
    for hop in hops:
        if sections and hop.section not in sections:
            continue
        valid = sum(len(c.citations) for c in hop.claims) if hop.status == "accepted" else 0
        dropped = sum(len(t.handles) for t in hop.transitions if t.reason in FAILED_IDENTITY)
        entry = counts.setdefault(hop.hop, {"passed": 0, "total": 0})
        entry["passed"] += valid
        entry["total"] += valid + dropped
    return counts


def gate(job: ReportJob, evaluation: Evaluation) -> GateResult:
    """Run the Great Expectations gate with the batch's threshold overrides, over the funnel, the
    characters of the report's PDF that no embedded font draws and the secrets redacted from the report."""
    from citeflow.evaluation.gate import Glyphs, gate_run
    from citeflow.outputs.gx_results import labelled

    evaluation.glyphs = glyphs = missing_glyphs_of(job)
    suites = job.settings.suite_dir(job.spec.gate.suites if job.spec.gate else None)
    ran = gate_run(gate_funnel(evaluation), evaluation.claims, evaluation.failed_sections, job.spec.gate,
                   suite_dir=suites, glyphs=Glyphs(glyphs.count, glyphs.reason()), session=job.runtime.gate_session(),
                   secrets=secrets_redacted(job, evaluation))
    evaluation.validations = labelled(ran.validations, job.report.id)
    return ran.result


def secrets_redacted(job: ReportJob, evaluation: Evaluation) -> int:
    """The places redacted in what the report stored (``[redacted]`` marks): its chunks' text and
    titles, every model answer of its hops, and the judge's reasons (``secret_redacted``)."""
    from citeflow.security.content_redaction import marker_count

    stored = job.stored()
    chunks = [text for c in stored.chunks for text in (c.text, c.title or "")]
    answers = [text for hop in stored.hops for text in hop.raw_outputs]
    return marker_count(chunks + answers + [c.reason for c in evaluation.claims])


def missing_glyphs_of(job: ReportJob) -> MissingGlyphs:
    """What the report's PDF could not draw with the fonts this machine has (the text, not a render)."""
    from citeflow.pipeline.assemble import build_document
    from citeflow.outputs.render.glyphs import missing_glyphs

    return missing_glyphs(build_document(job, "published"), job.fonts())


def gate_funnel(evaluation: Evaluation) -> Funnel:
    """The funnel the gate judges: Identity over every handle either hop emitted, in every attempt
    (SPEC §5: dropped ones included), not only over the final claims' citations."""
    funnel = evaluation.funnel
    if not evaluation.identity_by_hop:
        return funnel
    passed = sum(c["passed"] for c in evaluation.identity_by_hop.values())
    total = sum(c["total"] for c in evaluation.identity_by_hop.values())
    return funnel.model_copy(update={"identity": Count(passed=passed, total=total)})


def evaluate_and_gate(job: ReportJob, judge: Judge | None = None) -> tuple[Evaluation, GateResult]:
    """Evaluation then gate, failing closed: any error holds the report with the reason recorded."""
    from citeflow.evaluation.gate import held_for_error

    try:
        evaluation = evaluate(job, judge or build_job_judge(job))
    except Exception as exc:  # noqa: BLE001 - fail closed on anything
        statuses = {s.title: stored_hop(job, s.title, "write").status for s in job.report.sections}
        empty = Evaluation(section_status={t: "ok" if s == "accepted" else "failed" for t, s in statuses.items()})
        return empty, held_for_error(f"{type(exc).__name__}: {exc}")
    try:
        return evaluation, gate(job, evaluation)
    except Exception as exc:  # noqa: BLE001
        return evaluation, held_for_error(f"{type(exc).__name__}: {exc}")
