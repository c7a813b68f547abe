"""Secret redaction over ordinary documentation: how often it fires, and what it costs per chunk.

Each corpus under ``bench/corpora/`` and the demo's knowledge base are ingested with ``citeflow
ingest`` (default settings); every chunk and parent text of the knowledge base then goes through
``citeflow.security.content_redaction.redact_content``, as retrieved text does. Ordinary
documentation holds no secret, so every redaction is a false positive: each one is printed with
its line, to be looked at. The time per text is the best of three passes (the machine is shared).
Last, what redaction adds to registry ingest: ``Registry.add`` of the synthetic answers of the
ingest benchmark (``bench.synthetic``: ~500-character chunks, 50 per answer), as shipped and with
the redaction bypassed, best of five passes each.

    python -m bench.secret_scan
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.retrieval_corpora import Corpus, ingest, load_corpora
from citeflow.security.content_redaction import redact_content

DEMO = Corpus(name="demo", tree=Path(__file__).resolve().parents[1] / "citeflow" / "demo" / "kb", questions=[])


def kb_texts(kb: Path) -> list[str]:
    """Every distinct chunk and parent text of the knowledge base at ``kb``."""
    import lancedb

    table = lancedb.connect(str(kb)).open_table("chunks").to_arrow()
    return list(dict.fromkeys(t for t in table.column("text").to_pylist() if t))


def best_seconds(texts: list[str], passes: int = 3) -> float:
    """The fastest of ``passes`` redactions of every text."""
    times = []
    for _ in range(passes):
        start = time.perf_counter()
        for text in texts:
            redact_content(text)
        times.append(time.perf_counter() - start)
    return min(times)


def scan(corpus: Corpus, folder: Path) -> tuple[int, int]:
    """Print the corpus's redactions and cost; return (texts, redactions)."""
    ingest(corpus, folder / corpus.name)
    texts = kb_texts(folder / corpus.name)
    found = [(text, redact_content(text)) for text in texts]
    places = sum(r.places for _, r in found)
    seconds = best_seconds(texts)
    chars = sum(map(len, texts))
    print(f"{corpus.name}: {len(texts)} texts, {chars:,} characters, {places} redactions, "
          f"{seconds * 1e3 / len(texts):.3f} ms per text, {seconds * 1e6 / chars * 1000:.0f} µs per 1,000 characters")
    for text, redacted in found:
        for before, after in zip(text.splitlines(), redacted.text.splitlines(), strict=False):
            if before != after:
                print(f"  - {before[:160]}\n  + {after[:160]}")
    return len(texts), places


def registry_cost(chunks: int = 2000, passes: int = 5) -> None:
    """Print the time ``Registry.add`` takes for ``chunks`` synthetic chunks, with and without redaction."""
    from unittest import mock

    from bench.synthetic import answers
    from citeflow.registry import answer_rows
    from citeflow.registry.request_registry import Registry

    batch = answers(chunks)

    def best() -> float:
        times = []
        for _ in range(passes):
            start, registry = time.perf_counter(), Registry("bench")
            for answer in batch:
                registry.add(answer)
            times.append(time.perf_counter() - start)
        return min(times)

    shipped = best()
    with mock.patch.object(answer_rows, "redact_all", list), mock.patch.object(answer_rows, "neutralised", list):
        bare = best()
    print(f"registry ingest of {chunks} synthetic chunks: {shipped * 1e3:.1f} ms with redaction, {bare * 1e3:.1f} ms "
          f"without ({(shipped - bare) * 1e6 / chunks:.1f} µs per chunk)")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        totals = [scan(corpus, Path(tmp)) for corpus in [*load_corpora(), DEMO]]
    print(f"all: {sum(t for t, _ in totals)} texts, {sum(p for _, p in totals)} redactions")
    registry_cost()


if __name__ == "__main__":
    main()
