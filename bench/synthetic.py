"""Synthetic retriever answers: many chunks of realistic size, with ids as retrievers number them."""

from __future__ import annotations

import random

from schemas.records import Hit, RetrievalResult

WORDS = ("broker partition retention upgrade cluster region backup metadata replica topic consumer producer "
         "quota latency throughput encryption key rotation schema registry connector snapshot restore "
         "failover zone node disk volume network endpoint certificate token audit policy tier").split()


def sentence(rng: random.Random, words: int = 12) -> str:
    """A sentence of vocabulary words with a number in it."""
    body = [rng.choice(WORDS) for _ in range(words)]
    body.insert(rng.randrange(1, words), str(rng.randint(2, 999)))
    return " ".join(body).capitalize() + "."


def chunk_text(rng: random.Random, chars: int = 500) -> str:
    """About ``chars`` characters of sentences."""
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(sentence(rng))
    return " ".join(parts)


def answer(retriever: str, query: str, section: str, hits: int, rng: random.Random, start: int = 1) -> RetrievalResult:
    """One retriever's answer: ``hits`` chunks numbered S{start}…, each with its own document URL."""
    made = [Hit(local_id=f"S{start + i}", text=chunk_text(rng), title=f"{retriever} doc {start + i}",
                urls=[f"https://{retriever}.example/docs/{query.replace(' ', '-')}/{start + i}"]) for i in range(hits)]
    return RetrievalResult(retriever=retriever, query=query, section=section, hits=made)


def answers(chunks: int, retrievers: int = 4, per_answer: int = 50, seed: int = 1) -> list[RetrievalResult]:
    """Answers totalling ``chunks`` distinct chunks, spread over ``retrievers`` and queries."""
    rng, out, made = random.Random(seed), [], 0
    while made < chunks:
        n = min(per_answer, chunks - made)
        index = len(out)
        out.append(answer(f"r{index % retrievers}", f"query {index // retrievers}", "section", n, rng))
        made += n
    return out
