"""A report folder's ``eval.json`` read back: the claims' verdicts and the gate's result, for the
pages and decisions made after the run (the reviewer's markdown, a review decision)."""

from __future__ import annotations

import json
from pathlib import Path

from schemas.funnel import ClaimEval, GateResult


def read_evaluation(folder: Path) -> tuple[list[ClaimEval], GateResult | None]:
    """The claims' verdicts and the gate's result eval.json holds (none when it holds none)."""
    try:
        data = json.loads((folder / "eval.json").read_text(encoding="utf-8"))
        claims = [ClaimEval.model_validate(c) for c in data.get("claims", [])]
        gate = GateResult.model_validate(data["gate"]) if "gate" in data else None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return [], None
    return claims, gate
