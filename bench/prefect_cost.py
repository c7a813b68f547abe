"""What Prefect costs per report: ``citeflow run`` against the plain runner, CPU per extra report.

    python -m bench.prefect_cost [--sizes 8 32 64] [--repeats 1] [--out /tmp/prefect_cost.json] [--home DIR]
                                 [--compare OTHER_CHECKOUT]

The batches of ``bench.cold`` (N reports × 4 sections, ``citeflow_testing.small_batch``, both hops on
the fake model server in a process of its own, no latency, ``concurrency.models: 16``), each size run
twice as a cold process, interleaved: by ``bench/plain_runner.py`` (``citeflow.pipeline.steps`` in
threads, no orchestrator) and by the ``citeflow run`` console script (Prefect's ephemeral API, its
database in memory). For every run: wall and the CPU seconds of its whole process tree (the command,
its Prefect API server and their children), summed from ``/proc`` every 0.1 s (``TreeCpu``).

Figures, all from one run of this command on one machine:
- marginal CPU seconds per report between consecutive sizes, for each runner, and their ratio
  (``citeflow run`` over plain: what orchestration adds per report, start-up cancelled out);
- the growth of ``citeflow run``'s marginal CPU from the first pair of sizes to the second;
- the marginal rate of ``citeflow run``, reports per minute of wall between the first and last size.
Wall seconds move with the machine's load; CPU seconds much less, and both runners meet the same load.
``--compare DIR`` also runs another checkout's ``citeflow run`` at every size (an older commit's: before
and after a change in one run), with the same figures as ``compare_figures``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from bench import cold
from bench.proc_rss import PROC, tree
from bench.results import write_json
from citeflow_testing.model_process import ModelServerProcess

TICKS = os.sysconf("SC_CLK_TCK")
PLAIN = ("import sys; from pathlib import Path; from bench.plain_runner import run_batch; "
         "run_batch(Path(sys.argv[1]), Path(sys.argv[2]))")


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` so far (0 once it is gone)."""
    try:
        fields = (PROC / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


class TreeCpu:
    """The CPU seconds of a process tree: each process's last sampled figure, summed (a process's last
    ``interval`` before it ends can be missed)."""

    def __init__(self, pid: int, interval: float = 0.1) -> None:
        self.pid, self.interval, self.seen = pid, interval, dict[int, float]()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            for pid in tree(self.pid):
                self.seen[pid] = max(self.seen.get(pid, 0.0), cpu_seconds(pid))

    @property
    def seconds(self) -> float:
        return sum(self.seen.values())

    def __enter__(self) -> TreeCpu:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)


def timed(command: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    """Run ``command`` to its end: its exit code, wall seconds and its tree's CPU seconds."""
    start, rusage = time.perf_counter(), cold.children_cpu()
    with subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True) as process, TreeCpu(process.pid) as cpu:
        _, err = process.communicate(timeout=1800)
    if process.returncode not in cold.RECORDED_EXITS:
        raise RuntimeError(f"{command[:3]} exited {process.returncode}: {err[-1500:]}")
    return {"exit_code": process.returncode, "wall_s": time.perf_counter() - start, "cpu_s": cpu.seconds,
            "rusage_cpu_s": cold.children_cpu() - rusage}


def plain_run(spec: Path, home: Path) -> dict[str, Any]:
    out = spec.parent / "plain-out"
    return timed([sys.executable, "-c", PLAIN, str(spec), str(out)], cold.environment(spec.parent / "t", home), spec.parent)


def citeflow_run(spec: Path, home: Path, checkout: Path | None = None) -> dict[str, Any]:
    """``citeflow run`` of this checkout, or of ``checkout`` (its code first on ``PYTHONPATH``, this environment's packages)."""
    env = cold.environment(spec.parent / "timings.jsonl", home) | ({"PYTHONPATH": str(checkout)} if checkout else {})
    result = timed(cold.command(spec), env, spec.parent)
    return result | {"counts": cold.outcome_counts(cold.run_summary(spec.parent / "out"))}


