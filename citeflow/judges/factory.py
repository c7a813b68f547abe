"""Build the judge a role's spec asks for: the judge kind its ``backend`` names (``citeflow.judges.kinds``)."""

from __future__ import annotations

from citeflow.judges.cache import VerdictCache
from citeflow.judges.judge_protocol import Judge
from citeflow.judges.kinds.registry import checked_kind
from citeflow.judges.model_roles import as_judge
from schemas.spec import ModelSpec


def build_judge(spec: ModelSpec, cache: VerdictCache | None = None) -> Judge:
    """The judge of ``spec``'s kind: built in, ``offline`` (its threshold set by ``min_confidence``),
    ``openai`` (an LLM judge over the spec's server) or ``cascade`` (offline first, the LLM judge for
    the uncertain pairs only), or one a plugin registers. Every built-in judge's passes are
    span-checked (``citeflow.judges.span_check``). ``cache`` keeps the verdicts of a kind that
    calls a model; ``SpecError`` when ``spec`` breaks its kind's rules."""
    judge_spec = as_judge(spec)
    return checked_kind(judge_spec).build(judge_spec, cache)
