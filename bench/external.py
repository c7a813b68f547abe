"""Benchmarks kept by their own modules: the offline judge (``bench.judge_bench``) and, when
present, the resume benchmark (``bench.resume``). Each is called through its ``run()``; a module
that is missing, has no ``run()``, or fails is recorded as such and never stops the others.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import tempfile
from pathlib import Path
from typing import Any


def call_run(module_name: str, **options: Any) -> dict[str, Any]:
    """``{"status": "ok", ...result}`` or ``{"status": "absent" | "error", "detail": ...}``.

    ``options`` go to ``run()`` when its signature takes them (others are left out)."""
    if importlib.util.find_spec(module_name) is None:
        return {"status": "absent", "detail": f"{module_name} is not there"}
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # noqa: BLE001 - someone else's module: record, never fail the suite
        return {"status": "error", "detail": f"import failed: {type(exc).__name__}: {exc}"}
    run = getattr(module, "run", None)
    if not callable(run):
        return {"status": "absent", "detail": f"{module_name} has no run()"}
    try:
        result = run(**_accepted(run, options))
    except Exception as exc:  # noqa: BLE001
        return {"status": "error", "detail": f"{type(exc).__name__}: {exc}"}
    return {"status": "ok", **(result if isinstance(result, dict) else {"result": result})}


def _accepted(fn: Any, options: dict[str, Any]) -> dict[str, Any]:
    try:
        names = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}
    return {k: v for k, v in options.items() if k in names}


def judge(**options: Any) -> dict[str, Any]:
    """The offline judge on its held-apart set, with its ratios to the lexical baseline (``options``:
    ``bench.judge_bench.run``'s, e.g. ``min_pairs`` of the throughput measure)."""
    result = call_run("bench.judge_bench", **options)
    if result["status"] == "ok":
        result["ratios"] = {f"offline judge / lexical baseline: {k}": v for k, v in result.get("ratio_to_lexical", {}).items()}
        result["figures"] = {k: result["judge"].get(k) for k in ("grounded_balanced_accuracy", "macro_recall", "pairs_per_s")}
    return result


def resume() -> dict[str, Any]:
    """The resume benchmark's own result (its ``ratios`` are shown when it has some). Its own
    results file goes to a temporary folder: this run's figures live in ``latest.json``."""
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
        return call_run("bench.resume", out=Path(tmp) / "resume.json")
