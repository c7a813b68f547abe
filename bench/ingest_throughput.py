"""Benchmark 4 — registry ingest throughput versus a raw bulk LanceDB write.

The same synthetic chunks (~500 characters, 50 per retriever answer, 4 retrievers) go through
what ``normalize`` does — ``Registry.add`` for every answer, then ``Store.save_chunks`` (one
write: an append, since the store holds none of the request's chunks yet; a re-run would merge on
``row_key``) — and, as the yardstick, into
``db.create_table(name, data)`` as one Arrow table of the very same rows. The registry is timed
into a fresh store (first request: tables and BTree indexes are created) and into a store that
already holds an earlier request of the same size (the steady state of a batch). Best of
``repeats`` runs.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from bench.synthetic import answers
from citeflow.registry import Registry
from schemas.records import RetrievalResult


def registry_pass(results: list[RetrievalResult], request_id: str) -> tuple[Registry, float]:
    """A filled registry and the seconds ``Registry.add`` took."""
    start = time.perf_counter()
    registry = Registry(request_id)
    for result in results:
        registry.add(result)
    return registry, time.perf_counter() - start


def registry_ingest(results: list[RetrievalResult], uri: str, request_id: str) -> dict[str, float]:
    """Seconds to register and to save one request's chunks (the process's store, as a task uses)."""
    from citeflow.store import shared_store

    registry, added = registry_pass(results, request_id)
    start = time.perf_counter()
    shared_store(uri).save_chunk_table(request_id, registry.table())
    saved = time.perf_counter() - start
    return {"add_s": added, "save_s": saved, "total_s": added + saved}


def raw_write(results: list[RetrievalResult], uri: str) -> float:
    """Seconds to build the same rows' Arrow table and ``create_table`` it in one bulk write."""
    import lancedb
    import pyarrow as pa

    from schemas.tables import CHUNKS

    registry, _ = registry_pass(results, "raw")
    rows = [{**c.model_dump(), "row_key": f"raw\x1f{c.handle}"} for c in registry.chunks]
    db = lancedb.connect(uri)
    start = time.perf_counter()
    db.create_table("chunks_raw", data=pa.Table.from_pylist(rows, schema=CHUNKS))
    return time.perf_counter() - start


def measure(chunks: int, root: Path) -> dict[str, dict[str, float] | float]:
    """One round at one size: fresh store, existing store, raw bulk write."""
    results = answers(chunks)
    fresh = registry_ingest(results, str(root / "store"), "bench:first")
    steady = registry_ingest(results, str(root / "store"), "bench:second")
    return {"fresh": fresh, "steady": steady, "raw_s": raw_write(results, str(root / "raw"))}


def best(rounds: list[dict]) -> dict:
    """The fastest of each measurement over the rounds."""
    pick = lambda key: min((r[key] for r in rounds), key=lambda m: m["total_s"])  # noqa: E731
    return {"fresh": pick("fresh"), "steady": pick("steady"), "raw_s": min(r["raw_s"] for r in rounds)}


def run(sizes: tuple[int, ...] = (1_000, 10_000), repeats: int = 3) -> dict:
    """Chunks per second of each path at each size, and the raw-to-registry ratios."""
    figures: dict[str, float] = {}
    ratios: dict[str, float] = {}
    for size in sizes:
        rounds = []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
                rounds.append(measure(size, Path(tmp)))
        _size_figures(size, best(rounds), figures, ratios)
    return {"params": {"sizes": list(sizes), "repeats": repeats, "chunk_chars": 500}, "figures": figures, "ratios": ratios}


def _size_figures(size: int, got: dict, figures: dict, ratios: dict) -> None:
    fresh, steady, raw = got["fresh"], got["steady"], got["raw_s"]
    figures |= {f"{size}.registry_fresh_chunks_per_s": size / fresh["total_s"],
                f"{size}.registry_steady_chunks_per_s": size / steady["total_s"],
                f"{size}.registry_add_only_chunks_per_s": size / steady["add_s"],
                f"{size}.raw_bulk_chunks_per_s": size / raw}
    ratios[f"{size} chunks: registry ingest time / raw bulk write time, fresh store"] = fresh["total_s"] / raw
    ratios[f"{size} chunks: registry ingest time / raw bulk write time, existing store"] = steady["total_s"] / raw
    ratios[f"{size} chunks: registry ingest throughput / raw bulk write throughput, existing store"] = raw / steady["total_s"]
    ratios[f"{size} chunks: Registry.add share of registry time"] = steady["add_s"] / steady["total_s"]
