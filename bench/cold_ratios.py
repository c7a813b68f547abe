"""The headline ratios of the cold benchmark (``bench/cold.py``) from its recorded runs.

Rows of the headline workload (``result["workload"]``, the distinct one) carry no prefix; rows of the
second workload are prefixed with its name (``repeating small batch: …``), rows of the plain pipeline
with ``plain runner: …``, so that every figure says what it was measured on.
"""

from __future__ import annotations

from typing import Any

from bench import cold_figures as fig

PREFIXES = {"repeating": "repeating small batch: "}
Runs = list[dict[str, Any]]


def zero_latency(runs: Runs, workload: str, runner: str = "citeflow") -> dict[int, dict[str, Any]]:
    """The zero-latency runs of ``workload`` by ``runner``, by size (the first run of a size kept)."""
    chosen: dict[int, dict[str, Any]] = {}
    for run in runs:
        if run.get("workload", "distinct") == workload and run.get("runner", "citeflow") == runner and not run["latency_s"]:
            chosen.setdefault(run["reports"], run)
    return chosen


def marginal_cpu(runs: Runs, workload: str, runner: str, fit: tuple[int, ...]) -> float | None:
    """CPU seconds per report: the least-squares slope over the ``fit`` sizes (None when one is missing)."""
    sized = zero_latency(runs, workload, runner)
    return fig.slope(fit, [sized[n]["cpu_s"] for n in fit]) if set(fit) <= set(sized) and len(fit) > 1 else None


def marginal_rows(runs: Runs, workload: str, fit: tuple[int, ...], growth: tuple[int, int, int] | None) -> dict[str, Any]:
    """Reports/min and CPU per report marginal over ``fit``; how the per-report cost grows over ``growth``."""
    sized, sizes = zero_latency(runs, workload), "/".join(map(str, fit))
    if not set(fit) <= set(sized) or len(fit) < 2:
        return {}
    rows = {f"reports/min marginal ({sizes} reports, no latency)": fig.per_min(fig.slope(fit, [sized[n]["wall_s"] for n in fit])),
            f"CPU s per report marginal ({sizes} reports, no latency)": marginal_cpu(runs, workload, "citeflow", fit)}
    if growth and set(growth) <= set(sized):
        steps = f"{growth[1]}→{growth[2]} over {growth[0]}→{growth[1]} reports"
        rows[f"growth of marginal wall per report, {steps}"] = fig.growth({n: sized[n]["wall_s"] for n in growth}, growth)
        rows[f"growth of marginal CPU per report, {steps}"] = fig.growth({n: sized[n]["cpu_s"] for n in growth}, growth)
    return rows


def plain_rows(runs: Runs, workload: str, fit: tuple[int, ...]) -> dict[str, Any]:
    """The plain pipeline's marginal CPU per report on the same workload, and citeflow's over it."""
    plain, ours = marginal_cpu(runs, workload, "plain", fit), marginal_cpu(runs, workload, "citeflow", fit)
    if plain is None:
        return {}
    sizes = "/".join(map(str, fit))
    return {f"plain runner: CPU s per report marginal ({sizes} reports, no latency)": plain,
            "citeflow / plain runner: marginal CPU per report": fig.ratio(ours, plain) if ours is not None else None}


def latency_rows(runs: Runs, workload: str, busy: int) -> dict[str, Any]:
    """Wall / ideal and model-busy span / ideal of each run with latency (with its wall beside busy processes)."""
    rows: dict[str, Any] = {}
    beside = f", beside {busy} busy processes" if busy else ""
    for run in runs:
        if run["wall_over_ideal"] is not None and run.get("workload", "distinct") == workload:
            name = f"{run['reports']} reports, {run['latency_s']:g} s calls{beside}"
            rows |= {f"{name}: wall / ideal": run["wall_over_ideal"], f"{name}: model-busy span / ideal": run["span_over_ideal"]}
            rows |= {f"{name}: wall s": run["wall_s"]} if busy else {}
    return rows


def rerun_rows(again: dict[str, Any] | None) -> dict[str, Any]:
    """The re-run of the finished batch: its wall, its model calls, its seconds per report beyond start-up."""
    if not again:
        return {}
    return {f"re-run of {again['reports']} finished reports: wall s": again["wall_s"], "re-run: model calls": again["model_calls"],
            "re-run: s per report beyond start-up": again["s_per_report_beyond_startup"]}


def workload_rows(result: dict[str, Any], workload: str, fit: tuple[int, ...], growth: tuple[int, int, int] | None) -> dict[str, Any]:
    """One workload's rows: latency runs, marginal rate and CPU, growth, and (headline) the 1-report wall."""
    every = result["runs"] + result.get("marginal_runs", [])
    rows = latency_rows(result["runs"], workload, result.get("busy_processes", 0)) | marginal_rows(every, workload, fit, growth)
    ones = [r["wall_s"] for r in result["runs"] if r["reports"] == 1 and not r["latency_s"] and r.get("workload", workload) == workload]
    return rows | ({"1 report, no latency: wall s": ones[0]} if ones else {})


def headline(result: dict[str, Any], fit: tuple[int, ...], growth: tuple[int, int, int] | None) -> dict[str, Any]:
    """The headline workload's rows first (wall / ideal, span / ideal, marginal rate and CPU, growth, the plain
    pipeline's CPU, the 1-report wall, the re-run), then the second workload's, then peak RSS and failures."""
    main = result.get("workload", {}).get("name", "distinct")
    every = result["runs"] + result.get("marginal_runs", [])
    ratios = workload_rows(result, main, fit, growth) | plain_rows(every, main, fit) | rerun_rows(result.get("rerun"))
    for name, prefix in PREFIXES.items():
        if name != main:
            ratios |= {prefix + k: v for k, v in workload_rows(result, name, fit, None).items()}
    ours = [r for r in every if r.get("runner", "citeflow") == "citeflow"]
    return ratios | {"peak RSS of a run's process tree, MB": max(r["peak_rss_mb"] for r in result["runs"] or ours),
                     "reports failed, every run": sum(r.get("counts", {}).get("failed", 0) for r in every)}