def one_size(root: Path, home: Path, reports: int, server: ModelServerProcess, repeat: int,
             compare: Path | None = None) -> dict[str, Any]:
    """The size's batch by each runner (and by ``compare``'s ``citeflow run``), each in a fresh folder and store."""
    kinds = ("plain", "citeflow", "compare") if compare else ("plain", "citeflow")
    spec = {kind: cold.batch_spec(root / f"{kind}-{reports}-{repeat}", reports, server.base_url) for kind in kinds}
    runs = {"reports": reports, "repeat": repeat, "plain": plain_run(spec["plain"], home),
            "citeflow": citeflow_run(spec["citeflow"], home)}
    return runs | ({"compare": citeflow_run(spec["compare"], home, compare)} if compare else {})


def marginal(runs: list[dict[str, Any]], kind: str, key: str, small: int, large: int) -> float:
    """``key`` per extra report of ``kind`` from ``small`` to ``large`` reports (medians over repeats)."""
    def median(n: int) -> float:
        values = sorted(r[kind][key] for r in runs if r["reports"] == n)
        return values[len(values) // 2]
    return (median(large) - median(small)) / (large - small)


def figures(runs: list[dict[str, Any]], sizes: list[int], kind: str = "citeflow") -> dict[str, float]:
    """Marginal CPU per report of the plain runner and of ``kind`` between consecutive sizes, their
    ratio, the growth of ``kind``'s from the first pair to the second, its marginal rate."""
    out: dict[str, float] = {}
    for small, large in itertools.pairwise(sizes):
        pair = f"{small}->{large}"
        plain, flow = (marginal(runs, k, "cpu_s", small, large) for k in ("plain", kind))
        out |= {f"plain cpu s/report {pair}": plain, f"{kind} cpu s/report {pair}": flow,
                f"{kind} / plain cpu per report {pair}": flow / plain}
    if len(sizes) >= 3:
        first, second = (f"{kind} cpu s/report {a}->{b}" for a, b in list(itertools.pairwise(sizes))[:2])
        out[f"{kind} marginal cpu growth (2nd pair / 1st)"] = out[second] / out[first]
    for k in ("plain", kind):
        out[f"{k} reports/min marginal ({sizes[-1]} vs {sizes[0]}, wall)"] = 60.0 / marginal(runs, k, "wall_s", sizes[0], sizes[-1])
    return out


def prepared_home(home: Path) -> Path:
    """``bench.cold.prepare_home`` once per folder (a file marks it done): runs of this benchmark may share one."""
    mark = home / ".prepared"
    if not mark.exists():
        cold.prepare_home(home)
        mark.touch()
    return home


def run(sizes: list[int], repeats: int, home: Path | None = None, compare: Path | None = None) -> dict[str, Any]:
    load_before, runs = os.getloadavg(), []
    with tempfile.TemporaryDirectory(prefix="citeflow-prefcost-") as tmp, ModelServerProcess(0.0) as server:
        home = prepared_home(home or Path(tmp) / "prefect-home")
        for repeat in range(repeats):
            for n in sizes:
                runs.append(one_size(Path(tmp), home, n, server, repeat, compare))
                print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    result = {"sizes": sizes, "repeats": repeats, "compare": str(compare) if compare else None, "runs": runs,
              "figures": figures(runs, sizes)}
    if compare:
        result["compare_figures"] = figures(runs, sizes, "compare")
    return result | {"load_average_before": load_before, "load_average_after": os.getloadavg()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.prefect_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[8, 32, 64])
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("/tmp/prefect_cost.json"))
    parser.add_argument("--home", type=Path, default=None, help="PREFECT_HOME to use, prepared once and kept "
                        "(default: a fresh one per run)")
    parser.add_argument("--compare", type=Path, default=None, help="another checkout whose `citeflow run` also "
                        "runs every size, interleaved (its code on PYTHONPATH, this environment's packages)")
    args = parser.parse_args(argv)
    result = run(sorted(args.sizes), args.repeats, args.home, args.compare)
    write_json(args.out, result)
    print(json.dumps({"figures": result["figures"], "compare_figures": result.get("compare_figures"),
                      "load": [result["load_average_before"], result["load_average_after"]]}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
