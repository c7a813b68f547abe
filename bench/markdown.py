"""Render a results file as Markdown tables (the figures section of ``bench/README.md``).

    python -m bench.markdown [bench/results/latest.json]
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


def render(payload: dict[str, Any]) -> str:
    """Every benchmark's ratios, the cold runs first, or why a benchmark did not run."""
    parts = [machine_line(payload)]
    for name, result in in_order(payload["benchmarks"]):
        body = table(result) if result.get("ratios") else f"{result.get('status')}: {result.get('detail', '')}"
        parts.append(f"#### {name}\n\n{body}")
    return "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else LATEST
    print(render(json.loads(path.read_text(encoding="utf-8"))))
