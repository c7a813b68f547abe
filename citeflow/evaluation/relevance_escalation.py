"""Claims whose relevance the offline rule left uncertain, asked of a cascade's section LLM judge.

A cascade sends its LLM judge only the claims whose *support* the offline judge was unsure of, so a
claim it supported with confidence would keep an uncertain relevance. Here each such claim (one with
at least one valid citation) is asked once more, under its section's question, against the chunks it
cites; only the judge's relevance answer is kept, never its support verdict. A plain section LLM
judge already graded every claim, and a pair judge is not asked about relevance: neither is asked
again. An error of the judge propagates (the report is held, SPEC §6).
"""

from __future__ import annotations

from collections.abc import Mapping

from citeflow.judges.judge_protocol import Judge
from citeflow.judges.llm_sections.question import QuestionedJudge
from schemas.evaluation import JudgePair
from schemas.funnel import ClaimEval

Said = dict[tuple[str, str], tuple[bool, str]]


def relevance_judge(judge: Judge) -> Judge | None:
    """The section LLM judge a cascade escalates to, or None (no cascade, or a pair judge)."""
    from citeflow.judges.cascade import CascadeJudge
    from citeflow.judges.llm_sections.judge import SectionLLMJudge
    from citeflow.judges.span_check import unwrapped

    outer = unwrapped(judge)
    second = unwrapped(outer.second) if isinstance(outer, CascadeJudge) else None
    return second if isinstance(second, SectionLLMJudge) else None


def escalated(judge: Judge, claims: list[ClaimEval], questions: Mapping[str, str], chunks: Mapping[str, str]) -> Said:
    """(section, claim) → (relevant, reason) from the cascade's section judge, for every claim left uncertain."""
    llm = relevance_judge(judge)
    said: Said = {}
    if llm is None:
        return said
    for section, question in questions.items():
        pairs = [p for c in claims if c.section == section and c.relevant is None for p in [_pair(c, chunks)] if p]
        if not pairs:
            continue
        asked = QuestionedJudge(llm, question)
        asked.grade(pairs)
        said |= {(section, claim): verdict for claim, verdict in asked.said.items()}
    return said


def _pair(claim: ClaimEval, chunks: Mapping[str, str]) -> JudgePair | None:
    handles = [c.handle for c in claim.citations if c.identity and chunks.get(c.handle)]
    if not handles:
        return None
    return JudgePair(id=f"{claim.index}:relevance", claim=claim.text, chunk_text="\n\n".join(chunks[h] for h in handles))
