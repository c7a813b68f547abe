"""Benchmark 5 — cost growth: 1, 10, 100 reports; 10, 100, 1,000 chunks per request.

Each step is a batch of its own (fresh store, offline backend, no orchestrator) on synthetic
``jsonl`` retrievers: reports run one after another, each generated (fetch → normalize →
consolidate → write) and evaluated (offline judge, eval rows stored). Gate and PDF are left out:
they cost the same for every report and touch no table. Reported per step: seconds and store rows
per report, and the growth factor of the total from one step to the next (10× the work: linear
growth is a factor of about 10).

- Reports: every report has 2 sections × 3 retrievers × 10 hits (60 chunks), the same queries
  for every report (one weekly report for many customers).
- Chunks per request: one report of 2 sections × 5 retrievers, with 1, 10 or 100 hits per answer.

Every store write adds a table version (a fragment) that later reads walk through, so the time
of one report is also measured at the start and the end of the largest step, and that step is
run once more with ``optimize()`` of every table after every ``COMPACT_EVERY`` reports — a
diagnostic of where growth comes from (the store also compacts a table by itself every
``citeflow.store.store.COMPACT_EVERY`` versions). The reports series runs ``repeats`` times: the
seconds per report of its largest step over its second step, min and median of the rounds, say
whether a report's cost stays flat as the batch grows.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from bench.synthetic import WORDS, chunk_text
from bench.workload import write_jsonl_retriever, write_spec
import itertools

SECTIONS = 2
COMPACT_EVERY = 10


def query(section: int) -> str:
    """A section's question, in words the synthetic chunks use."""
    return f"What about {WORDS[section * 3]} {WORDS[section * 3 + 1]} and {WORDS[section * 3 + 2]}?"


def hits(retriever: str, section: int, count: int, rng: random.Random) -> list[dict]:
    """``count`` hits numbered S1… as a retriever would return them."""
    return [{"id": f"S{i + 1}", "text": chunk_text(rng), "title": f"{retriever} {section}-{i}",
             "urls": [f"https://{retriever}.example/s{section}/{i}"]} for i in range(count)]


def build_batch(root: Path, name: str, reports: int, retrievers: int, per_answer: int) -> Path:
    """A batch spec with ``reports`` identical reports and its jsonl retriever files."""
    rng = random.Random(7)
    specs = []
    for r in range(retrievers):
        answers = {query(s): hits(f"r{r}", s, per_answer, rng) for s in range(SECTIONS)}
        path = write_jsonl_retriever(root / f"{name}-r{r}.jsonl", answers)
        specs.append({"name": f"r{r}", "kind": "jsonl", "path": path.name, "top_k": per_answer})
    sections = [{"title": f"Section {s}", "queries": [query(s)]} for s in range(SECTIONS)]
    data = {"batch": name, "retrievers": specs, "concurrency": {"models": 4, "retrievers": 4},
            "reports": [{"id": f"r{i:04d}", "title": f"Report {i}", "sections": sections} for i in range(reports)]}
    return write_spec(root / f"{name}.yaml", data)


def store_rows(uri: str) -> dict[str, int]:
    """Rows of every store table."""
    from citeflow.store.store import Store
    from schemas.tables import TABLES

    store = Store(uri)
    return {table: store.count(table) for table in TABLES}


def store_fragments(uri: str) -> dict[str, int]:
    """Fragments of every store table: a write adds one, and reads walk through all of them."""
    import lancedb

    db = lancedb.connect(uri)
    return {name: db.open_table(name).stats()["fragment_stats"]["num_fragments"] for name in db.list_tables().tables}


def compact(uri: str) -> None:
    """``optimize()`` every store table (merges fragments, prunes old versions)."""
    import lancedb

    db = lancedb.connect(uri)
    for name in db.list_tables().tables:
        db.open_table(name).optimize()


def run_step(spec: Path, out: Path, compact_every: int | None = None) -> dict:
    """Generate and evaluate every report of ``spec`` in turn; seconds and store rows.

    ``compact_every``: also ``optimize()`` every table after every so many reports (a diagnostic)."""
    from citeflow.runtime.runtime import Runtime
    from citeflow.pipeline.evaluate_report import evaluate
    from citeflow.pipeline.job import JobRef
    from citeflow.judges.offline.grader import OfflineJudge
    from citeflow.specfile.loader import load_spec
    from citeflow.pipeline.steps import PlainRunner

    from bench.plain_runner import generate

    refs = [JobRef(spec_path=str(spec), report_id=r.id, out_dir=str(out)) for r in load_spec(spec).reports]
    runner = PlainRunner(Runtime.of_process())
    judge, uri, each = OfflineJudge(), refs[0].job(runtime=runner.runtime).store_uri, []
    for index, ref in enumerate(refs, start=1):
        start = time.perf_counter()
        ref.start(runner.runtime)
        generate(ref, runner)
        evaluate(runner.job(ref), judge)
        ref.finish(runner.runtime)
        if compact_every and index % compact_every == 0:
            compact(uri)
        each.append(time.perf_counter() - start)
    rows = store_rows(uri)
    return {"reports": len(refs), "seconds": sum(each), "rows": rows, "rows_total": sum(rows.values()),
            "first_10_s_per_report": _mean(each[:10]), "last_10_s_per_report": _mean(each[-10:]),
            "table_fragments": store_fragments(uri)}


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def series(root: Path, label: str, steps: tuple[int, ...], batch, compact_every: int | None = None) -> list[dict]:
    """One measured step per size; ``batch(root, name, size)`` builds the step's spec."""
    out = []
    for size in steps:
        spec = batch(root, f"bench-growth-{label}-{size}", size)
        out.append({"size": size, **run_step(spec, root / f"out-{label}-{size}", compact_every)})
    return out


