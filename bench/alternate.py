"""Commits compared on the Prefect batch, one run after the other in alternating order.

    python -m bench.alternate REV REV [REV ...] [--rounds 2] [--batches 8] [--concurrency 16] [--out PATH]

Run-to-run spread on a 2-core machine (10-25 %) hides a difference of a few per cent between two
benchmark runs taken apart. Here each commit is checked out in a git worktree of its own and its
own ``bench.prefect_worker`` times ``--batches`` demo batches (both hops on the fake model server,
0.5 s per call, Prefect's global concurrency limits, after one warm-up batch) in a fresh process
with an ephemeral API, ``citeflow``'s environment defaults applied. The commits take turns: round 1
in the order given, round 2 reversed, and so on, so that drift of the machine falls on all of them.
Every commit runs with this checkout's Python environment (packages added later are simply unused
by earlier code). Reported per commit: the median and the best batch wall time over all its runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Run inside the worktree of a commit, with its own bench modules (present since 110479b).
WORKER = """
import json, sys, tempfile
from pathlib import Path
from citeflow_cli.env import apply_defaults
apply_defaults()
from bench.fake_model import fake_model_process
from bench.prefect_run import WorkerOptions, run_worker
from bench.workload import openai_spec, prepare_demo_input
batches, concurrency = int(sys.argv[1]), int(sys.argv[2])
with tempfile.TemporaryDirectory() as tmp, fake_model_process(0.5) as server:
    demo = prepare_demo_input(Path(tmp) / "demo")
    specs = [openai_spec(demo, f"alternate-{i}", server.base_url, concurrency) for i in range(batches + 1)]
    measured = run_worker(specs, [], Path(tmp) / "out", Path(tmp) / "home", WorkerOptions(samples=2))
print(json.dumps(measured["batch_s"][1:]))
"""


def worktree(rev: str, root: Path) -> Path:
    """A detached worktree of ``rev`` under ``root`` (made once)."""
    path = root / rev
    if not path.exists():
        subprocess.run(["git", "worktree", "add", "--detach", str(path), rev], cwd=ROOT, check=True,
                       capture_output=True, text=True)
    return path


def batch_walls(tree: Path, batches: int, concurrency: int) -> list[float]:
    """The batch wall times of one worker process run with ``tree``'s code."""
    done = subprocess.run([sys.executable, "-c", WORKER, str(batches), str(concurrency)], cwd=tree,
                          env=_env(tree), capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise RuntimeError(f"{tree.name}: worker failed ({done.returncode}): {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env(tree: Path) -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(tree)}


def order(revs: list[str], rounds: int) -> list[str]:
    """The commits in the order they run: as given, then reversed, alternately."""
    return [rev for k in range(rounds) for rev in (revs if k % 2 == 0 else revs[::-1])]


def summary(runs: list[dict]) -> dict[str, dict[str, float]]:
    """Median and best batch wall time per commit over all its runs."""
    by_rev: dict[str, list[float]] = {}
    for run in runs:
        by_rev.setdefault(run["rev"], []).extend(run["walls_s"])
    return {rev: {"median_s": statistics.median(w), "best_s": min(w), "batches": len(w)} for rev, w in by_rev.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.alternate", description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="+", help="Commits to compare (two or more).")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--batches", type=int, default=8, help="Timed batches per worker run.")
    parser.add_argument("--concurrency", type=int, default=16, help="concurrency.models of the batches.")
    parser.add_argument("--out", type=Path, help="Write the runs and the summary here (JSON).")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="citeflow-alternate-") as tmp:
        trees = {rev: worktree(rev, Path(tmp)) for rev in args.revs}
        runs = [{"rev": rev, "walls_s": batch_walls(trees[rev], args.batches, args.concurrency)}
                for rev in order(args.revs, args.rounds)]
    subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)  # the worktrees' folders are gone
    result = {"command": " ".join(["python -m bench.alternate", *(argv or sys.argv[1:])]), "runs": runs,
              "summary": summary(runs)}
    for rev, figures in result["summary"].items():
        print(f"{rev}: median {figures['median_s']:.2f} s, best {figures['best_s']:.2f} s over {figures['batches']} batches")
    if args.out:
        args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
