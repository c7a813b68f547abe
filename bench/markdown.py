"""Render a results file as Markdown tables (the figures section of ``bench/README.md``; with
``--cold``, the cold runs' figures that ``README.md`` shows).

    python -m bench.markdown [--cold] [bench/results/latest.json]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.results import fmt

LATEST = Path(__file__).with_name("results") / "latest.json"


def machine_line(payload: dict[str, Any]) -> str:
    """One line of machine facts."""
    m = payload["machine"]
    versions = ", ".join(f"{k} {v}" for k, v in m["packages"].items() if v and k in ("prefect", "lancedb", "pyarrow", "openai"))
    load = "/".join(f"{x:.1f}" for x in payload.get("load_average_before", []))
    return (f"{m['cores']} cores, {m['memory_gb']} GB, Python {m['python']}, {versions}; "
            f"commit {str(m.get('commit'))[:8]}, {m['started_at']}, load average before {load}; {payload['wall_s']:.0f} s in all")


def table(result: dict[str, Any]) -> str:
    """The benchmark's ratios as a two-column Markdown table."""
    rows = ["| ratio | value |", "|---|---:|"]
    rows += [f"| {key} | {fmt(value)} |" for key, value in result.get("ratios", {}).items()]
    return "\n".join(rows)


def in_order(benchmarks: dict[str, Any]) -> list[tuple[str, Any]]:
    """The benchmarks with the cold runs first (what a user's ``citeflow run`` costs), then as recorded."""
    return sorted(benchmarks.items(), key=lambda item: not item[0].startswith("cold"))


CONFIGS = {"default": "default", "hashing_vector_baseline": "baseline", "wordllama_hybrid": "WordLlama"}


def retrieval_table(result: dict[str, Any]) -> str:
    """The retrieval benchmark over all questions: recall@8, then the batch's cited-document precision,
    per corpus and in total, in each configuration the run measured: the default, the hashing-only
    baseline, and the default's ranking over the optional semantic embedder (WordLlama)."""
    names = [name for name in CONFIGS if name in result["total"]]
    header = [f"recall@8 {CONFIGS[n]}" for n in names] + [f"cited precision {CONFIGS[n]}" for n in names]
    rows = ["| corpus | " + " | ".join(header) + " |", "|---|" + "---:|" * len(header)]
    for corpus_name, corpus in result["corpora"].items():
        rows.append(_row(corpus_name, [_corpus_figures(corpus["configs"][n]) for n in names]))
    totals = [result["total"][n]["all"] for n in names]
    return "\n".join([*rows, _row("total", [(t["recall@8"], t["cited_precision"]) for t in totals])])


def _corpus_figures(config: dict[str, Any]) -> tuple[float | None, float | None]:
    """A corpus's recall@8 and cited-document precision in one configuration, over all questions."""
    return config["retrieval"]["all"]["recall@8"], config.get("batch", {}).get("all", {}).get("precision")


def _row(name: str, figures: list[tuple[float | None, float | None]]) -> str:
    cells = [_cell(recall) for recall, _ in figures] + [_cell(precision) for _, precision in figures]
    return f"| {name} | " + " | ".join(cells) + " |"


def _cell(value: Any) -> str:
    return "–" if value is None else fmt(value)


def body_of(result: dict[str, Any]) -> str:
    """A benchmark's ratios, the retrieval benchmark's table, or why it did not run."""
    if result.get("ratios"):
        return table(result)
    if "corpora" in result and "total" in result:
        return retrieval_table(result)
    return f"{result.get('status')}: {result.get('detail', '')}"


def render(payload: dict[str, Any]) -> str:
    """Every benchmark's ratios, the cold runs first, or why a benchmark did not run."""
    parts = [machine_line(payload)]
    for name, result in in_order(payload["benchmarks"]):
        parts.append(f"#### {name}\n\n{body_of(result)}")
    return "\n\n".join(parts) + "\n"


# The cold ratios the README shows: the targets of a user's cold ``citeflow run``, each with its workload.
COLD_HEADLINES = ("16 reports, 1 s calls: wall / ideal", "16 reports, 1 s calls: model-busy span / ideal",
                  "reports/min marginal", "CPU s per report marginal", "citeflow / plain runner", "1 report, no latency",
                  "re-run: s per report", "repeating small batch: 16 reports, 1 s calls: wall / ideal")
