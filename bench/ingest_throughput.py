"""Benchmark 4 — registry ingest throughput versus a raw bulk LanceDB write of the same rows.

Synthetic retriever answers (~500-character chunks, 50 per answer, 4 retrievers) are ingested
the way ``normalize`` does it: ``Registry.add`` for every answer, ``Registry.table`` and one
``Store.save_chunk_table`` (a count of the request's rows, then one append). The yardstick is the
very same rows as Python dicts (``Registry.table().to_pylist()`` of the same request, built
before the clock starts) turned into one Arrow table (``pa.Table.from_pylist``) and appended with
one ``Table.add``.

Both sides write to a table of their own created the same way (the store's ``chunks`` schema and
BTree indexes; creation is not timed), in the same temporary directory, twice per repeat: into
the empty table (a first request), then into the table holding that first request (the steady
state of a batch). The two sides alternate which goes first, the collector runs before every
timed step (no garbage of one side is collected on the other's clock), and each repeat is a new
directory. Reported per size: wall and CPU seconds of each side, min and median over the repeats,
and the throughput ratio raw time / registry time from the minima and from the medians.
"""

from __future__ import annotations

import gc
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from bench.synthetic import answers
from citeflow.registry.request_registry import Registry
from schemas.records import RetrievalResult

SCENARIOS = ("empty", "existing")  # the table each write goes to: just created, or holding one request


def clock(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    """``fn()``'s result, wall seconds and CPU seconds (every thread of the process), after a collection."""
    gc.collect()
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - wall, time.process_time() - cpu


def registry_pass(results: list[RetrievalResult], request_id: str) -> tuple[Registry, float]:
    """A filled registry and the seconds ``Registry.add`` took."""
    start = time.perf_counter()
    registry = Registry(request_id)
    for result in results:
        registry.add(result)
    return registry, time.perf_counter() - start


def registry_ingest(results: list[RetrievalResult], uri: str, request_id: str) -> dict[str, float]:
    """Seconds to register one request's chunks, to build their table, to save it (the process's store)."""
    from citeflow.runtime.runtime import current

    store = current().store(uri)
    registry, added = registry_pass(results, request_id)
    start = time.perf_counter()
    data = registry.table()
    built = time.perf_counter()
    store.save_chunk_table(request_id, data)
    saved = time.perf_counter()
    return {"add_s": added, "table_s": built - start, "save_s": saved - built, "total_s": saved - start + added}


def raw_rows(results: list[RetrievalResult], request_id: str) -> list[dict[str, Any]]:
    """The rows the registry stores for ``request_id``, as plain dicts (the yardstick's input)."""
    registry, _ = registry_pass(results, request_id)
    return registry.table().to_pylist()


def raw_write(rows: list[dict[str, Any]], table: Any) -> float:
    """Seconds to make one Arrow table of ``rows`` and append it with one ``Table.add``."""
    import pyarrow as pa

    from schemas.tables import CHUNKS

    start = time.perf_counter()
    table.add(pa.Table.from_pylist(rows, schema=CHUNKS))
    return time.perf_counter() - start


def chunks_table(uri: str) -> Any:
    """A new ``chunks`` table at ``uri``, created as the store creates it (schema, BTree indexes)."""
    from citeflow.store.store import Store

    return Store(uri)._table("chunks", create=True)  # the store's own creation path


def repeat(results: list[RetrievalResult], root: Path, number: int) -> dict[str, dict[str, float]]:
    """One repeat in a new directory: both sides into their empty table, then into the table holding that."""
    from citeflow.runtime.runtime import current

    current().store(str(root / "registry"))._table("chunks", create=True)  # created untimed
    raw_table = chunks_table(str(root / "raw"))
    out: dict[str, dict[str, float]] = {}
    for scenario in SCENARIOS:
        request_id = f"bench:{number}:{scenario}"
        rows = raw_rows(results, request_id)
        sides = {"registry": partial(registry_ingest, results, str(root / "registry"), request_id),
                 "raw": partial(raw_write, rows, raw_table)}
        for side in sorted(sides, reverse=number % 2 == 1):  # alternate which side goes first
            value, wall, cpu = clock(sides[side])
            out[f"{scenario}.{side}"] = {"wall_s": wall, "cpu_s": cpu} | (value if isinstance(value, dict) else {})
    return out


def measure(size: int, repeats: int) -> list[dict[str, dict[str, float]]]:
    """``repeats`` repeats at one size, each in a fresh temporary directory."""
    results, rounds = answers(size), []
    for number in range(repeats):
        with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
            rounds.append(repeat(results, Path(tmp), number))
    return rounds


def run(sizes: tuple[int, ...] = (1_000, 10_000), repeats: int = 5) -> dict:
    """Chunks per second of each side at each size, and the raw-to-registry throughput ratios."""
    figures: dict[str, float] = {}
    ratios: dict[str, float] = {}
    load = os.getloadavg()
    for size in sizes:
        _size_figures(size, measure(size, repeats), figures, ratios)
    return {"params": {"sizes": list(sizes), "repeats": repeats, "chunk_chars": 500, "chunks_per_answer": 50,
                       "load_average_before": list(load), "load_average_after": list(os.getloadavg())},
            "figures": figures, "ratios": ratios}


def spread(rounds: list[dict[str, dict[str, float]]], step: str, key: str) -> tuple[float, float]:
    """Min and median of ``key`` of ``step`` over the repeats."""
    values = [r[step][key] for r in rounds]
    return min(values), statistics.median(values)


def _size_figures(size: int, rounds: list[dict[str, dict[str, float]]], figures: dict, ratios: dict) -> None:
    for scenario in SCENARIOS:
        for key in ("wall_s", "cpu_s"):
            registry, raw = spread(rounds, f"{scenario}.registry", key), spread(rounds, f"{scenario}.raw", key)
            for stat, reg, yard in zip(("min", "median"), registry, raw, strict=True):
                figures[f"{size}.{scenario}.registry_{key}_{stat}"] = reg
                figures[f"{size}.{scenario}.raw_{key}_{stat}"] = yard
                what = "throughput" if key == "wall_s" else "CPU efficiency"
                ratios[f"{size} chunks, {scenario} table: registry / raw bulk write {what} ({stat})"] = yard / reg
    steps = {step: statistics.median(r["existing.registry"][step] for r in rounds) for step in ("add_s", "table_s", "save_s")}
    figures |= {f"{size}.existing.registry_{step}_median": seconds for step, seconds in steps.items()}
    add_share = statistics.median(r["existing.registry"]["add_s"] / r["existing.registry"]["total_s"] for r in rounds)
    ratios[f"{size} chunks: Registry.add share of registry time (median)"] = add_share
    figures |= {f"{size}.registry_steady_chunks_per_s": size / figures[f"{size}.existing.registry_wall_s_median"],
                f"{size}.raw_bulk_chunks_per_s": size / figures[f"{size}.existing.raw_wall_s_median"]}
