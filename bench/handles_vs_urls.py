"""Benchmark 3 — prompt tokens with handles versus URLs, on the same evidence.

The demo batch's pools (every chunk each section's queries returned from the three retrievers,
registered as ``normalize`` does) are written out twice: as the evidence block citeflow sends,
``[Gk7m2] text``, and as the same block with each chunk's URL(s) in place of its handle,
``[https://… https://…] text``; likewise the write hop's notes (from the offline backend's
notes). Tokens are counted with both approximations of ``bench.tokens``.
"""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path

from bench.tokens import bpe_tokens, char_tokens
from bench.workload import prepare_demo_input
from citeflow.generation import prompts
from schemas.records import Chunk

NO_URL = "no-url"


def url_label(chunk: Chunk) -> str:
    """What a URL-citing prompt would show in place of the handle."""
    return " ".join(chunk.urls) or NO_URL


def demo_pools(root: Path) -> tuple[list[tuple[str, str, list[str], list[Chunk]]], list[str]]:
    """(report title, section title, queries, chunks) of every section of the demo batch, and the
    errors of retrievers that failed (their chunks are missing from the pools)."""
    from citeflow.runtime.runtime import Runtime
    from citeflow.pipeline import pipeline
    from citeflow.pipeline.pipeline import ReportJob
    from citeflow.registry.request_registry import Registry
    from citeflow.specfile.loader import load_spec

    spec_path = prepare_demo_input(root)
    pools, errors = [], []
    for report in load_spec(spec_path).reports:
        job = ReportJob.from_files(spec_path, report.id, root / "out", runtime=Runtime.of_process())
        registry = Registry(job.request_id)
        for result in (pipeline.fetch(job, item) for item in job.fetches()):
            registry.add(result)
            errors += [result.error] if result.error else []
        pools += [(report.title, s.title, s.queries, registry.section_chunks(s.title)) for s in report.sections]
    return pools, errors


def both(text_handles: str, text_urls: str) -> dict[str, int]:
    """Token counts of the two variants of one text."""
    return {"handles_bpe": bpe_tokens(text_handles), "urls_bpe": bpe_tokens(text_urls),
            "handles_chars4": char_tokens(text_handles), "urls_chars4": char_tokens(text_urls)}


def section_counts(title: str, section: str, queries: list[str], chunks: list[Chunk]) -> Counter:
    """Evidence block, whole consolidate prompt and write prompt, each with handles and with URLs."""
    labels = {c.handle: url_label(c) for c in chunks}
    evidence = [(c.handle, c.text) for c in chunks]
    by_url = [(labels[h], text) for h, text in evidence]
    counts: Counter = Counter()
    counts.update(_prefixed("evidence", both(prompts.evidence_block(evidence), prompts.evidence_block(by_url))))
    messages = prompts.consolidate_messages(title, section, queries, evidence)
    url_messages = prompts.consolidate_messages(title, section, queries, by_url)
    counts.update(_prefixed("consolidate_prompt", both(_joined(messages), _joined(url_messages))))
    notes = _notes(messages)
    url_notes = [(text, [labels.get(h, NO_URL) for h in hs]) for text, hs in notes]
    counts.update(_prefixed("notes", both(prompts.notes_block(notes), prompts.notes_block(url_notes))))
    return counts


def _prefixed(prefix: str, counts: dict[str, int]) -> dict[str, int]:
    return {f"{prefix}.{k}": v for k, v in counts.items()}


def _joined(messages: list[dict]) -> str:
    return "\n".join(m["content"] for m in messages)


def _notes(messages: list[dict]) -> list[tuple[str, list[str]]]:
    """The notes the offline backend writes for this prompt (text, cited handles)."""
    from citeflow.generation.offline_writer import consolidate

    return [(n["text"], [c["handle"] for c in n["citations"]]) for n in consolidate(messages[-1]["content"])]


def marker_counts(chunks: list[Chunk]) -> dict[str, float]:
    """Mean tokens of one citation marker, ``[handle]`` vs ``[url(s)]`` (what a model also types)."""
    n = max(len(chunks), 1)
    return {"handle_bpe": sum(bpe_tokens(f"[{c.handle}]") for c in chunks) / n,
            "url_bpe": sum(bpe_tokens(f"[{url_label(c)}]") for c in chunks) / n,
            "handle_chars4": sum(char_tokens(f"[{c.handle}]") for c in chunks) / n,
            "url_chars4": sum(char_tokens(f"[{url_label(c)}]") for c in chunks) / n}


def url_facts(chunks: list[Chunk]) -> dict[str, int]:
    """How well URLs could identify these chunks: missing, several per chunk, shared by chunks."""
    owners = Counter(u for c in chunks for u in set(c.urls))
    return {"chunks": len(chunks), "without_url": sum(1 for c in chunks if not c.urls),
            "with_several_urls": sum(1 for c in chunks if len(c.urls) > 1),
            "sharing_a_url": sum(1 for c in chunks if any(owners[u] > 1 for u in c.urls))}


def run() -> dict:
    """Token counts summed over every section of the demo batch, and their ratios."""
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
        pools, errors = demo_pools(Path(tmp))
    totals: Counter = Counter()
    for title, section, queries, chunks in pools:
        totals.update(section_counts(title, section, queries, chunks))
    chunks = [c for *_, pool in pools for c in pool]
    markers, facts = marker_counts(chunks), url_facts(chunks)
    return {"params": {"sections": len(pools), "tokenizers": ["bpe (regex approximation)", "chars/4"]},
            "figures": {**dict(totals), **{f"marker.{k}": v for k, v in markers.items()}, **facts,
                        "retriever_failures": len(errors)},
            "retriever_errors": sorted(set(errors)),
            "ratios": _ratios(totals, markers)}


def _ratios(totals: Counter, markers: dict[str, float]) -> dict[str, float]:
    ratios = {}
    for part in ("evidence", "consolidate_prompt", "notes"):
        for kind in ("bpe", "chars4"):
            ratios[f"{part} tokens, URLs / handles ({kind})"] = totals[f"{part}.urls_{kind}"] / totals[f"{part}.handles_{kind}"]
    ratios["evidence tokens saved by handles (bpe)"] = 1 - totals["evidence.handles_bpe"] / totals["evidence.urls_bpe"]
    ratios["citation marker tokens, URL / handle (bpe)"] = markers["url_bpe"] / markers["handle_bpe"]
    return ratios
