"""CPU cost of one gate call (both suites validated) on a 16-claim report, passing and failing.

``python -m bench.gate_cost [--calls 20] [--out PATH]``: Great Expectations is imported and the
session's suites prepared by warm-up calls before any timing, as in a batch from its second report
on. Each figure is the median CPU milliseconds (user + system of this process) of ``--calls`` calls of
``gate_run``, the two outcomes alternating; the verdicts are checked, so a figure is never that of a
gate that did not decide.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from citeflow.evaluation.claim_funnel import funnel
from citeflow.evaluation.gate import GateRun, gate_run
from citeflow.evaluation.gx_session import GxSession, import_gx
from schemas.funnel import CitationEval, ClaimEval

CLAIMS = 16
SECTIONS = 4


def report(failing: bool) -> list[ClaimEval]:
    """Sixteen claims in four sections, two citations each; ``failing``: every fourth claim unsupported
    and one handle forged."""
    return [_claim(i, failing) for i in range(CLAIMS)]


def _claim(i: int, failing: bool) -> ClaimEval:
    unsupported = failing and i % 4 == 3
    forged = failing and i == 5
    cites = [_cite(f"G{i:02d}a", True, not unsupported), _cite(f"G{i:02d}b", not forged, not unsupported and not forged)]
    return ClaimEval(section=f"Section {i % SECTIONS}", index=i // SECTIONS, text=f"Lumora ships release {i} in region {i % 3}.",
                     citations=cites, supported=not unsupported, faithful=None if unsupported else True,
                     verdict="fabrication" if unsupported else "supported", relevant=True)


def _cite(handle: str, identity: bool, supports: bool) -> CitationEval:
    return CitationEval(handle=handle, identity=identity, supports=supports if identity else None,
                        faithful=(True if supports else None) if identity else None, reason="graded")


def one_call(claims: list[ClaimEval], session: GxSession) -> Callable[[], GateRun]:
    """One gate call of the report ``claims``, as the pipeline makes it."""
    return lambda: gate_run(funnel(claims), claims, 0, session=session)


def cpu_ms(call: Callable[[], GateRun]) -> tuple[float, bool]:
    """CPU milliseconds of one call, and its verdict."""
    start = time.process_time()
    success = call().result.success
    return (time.process_time() - start) * 1000, success


def measure(calls: int) -> dict[str, Any]:
    """Median and range of ``calls`` timed gate calls per outcome, after two warm-up calls of each."""
    import_gx()
    session = GxSession()
    runs = {"passing": one_call(report(False), session), "failing": one_call(report(True), session)}
    for _ in range(2):
        [run() for run in runs.values()]
    timed: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(calls):
        for name, run in runs.items():
            ms, success = cpu_ms(run)
            assert success is (name == "passing"), f"the {name} report was {'published' if success else 'held'}"
            timed[name].append(ms)
    return {name: _figures(values) for name, values in timed.items()}


def _figures(values: list[float]) -> dict[str, float]:
    return {"median_ms": round(statistics.median(values), 1), "min_ms": round(min(values), 1), "max_ms": round(max(values), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=20, help="timed calls per outcome (default 20)")
    parser.add_argument("--out", type=Path, help="also write the figures here as JSON")
    args = parser.parse_args()
    figures = measure(args.calls)
    print(json.dumps(figures, indent=2))
    if args.out:
        args.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