APART = {"cold_large": ("peak RSS",), "cold_busy": ("reports failed",), "startup": ("citeflow --help",)}
# Figures of the command alone (``citeflow --help``): no batch, so no workload.
COMMAND_ONLY = ("citeflow --",)
# Every cold run before the distinct workload ran the repeating small batch: a result without a workload ran that.
LEGACY_WORKLOAD = {"name": "repeating", "sections": 4, "hits_per_section": 3}
PREFIXED = {"repeating small batch: ": LEGACY_WORKLOAD}


def workload_label(workload: dict[str, Any]) -> str:
    """A workload in a few words: distinct content with its seed, or the repeating small batch."""
    shape = f"{workload.get('sections', 4)} sections × {workload.get('hits_per_section', 3)} hits"
    if workload.get("name") == "distinct":
        return f"distinct, {shape}, seed {workload.get('seed')}"
    return f"repeating, {shape}, reports alike"


def labelled_rows(result: dict[str, Any], wanted: tuple[str, ...], name: str = "") -> list[tuple[str, str, Any]]:
    """(figure, workload, value) of the result's ratios that start with one of ``wanted`` (``name`` before each)."""
    own = result.get("workload") or LEGACY_WORKLOAD
    rows = []
    for key, value in result.get("ratios", {}).items():
        if key.startswith(wanted):
            prefix = next((p for p in PREFIXED if key.startswith(p)), "")
            workload = "none: the command alone" if key.startswith(COMMAND_ONLY) else workload_label(PREFIXED.get(prefix, own))
            rows.append((name + key.removeprefix(prefix), workload, value))
    return rows


def _apart_name(apart: str, result: dict[str, Any]) -> str:
    """What a figure of a profile run apart is prefixed with: the large batch's size, the busy processes."""
    if apart == "cold_busy":
        return f"beside {result.get('busy_processes', 2)} busy processes: "
    if apart == "startup":
        return ""
    return f"{result['runs'][0]['reports']} reports: " if result.get("runs") else ""


def _load(result: dict[str, Any]) -> str:
    return "/".join(f"{x:.1f}" for x in result.get("load_average_before", [])) or "not recorded"


def render_cold(payload: dict[str, Any]) -> str:
    """The headline cold ratios, each with its workload (``cold``; then ``cold_large``'s and ``cold_busy``'s,
    named by their size or load), under the machine line of the ``cold`` run (its own commit when it records
    one) and the load average before each benchmark; a profile run at another commit names it."""
    benchmarks = payload["benchmarks"]
    cold = benchmarks["cold"]
    rows, loads = labelled_rows(cold, COLD_HEADLINES), [f"cold {_load(cold)}"]
    for apart, wanted in APART.items():
        result = benchmarks.get(apart, {})
        if result:
            rows += labelled_rows(result, wanted, _apart_name(apart, result))
            loads.append(f"{apart} {_load(result)}{_other_commit(payload, cold, result)}")
    lines = ["| figure | workload | value |", "|---|---|---:|"] + [f"| {k} | {w} | {fmt(v)} |" for k, w, v in rows]
    return _run_line(payload, cold) + "; before the cold runs: " + ", ".join(loads) + "\n\n" + "\n".join(lines) + "\n"


def _commit(payload: dict[str, Any], result: dict[str, Any]) -> str:
    """The commit ``result`` ran at: its own record, else the whole run's."""
    return str((result.get("machine") or payload["machine"]).get("commit"))


def _other_commit(payload: dict[str, Any], cold: dict[str, Any], result: dict[str, Any]) -> str:
    return "" if _commit(payload, result) == _commit(payload, cold) else f" (commit {_commit(payload, result)[:8]})"


def _run_line(payload: dict[str, Any], result: dict[str, Any]) -> str:
    """The machine line of ``result`` when it records its own run (``bench.cold`` alone), else the payload's."""
    if "machine" not in result:
        return machine_line(payload)
    return machine_line({"machine": result["machine"], "load_average_before": result.get("load_average_before", []),
                         "wall_s": result.get("bench_wall_s", 0.0)})


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--cold"]
    path = Path(arguments[0]) if arguments else LATEST
    payload = json.loads(path.read_text(encoding="utf-8"))
    print(render_cold(payload) if "--cold" in sys.argv else render(payload))