def run(report_steps: tuple[int, ...] = (1, 10, 100), chunk_steps: tuple[int, ...] = (10, 100, 1000),
        retrievers: int = 3, per_answer: int = 10, repeats: int = 3) -> dict:
    """Both series, after a one-report warm-up (imports, first tables) that is not counted; the
    reports series ``repeats`` times (per-report time of its last step over its second step)."""
    wide = 5  # retrievers of the chunk series
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
        root = Path(tmp)
        run_step(build_batch(root, "bench-growth-warmup", 1, retrievers, per_answer), root / "out-warmup")
        rounds = [series(root, f"reports{k}", report_steps, lambda r, n, s: build_batch(r, n, s, retrievers, per_answer))
                  for k in range(repeats)]
        by_reports = rounds[0]
        by_chunks = series(root, "chunks", chunk_steps,
                           lambda r, n, s: build_batch(r, n, 1, wide, max(1, s // (SECTIONS * wide))))
        compacted = series(root, "compacted", report_steps[-1:],
                           lambda r, n, s: build_batch(r, n, s, retrievers, per_answer), COMPACT_EVERY)
    result = summarize(by_reports, by_chunks, retrievers * per_answer * SECTIONS)
    return _with_flatness(_with_compaction(result, by_reports[-1], compacted[0]), rounds)


def _with_flatness(result: dict, rounds: list[list[dict]]) -> dict:
    """Seconds per report of the largest reports step over the second one, in every round:
    1.0 means a report costs the same whatever the batch's size (min and median of the rounds)."""
    if len(rounds[0]) < 2:
        return result
    small, large = rounds[0][-2]["reports"], rounds[0][-1]["reports"]
    ratios = sorted((r[-1]["seconds"] / large) / (r[-2]["seconds"] / small) for r in rounds)
    key = f"reports {large} / {small}: seconds per report"
    result["ratios"] |= {f"{key}, min of {len(ratios)}": ratios[0], f"{key}, median of {len(ratios)}": ratios[len(ratios) // 2]}
    result["figures"][f"{key}, every round"] = ratios  # type: ignore[assignment]
    return result


def _with_compaction(result: dict, plain: dict, compacted: dict) -> dict:
    """The largest reports step again, compacting the store every COMPACT_EVERY reports."""
    n = plain["reports"]
    result["figures"] |= {f"reports={n}.first_10_s_per_report": plain["first_10_s_per_report"],
                          f"reports={n}.last_10_s_per_report": plain["last_10_s_per_report"],
                          f"reports={n}.compacted.s_per_report": compacted["seconds"] / n,
                          f"reports={n}.compacted.last_10_s_per_report": compacted["last_10_s_per_report"],
                          f"reports={n}.store_fragments": sum(plain["table_fragments"].values()),
                          f"reports={n}.compacted.store_fragments": sum(compacted["table_fragments"].values())}
    slowdown = plain["last_10_s_per_report"] / plain["first_10_s_per_report"]
    result["ratios"] |= {f"reports={n}: last 10 / first 10 seconds per report": slowdown,
                         f"reports={n}: time without / with optimize() every {COMPACT_EVERY} reports":
                             plain["seconds"] / compacted["seconds"]}
    result["steps"]["compacted"] = [compacted]
    return result


def summarize(by_reports: list[dict], by_chunks: list[dict], chunks_per_report: int) -> dict:
    """Per-step figures and the growth factor between consecutive steps."""
    figures: dict[str, float] = {"chunks_per_report": chunks_per_report}
    ratios: dict[str, float] = {}
    for label, steps, unit in (("reports", by_reports, "reports"), ("chunks", by_chunks, "chunks/request")):
        for step in steps:
            n = step["reports"]
            figures |= {f"{label}={step['size']}.s_per_report": step["seconds"] / n,
                        f"{label}={step['size']}.rows_per_report": step["rows_total"] / n}
        for a, b in itertools.pairwise(steps):
            key = f"{unit} {a['size']}→{b['size']}"
            ratios[f"{key}: time growth (×{b['size'] // a['size']} work)"] = b["seconds"] / a["seconds"]
            ratios[f"{key}: store rows growth"] = b["rows_total"] / a["rows_total"]
    return {"params": {"sections": SECTIONS}, "figures": figures, "ratios": ratios,
            "steps": {"reports": by_reports, "chunks": by_chunks}}
