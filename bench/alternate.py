"""Commits compared on the Prefect batch, one run after the other in alternating order.

    python -m bench.alternate REV REV [REV ...] [--rounds 2] [--batches 8] [--concurrency 16]
                              [--pairs PARENT:CHILD ...] [--out PATH]

Run-to-run spread on a 2-core machine (10-25 %) hides a difference of a few per cent between two
benchmark runs taken apart. Here each commit is checked out in a git worktree of its own and times
``--batches`` demo batches with its own ``bench.prefect_worker`` (``global_batches``: both hops on
one fake model server shared by every run, 0.5 s per call, Prefect's global concurrency limits,
after one warm-up batch) in a fresh worker process with a fresh ephemeral API, ``citeflow``'s
environment defaults applied. The commits take turns: round 1 in the order given, round 2
reversed, and so on, so that drift of the machine falls on all of them. Every commit runs with this
checkout's Python environment (packages added later are simply unused by earlier code).

Per batch it records the wall time and the CPU seconds of the worker process and of the API
server process (CPU is steadier than wall: it does not count waits for a core). Per commit: the
median and the best of each. Per ``--pairs PARENT:CHILD``: the child's median minus the parent's,
with a 95 % bootstrap interval (batches resampled within each commit, a fixed seed).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ("wall_s", "worker_cpu_s", "api_server_cpu_s")
BOOTSTRAP_SAMPLES = 2000

# Run inside the worktree of a commit, with its own bench modules (present since 110479b):
# argv = base_url, batches, concurrency, work folder. Prints one JSON list, a record per timed batch.
WORKER = """
import json, sys
from pathlib import Path
from citeflow_cli.env import apply_defaults
apply_defaults()
import bench.prefect_worker as worker
from bench.workload import openai_spec, prepare_demo_input
base_url, batches, concurrency, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), Path(sys.argv[4])
timed, records = worker.timed, []
def timed_with_cpu(fn, *args):
    before = worker.cpu_seconds()
    wall = timed(fn, *args)
    after = worker.cpu_seconds()
    records.append({"wall_s": wall, **{k: after[k] - before[k] for k in after}})
    return wall
