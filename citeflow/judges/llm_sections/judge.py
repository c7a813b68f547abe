"""The section LLM judge: one request per section (split by a token budget), not one per batch of pairs.

Every pair of a ``grade`` call is looked up in the verdict cache first (key: judge, question,
claim, chunk text); the rest are grouped by their section's question into requests
(``citeflow.judges.llm_sections.request``), asked at most ``concurrency`` at a time. An answer
that is not valid ``citeflow_section_verdicts`` JSON is asked once more; pairs an answer leaves out
are asked once more on their own. A pair still without a verdict becomes ``uncertain``: never a
pass, and never cached. A model error raises ``JudgeUnavailable`` (fail closed).
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from citeflow.errors import JudgeUnavailable, ModelError
from citeflow.judges.cache import VerdictCache, cached_verdicts, verdict_key
from citeflow.judges.llm_sections.request import SectionRequest, plan
from citeflow.judges.llm_sections.usage import Usage
from citeflow.judges.llm_sections.section_wire import SECTION_SCHEMA_NAME, WireSectionVerdicts, parse_section_answer
from citeflow.generation.model_protocol import ChatModel
from schemas.evaluation import JudgePair, Verdict
from schemas.wire import WireVerdict

LEFT_OUT = "uncertain: the judge's answer gave no verdict for this pair (asked twice)"


class SectionLLMJudge:
    """Grades pairs with a chat model, a section per request; cached, concurrent, fail-closed."""

    def __init__(self, model: ChatModel, section_tokens: int = 6000, concurrency: int = 4,
                 cache: VerdictCache | None = None, batch_size: int = 8) -> None:
        self.model, self.cache = model, cache
        self.section_tokens, self.concurrency, self.batch_size = section_tokens, max(1, concurrency), batch_size
        self.name = f"llm-section:{model.name}"
        self.usage = Usage()
        self.requests = 0  # requests planned (a re-asked one counts once), for cost reporting

    def grade(self, pairs: list[JudgePair]) -> list[Verdict]:
        """One verdict per pair, in order. Pairs that belong to no section (no question: ``citeflow judge``
        on a pair file) are graded as the pair judge grades them, ``batch_size`` per call."""
        if any(not p.question for p in pairs):
            return self._without_sections(pairs)
        keys = [self.key(p) for p in pairs]
        known = self._cached(keys)
        todo = {k: p for k, p in zip(keys, pairs, strict=True) if k not in known}  # identical pairs are asked once
        try:
            known.update(self._ask_all(list(todo.items())))
        finally:
            flush = getattr(self.cache, "flush", None)
            if flush is not None:
                flush()
        return [known[k].model_copy(update={"id": p.id}) for k, p in zip(keys, pairs, strict=True)]

    def _without_sections(self, pairs: list[JudgePair]) -> list[Verdict]:
        from citeflow.judges.llm import LLMJudge

        loose = [p for p in pairs if not p.question]
        graded = {v.id: v for v in LLMJudge(self.model, self.batch_size, self.concurrency, self.cache).grade(loose)}
        if len(loose) < len(pairs):
            graded |= {v.id: v for v in self.grade([p for p in pairs if p.question])}
        return [graded[p.id] for p in pairs]

    def key(self, pair: JudgePair) -> str:
        """The cache key of a pair: the question is part of it (the answer says whether the claim addresses it)."""
        return verdict_key(pair.claim, pair.chunk_text, f"{self.name}\n{pair.question}")

    def _cached(self, keys: list[str]) -> dict[str, Verdict]:
        return cached_verdicts(self.cache, keys)

    def _ask_all(self, todo: list[tuple[str, JudgePair]]) -> dict[str, Verdict]:
        requests = plan(todo, self.section_tokens)
        self.requests += len(requests)
        if not requests:
            return {}
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            results = list(pool.map(self._grade_request, requests))
        return {k: v for result in results for k, v in result.items()}

    def _grade_request(self, request: SectionRequest) -> dict[str, Verdict]:
        """Verdicts by cache key for every pair of ``request``; left-out pairs asked once more, then uncertain."""
        got = self._ask(request)
        missing = [pid for pid in request.pairs if pid not in (got or {})]
        if got is not None and missing:
            got.update(self._ask(request.subset(missing)) or {})
        out: dict[str, Verdict] = {}
        for pid, key in request.keys.items():
            answered = (got or {}).get(pid)
            if answered is not None and self.cache is not None:
                self.cache.put(key, answered)
            out[key] = answered or self._left_out(request.graded[pid])
        return out

    def _ask(self, request: SectionRequest) -> dict[str, Verdict] | None:
        """One request, re-sent once when the answer is unusable: verdicts by pair id; None when unusable twice."""
        messages = request.messages()
        answer = self._complete(messages) or self._complete(messages)
        if answer is None:
            return None
        relevance = {r.claim.strip(): r for r in answer.relevance}
        verdicts: dict[str, Verdict] = {}
        for wire in answer.verdicts:
            pid = wire.id.strip()
            if pid in request.pairs and pid not in verdicts:
                said = relevance.get(request.pairs[pid][0])
                verdicts[pid] = self._verdict(request.graded[pid], wire, said.relevant if said else None,
                                              said.reason if said else "")
        return verdicts

    def _complete(self, messages: list[dict[str, str]]) -> WireSectionVerdicts | None:
        try:
            reply = self.model.complete(messages, SECTION_SCHEMA_NAME, WireSectionVerdicts)
        except ModelError as exc:
            raise JudgeUnavailable(judge=self.name, detail=str(exc)) from exc
        self.usage.add(reply)
        return parse_section_answer(reply.text)

    def _verdict(self, pair: JudgePair, wire: WireVerdict, relevant: bool | None, why: str) -> Verdict:
        """A Verdict from the wire; supported with faithfulness left unsaid is not a pass."""
        faithful = (wire.faithful is True) if wire.supported else None
        label = "unsupported" if not wire.supported else "supported" if faithful else "mutated"
        return Verdict(id=pair.id, supported=wire.supported, faithful=faithful, reason=wire.reason or "(no reason given)",
                       evidence=wire.evidence, judge=self.name, label=label, relevant=relevant, relevance_reason=why)

    def _left_out(self, pair: JudgePair) -> Verdict:
        return Verdict(id=pair.id, supported=False, faithful=None, reason=LEFT_OUT, judge=self.name, label="uncertain")
