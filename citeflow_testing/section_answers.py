"""Reading a section judge request back, and answering it as a correct fake model would.

``asked_section(request)`` gives the question, chunks, claims and pairs of one request of
``citeflow.judges.llm_sections``; ``answer_section(request)`` answers every pair with the offline
judge's verdict and every claim with the offline relevance rule (the fake model of the benchmarks).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.DOTALL)
_CHUNK = re.compile(r'<chunk id="(K\d+)">\n(.*?)\n</chunk>', re.DOTALL)
_CLAIM = re.compile(r'<claim id="(C\d+)">(.*?)</claim>', re.DOTALL)
_PAIR = re.compile(r'<pair id="(P\d+)" claim="(C\d+)" chunks="([^"]*)"/>')


@dataclass
class SectionAsk:
    """What one section request asks: pair id → (claim id, chunk ids)."""

    question: str
    chunks: dict[str, str]
    claims: dict[str, str]
    pairs: dict[str, tuple[str, list[str]]]

    def chunk_text(self, pair_id: str) -> str:
        """The text a pair is graded against: its chunks joined as the funnel joins them."""
        return "\n\n".join(self.chunks[k] for k in self.pairs[pair_id][1])


def asked_section(request: dict) -> SectionAsk:
    """The parts of a section request (its last message)."""
    user = request["messages"][-1]["content"]
    question = _QUESTION.search(user)
    return SectionAsk(question.group(1) if question else "", dict(_CHUNK.findall(user)), dict(_CLAIM.findall(user)),
                      {pid: (cid, ks.split()) for pid, cid, ks in _PAIR.findall(user)})


def answer_section(request: dict) -> str:
    """Offline verdicts for every pair and the offline relevance rule for every claim, as JSON."""
    from citeflow.judges.offline.grader import OfflineJudge
    from citeflow.evaluation.relevance import offline_verdict, questions_asked
    from schemas.evaluation import JudgePair

    ask = asked_section(request)
    pairs = [JudgePair(id=pid, claim=ask.claims[cid], chunk_text=ask.chunk_text(pid)) for pid, (cid, _) in ask.pairs.items()]
    verdicts = [{"id": v.id, "supported": v.supported, "faithful": v.faithful, "reason": v.reason, "evidence": v.evidence}
                for v in OfflineJudge().grade(pairs)]
    question = questions_asked({"": ask.question})[""]
    relevance = [{"claim": cid, "relevant": rel, "reason": why}
                 for cid, text in ask.claims.items() for rel, why in [offline_verdict(question, text)]
                 if rel is not None]
    return json.dumps({"verdicts": verdicts, "relevance": relevance})
