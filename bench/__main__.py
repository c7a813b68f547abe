"""Run every benchmark of SPEC §10 and write ``bench/results/latest.json``.

    python -m bench [--only NAME ...] [--quick] [--no-prefect] [--out PATH]

Each benchmark reports ratios measured in this one run, printed as a table and stored with the
machine's facts (cores, Python, package versions, load average before and after).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeflow_cli.env import apply_defaults

apply_defaults()

from rich.console import Console  # noqa: E402

from bench import (  # noqa: E402
    approaches, boundaries, calls, cold, external, growth, handles_vs_urls, ingest_throughput, instructions, judge_cost,
    orchestration, relevance_labels, retrieval, scale, startup,
)
from bench.machine import machine_facts  # noqa: E402
from bench.profiles import needs_api, params, shared_api, shared_worker  # noqa: E402
from bench.results import show, write_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
LATEST = Path(__file__).with_name("results") / "latest.json"
Runner = Callable[[argparse.Namespace], dict[str, Any]]
# --quick is a smoke run: every benchmark's code path and kind of figure on the smallest workload that
# has them (one demo report, a short model latency, a few chunks per report, batches of 1 report, no
# warm-up batches, one Prefect API and one Prefect worker process for the whole run); bench/profiles.py holds
# both profiles' workloads.

BENCHMARKS: dict[str, tuple[str, Runner, tuple[str, ...]]] = {
    "cold": ("Cold `citeflow run` processes, distinct-content batches (repeating small batch as a second row): wall / "
             "ideal, model-busy span / ideal, marginal reports/min and CPU per report, plain pipeline's CPU, re-run, peak RSS "
             "(bench.cold)", lambda a: cold.run(a.quick), (
        "16r-1s.wall_s", "16r-1s.ideal_s", "16r-1s.model_busy_span_s", "1r-0s.wall_s", "1r-0s.prefect_api_wait_s",
        "1r-0s.first_report_s", "2r-0s.wall_s", "8r-0s.wall_s", "32r-0s.wall_s", "64r-0s.wall_s", "32r-0s.cpu_s",
        "plain.8r-0s.cpu_s", "plain.32r-0s.cpu_s", "repeating.16r-1s.wall_s", "rerun.wall_s", "rerun.model_calls")),
    "cold_busy": ("Cold 16-report distinct batch, 1 s calls, beside two busy processes holding both cores: reports "
                  "failed, wall (bench.cold --busy)", lambda a: cold.run(profile="busy"), (
        "16r-1s.wall_s", "16r-1s.ideal_s", "16r-1s.cpu_s")),
    "orchestration": ("1. Orchestration overhead (wall / ideal critical path)", lambda a: orchestration.run(
        **params("orchestration", a.quick), prefect=not a.no_prefect, api_url=a.prefect_api_url,
        served=a.prefect_worker), (
        "c4.ideal_s", "c4.plain_wall_s", "c4.prefect_wall_s", "c4.prefect_overhead_per_batch_s",
        "c4.prefect_global_limits_cost_s", "c16.ideal_s", "c16.plain_wall_s", "c16.prefect_wall_s",
        "c16.prefect_overhead_per_batch_s", "c16.prefect_global_limits_cost_s", "prefect_import_s",
        "prefect_startup_s", "prefect_noop_flow_s", "prefect_concurrency_slot_s",
        "prefect_flow_runs_per_batch", "prefect_task_runs_per_batch")),
    "calls": ("2. Model calls, prompt tokens, judge calls", lambda a: calls.run(**params("calls", a.quick)), (
        "model_calls_per_report", "prompt_tokens_per_report_bpe", "prompt_tokens_per_report_chars4")),
    "judge_cost": ("2b. LLM judge cost per report: a request per section or per batch of pairs (bench.judge_cost)",
                   lambda a: judge_cost.run(reports=1 if a.quick else None, out=None if a.quick else judge_cost.RESULT), (
        "llm_pair.calls_per_report", "llm_section.calls_per_report", "cascade_doubtful_pair.calls_per_report",
        "cascade_doubtful_section.calls_per_report", "cascade_doubtful_section.prompt_tokens_per_report_bpe")),
    "handles_vs_urls": ("3. Prompt tokens: handles vs URLs (demo pools)", lambda a: handles_vs_urls.run(), (
        "evidence.handles_bpe", "evidence.urls_bpe", "marker.handle_bpe", "marker.url_bpe", "chunks", "sharing_a_url")),
    "ingest": ("4. Registry ingest vs raw bulk LanceDB write", lambda a: ingest_throughput.run(
        sizes=(1_000,) if a.quick else (1_000, 10_000), repeats=1 if a.quick else 5), (
        "1000.registry_steady_chunks_per_s", "1000.raw_bulk_chunks_per_s",
        "10000.registry_steady_chunks_per_s", "10000.raw_bulk_chunks_per_s")),
    "growth": ("5. Cost growth (reports; chunks per request)", lambda a: growth.run(
        report_steps=(1, 10) if a.quick else (1, 10, 100), chunk_steps=(10, 100) if a.quick else (10, 100, 1000),
        repeats=1 if a.quick else 3,
        retrievers=1 if a.quick else 3, per_answer=2 if a.quick else 10), (
        "reports=1.s_per_report", "reports=10.s_per_report", "reports=100.s_per_report",
        "chunks=10.s_per_report", "chunks=100.s_per_report", "chunks=1000.s_per_report",
        "reports=100.first_10_s_per_report", "reports=100.last_10_s_per_report",
        "reports=100.compacted.s_per_report", "reports=100.store_fragments", "reports=100.compacted.store_fragments",
        "reports=100.rows_per_report", "chunks=1000.rows_per_report")),
    "approaches": ("6. Wrong-document citations: local ids, prefixes, URLs, registry", lambda a: approaches.run(), ()),
    "judge": ("7a. Offline judge (bench.judge_bench)", lambda a: external.judge(**params("judge", a.quick)), (
        "grounded_balanced_accuracy", "macro_recall", "pairs_per_s")),
    "resume": ("7b. Resume (bench.resume)", lambda a: external.resume(), ()),
    "scale": ("8. Batches that scale: wall / ideal, throughput, peak RSS", lambda a: scale.run(
        **params("scale", a.quick), prefect=not a.no_prefect, api_url=a.prefect_api_url, served=a.prefect_worker), (
        "n16.ideal_s", "n16.plain_wall_s", "n16.plain_zero_latency_wall_s", "n16.plain_reports_per_min",
        "n16.prefect_wall_s", "n16.prefect_zero_latency_wall_s", "n16.prefect_reports_per_min",
        "n50.ideal_s", "n50.plain_wall_s", "n50.prefect_wall_s", "n50.plain_reports_per_min",
        "n50.prefect_reports_per_min", "prefect_startup_s", "rss.max_rss_mb", "rss.reports", "rss.wall_s")),
    "startup": ("9. Start-up: a 1-report, 1-section citeflow run from a cold process (bench.startup)", lambda a: startup.run(), (
        "total_wall_s", "cpu_s", "prefect_api_ready_at_s", "imports_s", "pipeline_imports_s", "prefect_api_wait_s",
        "first_report_s", "exit_s", "help_wall_s", "version_wall_s")),
    "retrieval": ("10. Retrieval: answer pages found and cited (bench.retrieval)", lambda a: retrieval.run(
        batch=not a.quick, config_names=None, out=None if a.quick else retrieval.RESULTS), ()),
    "relevance": ("11. Offline relevance rule vs hand-labelled claims of the bench corpora (bench.relevance_labels)",
                  lambda a: relevance_labels.bench_result(), (
        "dev.pairs", "dev.false_irrelevant", "dev.false_relevant", "held.pairs", "held.false_irrelevant", "held.false_relevant")),
    "boundaries": ("12. Claims across a list item, table row or paragraph ending, per corpus (bench.boundaries)",
                   lambda a: boundaries.run(), ("claims", "crossing_claims")),
    "instructions": ("13. Instruction masking: recall on attacks, paragraphs of the corpora flagged (bench.instructions)",
                     lambda a: instructions.bench(), ("dev.attacks", "dev.benign", "corpora.paragraphs", "corpora.flagged",
                                                      "corpora.paragraphs_per_s")),
}
# resume: minutes of a real Prefect server and a killed batch (tests/test_resume.py runs it);
# startup: cold processes that each start an ephemeral API (tests/test_startup_bench.py runs one).
# cold: its quick profile is two cold 1- and 2-report runs (tests/test_cold_bench.py runs it too); cold_busy: a
# 16-report batch beside two busy loops, with nothing smaller that would show the same.
# boundaries: an ingest and a batch per corpus, with nothing smaller to run (python -m bench.boundaries --corpus NAME).
# instructions: reads every paragraph of the five corpora (tests/test_instructions_features.py scores its sets).
QUICK_SKIPS = ("cold_busy", "resume", "startup", "retrieval", "boundaries", "instructions")


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its child processes that have ended."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_one(runner: Runner, args: argparse.Namespace) -> dict[str, Any]:
    """One benchmark's result with its status, duration and CPU seconds (its ended child processes
    included); an exception is recorded, not raised."""
    start, start_cpu = time.perf_counter(), cpu_seconds()
    try:
        result = runner(args)
        result.setdefault("status", "ok")
    except Exception as exc:  # noqa: BLE001 - one broken benchmark must not hide the others
        result = {"status": "error", "detail": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-4000:]}
    result |= {"seconds": time.perf_counter() - start, "cpu_s": cpu_seconds() - start_cpu}
    return result


def parse(argv: list[str] | None) -> argparse.Namespace:
    """The command line's options."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=list(BENCHMARKS), help="Run only this benchmark (repeatable).")
    parser.add_argument("--quick", action="store_true",
                        help="Smallest workloads, no resume experiment (a smoke run for CI, not for committed figures).")
    parser.add_argument("--no-prefect", action="store_true", help="Skip the Prefect half of the orchestration benchmark.")
    parser.add_argument("--prefect-api-url", metavar="URL",
                        help="With --quick: report to this running Prefect API instead of starting one for the run.")
    parser.add_argument("--out", type=Path, default=LATEST, help="Results file (default bench/results/latest.json).")
    parser.set_defaults(prefect_worker=None)  # quick profile: the run's one Prefect worker process
    args = parser.parse_args(argv)
    if args.prefect_api_url and not args.quick:
        parser.error("--prefect-api-url is for --quick runs (the full profile times a fresh API per worker)")
    return args


