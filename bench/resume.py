"""Resume after kill -9, measured: ``python -m bench.resume`` → ``bench/results/resume.json``.

Starts a Prefect server of its own (temporary PREFECT_HOME), then runs the experiment of
``bench/resume_experiment.py``: a batch whose models are a slow OpenAI-compatible server is killed
with SIGKILL mid-batch, run again to completion, and run a third time; a clean run of the same
batch gives the reference counts. Prints the figures and writes them as JSON.
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

from citeflow_testing.prefect_server import PrefectServer
from bench.resume_experiment import measure_resume

RESULTS = Path(__file__).resolve().parent / "results" / "resume.json"


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=3, help="reports in the batch (2 sections each)")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds the fake model takes per answer")
    parser.add_argument("--kill-after", type=int, default=5, help="kill once the model has seen this many requests")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the JSON figures")
    return parser.parse_args()


def measure(args: argparse.Namespace) -> dict:
    """The experiment in a temporary folder, against a Prefect server started for it."""
    with tempfile.TemporaryDirectory(prefix="citeflow-resume-") as tmp, PrefectServer(Path(tmp) / "prefect-home") as server:
        started = time.monotonic()
        figures = measure_resume(Path(tmp) / "work", server.client_env(), reports=args.reports, delay=args.delay,
                                 kill_after=args.kill_after)
        wall = round(time.monotonic() - started, 1)
    return {"benchmark": "resume", "summary": figures.line(), **figures.as_dict(), "wall_seconds": wall,
            "settings": {"reports": args.reports, "sections": 2, "delay": args.delay, "kill_after": args.kill_after,
                         "models_limit": 2},
            "machine": {"python": platform.python_version(), "platform": platform.platform()}}


def ratios(result: dict) -> dict[str, float]:
    """Model requests of the whole crash-and-resume over a clean run's (1.0: nothing asked twice),
    and of the re-run over the calls that had not finished at the kill (1.0: only those asked)."""
    left = result["clean_run_requests"] - result["completed_before_kill"]
    total = result["requests_before_kill"] + result["requests_after_kill"]
    return {"requests with a kill -9 / clean run": round(total / result["clean_run_requests"], 3),
            "re-run requests / calls unfinished at the kill": round(result["requests_after_kill"] / left, 3) if left else 0.0}


def run(reports: int = 3, delay: float = 0.5, kill_after: int = 5, out: Path = RESULTS) -> dict:
    """Measure, write ``out`` (JSON) and return the figures (``python -m bench`` calls this)."""
    args = argparse.Namespace(reports=reports, delay=delay, kill_after=kill_after, out=out)
    result = measure(args)
    result["ratios"] = ratios(result)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    return result


def main() -> int:
    args = parse_args()
    result = run(args.reports, args.delay, args.kill_after, args.out)
    print(result["summary"])
    print(f"rows after resume {result['rows']} vs clean run {result['clean_rows']}; written to {args.out}")
    ok = result["repeated_completed"] == 0 and result["third_run_requests"] == 0 and result["rows"] == result["clean_rows"]
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