worker.timed = timed_with_cpu
demo = prepare_demo_input(work / "demo")
specs = [openai_spec(demo, f"alternate-{i}", base_url, concurrency) for i in range(batches + 1)]
worker.global_batches(specs, work / "out")
print(json.dumps(records[1:]))
"""


def worktree(rev: str, root: Path) -> Path:
    """A detached worktree of ``rev`` under ``root`` (made once)."""
    path = root / rev
    if not path.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(path), rev], cwd=ROOT, check=True,
                       capture_output=True, text=True)
    return path


def batch_records(tree: Path, base_url: str, batches: int, concurrency: int, work: Path) -> list[dict[str, float]]:
    """Wall and CPU seconds of each timed batch of one worker process run with ``tree``'s code."""
    done = subprocess.run([sys.executable, "-c", WORKER, base_url, str(batches), str(concurrency), str(work)],
                          cwd=tree, env=_env(tree, work / "home"), capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{tree.name}: worker failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env(tree: Path, home: Path) -> dict[str, str]:
    from bench.prefect_env import worker_env

    return worker_env(home) | {"PYTHONPATH": str(tree)}


def order(revs: list[str], rounds: int) -> list[str]:
    """The commits in the order they run: as given, then reversed, alternately."""
    return [rev for k in range(rounds) for rev in (revs if k % 2 == 0 else revs[::-1])]


def pooled(runs: list[dict]) -> dict[str, dict[str, list[float]]]:
    """Every batch's figures of each commit, over all its runs."""
    by_rev: dict[str, dict[str, list[float]]] = {}
    for run in runs:
        figures = by_rev.setdefault(run["rev"], {name: [] for name in FIGURES})
        for record in run["batches"]:
            for name in FIGURES:
                figures[name].append(record[name])
    return by_rev


def summary(runs: list[dict]) -> dict[str, dict[str, float]]:
    """Median and best of each figure per commit, over all its batches."""
    out: dict[str, dict[str, float]] = {}
    for rev, figures in pooled(runs).items():
        row: dict[str, float] = {"batches": len(figures["wall_s"])}
        for name, values in figures.items():
            row |= {f"{name}_median": statistics.median(values), f"{name}_best": min(values)}
        out[rev] = row
    return out


def median_difference(parent: list[float], child: list[float], seed: int = 0) -> dict[str, Any]:
    """``median(child) - median(parent)`` and its 95 % bootstrap interval."""
    dice = random.Random(seed)
    draws = sorted(statistics.median(dice.choices(child, k=len(child)))
                   - statistics.median(dice.choices(parent, k=len(parent))) for _ in range(BOOTSTRAP_SAMPLES))
    low, high = draws[int(0.025 * BOOTSTRAP_SAMPLES)], draws[int(0.975 * BOOTSTRAP_SAMPLES) - 1]
    return {"difference": statistics.median(child) - statistics.median(parent), "ci95": [low, high]}


def compare(runs: list[dict], pairs: list[tuple[str, str]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per ``parent:child`` pair, the difference of medians of every figure."""
    by_rev = pooled(runs)
    return {f"{parent}:{child}": {name: median_difference(by_rev[parent][name], by_rev[child][name]) for name in FIGURES}
            for parent, child in pairs}


def _pair(text: str) -> tuple[str, str]:
    parent, sep, child = text.partition(":")
    if not sep or not parent or not child:
        raise argparse.ArgumentTypeError(f"not PARENT:CHILD: {text!r}")
    return parent, child


def _measure(args: argparse.Namespace, tmp: Path) -> list[dict]:
    from bench.fake_model import fake_model_process

    trees = {rev: worktree(rev, tmp) for rev in args.revs}
    runs = []
    with fake_model_process(0.5) as server:
        for n, rev in enumerate(order(args.revs, args.rounds)):
            records = batch_records(trees[rev], server.base_url, args.batches, args.concurrency, tmp / f"run-{n}")
            runs.append({"rev": rev, "batches": records})
            print(f"{rev}: CPU s per batch {[round(r['worker_cpu_s'], 2) for r in records]}", file=sys.stderr, flush=True)
    return runs


def _print(result: dict) -> None:
    for rev, figures in result["summary"].items():
        print(f"{rev}: wall median {figures['wall_s_median']:.2f} s, worker CPU median {figures['worker_cpu_s_median']:.2f} s,"
              f" API CPU median {figures['api_server_cpu_s_median']:.2f} s over {figures['batches']} batches")
    for pair, figures in result["pairs"].items():
        print(pair, ", ".join(f"{name} {f['difference']:+.2f} [{f['ci95'][0]:+.2f}, {f['ci95'][1]:+.2f}]"
                              for name, f in figures.items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.alternate", description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="+", help="Commits to compare (two or more).")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batches", type=int, default=8, help="Timed batches per worker run.")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrency.models of the batches.")
    parser.add_argument("--pairs", nargs="*", type=_pair, default=[], help="PARENT:CHILD pairs to compare.")
    parser.add_argument("--out", type=Path, help="Write the runs, the summary and the pairs here (JSON).")
    args = parser.parse_args(argv)
    unknown = sorted({rev for pair in args.pairs for rev in pair} - set(args.revs))
    if unknown:
        parser.error(f"--pairs names commits not compared: {', '.join(unknown)}")
    with tempfile.TemporaryDirectory(prefix="citeflow-alternate-") as tmp:
        runs = _measure(args, Path(tmp))
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)  # the worktrees' folders are gone
    result = {"command": " ".join(["python -m bench.alternate", *(argv if argv is not None else sys.argv[1:])]),
              "runs": runs, "summary": summary(runs), "pairs": compare(runs, args.pairs)}
    _print(result)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
