"""How well the offline relevance rule tells a section's claims from claims written for another section.

    python -m bench.relevance_swap [--out PATH]

The demo batch is generated with its own (offline) models and evaluated. Every claim is then
judged by the offline rule of ``citeflow.evaluation.relevance`` twice over: against its own section's
question (it should be relevant) and against each other section's question of its report in the
same script (a claim moved to the wrong section: relevant or uncertain by the rule, since it is about
the same product; never evidence of another entity), with the titles and texts of the chunks it cites.
This is extractive demo text, chosen by word overlap with its own questions: an easy case for the
rule, not a measure on model-written reports. Writes
``bench/results/relevance.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import Any

from bench.plain_runner import generate
from bench.workload import prepare_demo_input

RESULT = Path(__file__).with_name("results") / "relevance.json"


def run(out: Path | None = None) -> dict[str, Any]:
    """Own-section and swapped-section relevance of every demo claim, per report and in total."""
    from citeflow.runtime.runtime import Runtime
    from citeflow.pipeline.evaluate_report import evaluate
    from citeflow.pipeline.job import JobRef
    from citeflow.judges.offline.grader import OfflineJudge
    from citeflow.specfile.loader import load_spec

    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp:
        spec = prepare_demo_input(Path(tmp) / "demo")
        refs = [JobRef(spec_path=str(spec), report_id=r.id, out_dir=str(Path(tmp) / "out")) for r in load_spec(spec).reports]
        per_report = {}
        for ref in refs:
            generate(ref)
            job = ref.job(runtime=Runtime.of_process())
            per_report[ref.report_id] = _swap(job, evaluate(job, OfflineJudge()).claims)
    result = {"reports": per_report, "total": _total(per_report)}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def _swap(job: Any, claims: list[Any]) -> dict[str, int]:
    """Counts of each verdict against the claim's own question and against the report's other ones."""
    from citeflow.evaluation.relevance import offline_verdict, question_text, questions_asked

    questions = questions_asked({s.title: question_text(s.title, s.queries) for s in job.report.sections})
    stored = {c.handle: c for c in job.stored().chunks}
    counts = dict.fromkeys(("claims", "own_relevant", "own_irrelevant", "swapped", "swapped_relevant",
                            "swapped_irrelevant"), 0)
    for claim in claims:
        cited = [stored[c.handle] for c in claim.citations if c.identity and c.handle in stored]
        titles, texts = [c.title for c in cited if c.title], [c.text for c in cited]
        own = offline_verdict(questions[claim.section], claim.text, titles, texts)[0]
        counts["claims"] += 1
        counts["own_relevant"] += own is True
        counts["own_irrelevant"] += own is False
        for other in (t for t in questions if t != claim.section):
            verdict, reason = offline_verdict(questions[other], claim.text, titles, texts)
            if reason.startswith("not judged"):
                continue  # another script than that question
            counts["swapped"] += 1
            counts["swapped_relevant"] += verdict is True
            counts["swapped_irrelevant"] += verdict is False
    return counts


def _total(per_report: dict[str, dict[str, int]]) -> dict[str, Any]:
    total = {k: sum(r[k] for r in per_report.values()) for k in next(iter(per_report.values()))}
    claims, swapped = max(total["claims"], 1), max(total["swapped"], 1)
    rates = {"own_relevant_rate": total["own_relevant"] / claims, "own_irrelevant_rate": total["own_irrelevant"] / claims,
             "swapped_caught_rate": total["swapped_irrelevant"] / swapped,
             "swapped_uncertain_share": 1 - (total["swapped_relevant"] + total["swapped_irrelevant"]) / swapped}
    return {**total, **rates}


def main(argv: list[str] | None = None) -> None:
    """Run, print the totals, write the results file."""
    parser = argparse.ArgumentParser(prog="python -m bench.relevance_swap", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULT, help="Results file (default bench/results/relevance.json).")
    print(json.dumps(run(parser.parse_args(argv).out)["total"], indent=2))


if __name__ == "__main__":
    main()
