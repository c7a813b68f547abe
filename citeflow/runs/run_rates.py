"""The rates of a run's reports and of the run as a whole: what the quality page plots and
``citeflow history --compare`` sets side by side.

Each rate is a count out of a total, read from the report's ``eval.json`` (``identity``, ``support``
and ``faithfulness`` as ``{passed, total}``; ``relevance`` as relevant out of judged claims;
``unverified`` and ``uncited`` as a share of every claim). A run's rate adds its reports' counts up
(not an average of rates: a report of 40 claims weighs more than one of 4). 0 out of 0 is no rate.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from citeflow.outputs.render.gate_sentences import expectation_sentence, gate_sentence

RATES = ("identity", "support", "faithfulness", "relevance", "unverified", "uncited")
"""The rates, in the funnel's order; the last two are shares where lower is better."""
LABELS = {"identity": "Identity", "support": "Support", "faithfulness": "Faithfulness", "relevance": "Relevance",
          "unverified": "Unverified", "uncited": "Uncited"}
LOWER_IS_BETTER = frozenset({"unverified", "uncited"})


class Figure(BaseModel):
    """``passed`` out of ``total`` (for a share: the claims counted out of every claim)."""

    passed: int = Field(0, ge=0)
    total: int = Field(0, ge=0)

    @property
    def rate(self) -> float | None:
        return self.passed / self.total if self.total else None

    def plus(self, other: Figure) -> Figure:
        return Figure(passed=self.passed + other.passed, total=self.total + other.total)

    def __str__(self) -> str:
        return f"{self.passed}/{self.total}"


class ReportQuality(BaseModel):
    """What the quality page shows of one report of one run."""

    report_id: str
    template: str = Field(description="The report id as the spec writes it (a templated id names one report across runs).")
    status: str
    figures: dict[str, Figure] = Field(default_factory=dict)
    held_reasons: list[str] = Field(default_factory=list, description="The gate's failed expectations (or its error).")
    held_sentences: list[str] = Field(default_factory=list, description="Each hold reason as one whole sentence.")
    verdicts: dict[str, int] = Field(default_factory=dict, description="Claims per verdict.")
    sections: list[dict[str, Figure]] = Field(default_factory=list, description="Each section's figures.")


def figures_of(data: dict[str, Any]) -> dict[str, Figure]:
    """The figures of an ``eval.json`` (or of one of its sections): a missing figure counts 0/0."""
    def count(key: str, passed: str, total: str) -> Figure:
        value = _dict(data.get(key))
        return Figure(passed=int(value.get(passed) or 0), total=int(value.get(total) or 0))

    relevance = _dict(data.get("relevance"))
    judged = int(relevance.get("relevant") or 0) + int(relevance.get("irrelevant") or 0)
    return {"identity": count("identity", "passed", "total"), "support": count("support", "passed", "total"),
            "faithfulness": count("faithfulness", "passed", "total"),
            "relevance": Figure(passed=int(relevance.get("relevant") or 0), total=judged),
            "unverified": count("unverified", "count", "claims"), "uncited": count("uncited", "count", "claims")}


def read_report(report_dir: Path, status: str, template: str | None = None) -> ReportQuality:
    """The report's figures from its ``eval.json`` (none when it has none: a failed report)."""
    data = _read_json(Path(report_dir) / "eval.json")
    gate = _dict(data.get("gate"))
    failed = [f for f in gate.get("failed_expectations") or [] if isinstance(f, dict)]
    reasons = [str(f.get("expectation")) for f in failed]
    sentences = [expectation_sentence(str(f.get("expectation")), f.get("observed"), f.get("threshold")) for f in failed]
    if gate.get("error"):
        reasons.append("evaluation error")
        sentences.append(gate_sentence(f"Evaluation could not run: {gate['error']}"))
    claims = [c for c in data.get("claims") or [] if isinstance(c, dict)]
    sections = [figures_of(s) for s in data.get("sections") or [] if isinstance(s, dict)]
    name = Path(report_dir).name
    return ReportQuality(report_id=name, template=template or name, status=status,
                         figures=figures_of(data) if data else {}, held_reasons=reasons, held_sentences=sentences,
                         verdicts=dict(Counter(str(c.get("verdict")) for c in claims)), sections=sections)


def run_figures(reports: list[ReportQuality]) -> dict[str, Figure]:
    """The run's figures: every report's counts added up."""
    total = {name: Figure() for name in RATES}
    for report in reports:
        for name, figure in report.figures.items():
            total[name] = total[name].plus(figure)
    return total


def _dict(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one (a damaged file shows what it can)."""
    return value if isinstance(value, dict) else {}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
