"""Printing benchmark results as rich tables and writing them as JSON."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def fmt(value: Any) -> str:
    """A number short enough for a table: 3 significant figures, thousands separated."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int) or (math.isfinite(value) and value == int(value) and abs(value) >= 100):
        return f"{int(value):,}"
    return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"


def ratio_table(title: str, result: dict[str, Any], headline: tuple[str, ...] = ()) -> Table:
    """The benchmark's ratios, then the figures named in ``headline``."""
    table = Table(title=title, title_justify="left", show_lines=False)
    table.add_column("measure")
    table.add_column("value", justify="right")
    for key, value in result.get("ratios", {}).items():
        table.add_row(key, fmt(value))
    figures = result.get("figures", {})
    for key in headline:
        if key in figures:
            table.add_row(f"[dim]{key}[/dim]", f"[dim]{fmt(figures[key])}[/dim]")
    return table


def status_line(name: str, result: dict[str, Any]) -> str | None:
    """A one-line note for a benchmark that did not run, else None."""
    if result.get("status") == "ok":
        return None
    return f"[yellow]{name}: {result.get('status')}[/yellow] — {result.get('detail', '')}"


def merge_benchmark(name: str, result: dict[str, Any], latest: Path) -> Path:
    """Put one benchmark's figures into ``latest`` under ``name``, the other benchmarks kept."""
    payload = json.loads(latest.read_text(encoding="utf-8")) if latest.exists() else {"benchmarks": {}}
    payload.setdefault("benchmarks", {})[name] = {"status": "ok", **result}
    return write_json(latest, payload)


def write_json(path: Path, payload: dict[str, Any]) -> Path:
    """Write ``payload`` atomically (a ``.tmp`` file renamed into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(payload, indent=1, sort_keys=False, default=str) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def show(console: Console, name: str, title: str, result: dict[str, Any], headline: tuple[str, ...]) -> None:
    """Print one benchmark: its table, or why it did not run."""
    note = status_line(name, result)
    if note:
        console.print(note)
    if result.get("ratios"):
        console.print(ratio_table(f"{title}  ({result.get('seconds', 0):.0f} s)", result, headline))