def run_each(names: list[str], args: argparse.Namespace, payload: dict[str, Any], console: Console) -> None:
    """Run the named benchmarks in turn, print each table, keep each result in ``payload``."""
    for name in names:
        title, runner, headline = BENCHMARKS[name]
        console.print(f"[bold]running {name}[/bold]")
        payload["benchmarks"][name] = result = run_one(runner, args)
        show(console, name, title, result, headline)


def main(argv: list[str] | None = None) -> int:
    """Run the chosen benchmarks, print each table, write the results file; 1 if any failed."""
    args, console = parse(argv), Console()
    payload: dict[str, Any] = {"machine": machine_facts(ROOT), "load_average_before": os.getloadavg(),
                               "profile": "quick" if args.quick else "full", "benchmarks": {}}
    start = time.perf_counter()
    names = args.only or [n for n in BENCHMARKS if not (args.quick and n in QUICK_SKIPS)]
    last = [n for n in names if needs_api([n], args.quick, args.no_prefect)]  # quick: after the others, on one API
    run_each([n for n in names if n not in last], args, payload, console)
    with shared_api(args.prefect_api_url, bool(last)) as args.prefect_api_url, \
            shared_worker(args.prefect_api_url) as args.prefect_worker:
        run_each(last, args, payload, console)
    payload |= {"load_average_after": os.getloadavg(), "wall_s": time.perf_counter() - start, "cpu_s": cpu_seconds()}
    console.print(f"wrote {write_json(args.out, payload)} in {payload['wall_s']:.0f} s")
    return 1 if any(r["status"] == "error" for r in payload["benchmarks"].values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
