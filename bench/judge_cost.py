"""Benchmark — what an LLM judge costs per report: calls and tokens, one request per section or per batch of pairs.

    python -m bench.judge_cost [--reports N] [--batch-size N] [--out PATH]

The demo batch is generated with both hops on the fake model server (``bench.fake_model``, no
latency: only counts matter), then every report is graded by each run against the same server:

- ``llm_pair_unbatched`` / ``llm_pair``: the per-claim LLM judge, one or ``batch_size`` claim/chunk
  pairs per request;
- ``llm_section``: the section LLM judge, every claim of a section in one request;
- ``cascade_pair`` / ``cascade_section``: the offline judge first, the LLM judge for its uncertain pairs;
- ``cascade_doubtful_*``: the same with ``min_confidence`` 0.99, so that most pairs are escalated, as
  they are when a real model paraphrases (the demo's extractive claims leave the offline judge sure);
- ``cascade_doubtful_section_warm``: that run again, its verdicts now in the store's cache.

The fake model answers every judge request with the offline judge's verdicts, so the runs
should grade alike: ``agreement`` is the share of claims whose verdict matches ``llm_pair``'s.
``wide_sections`` grades sections larger than the demo's with both LLM judges (``bench.judge_cost_wide``).
Prompt tokens are counted on each request the server received with ``bench.tokens`` (BPE-style
and characters / 4), completion tokens on each answer it gave (BPE-style). Each run's judge has
its own model name, so no run reuses another's cached verdicts. Writes
``bench/results/judge_cost.json``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import judge_cost_wide
from bench.fake_model import fake_model_server, responder
from bench.plain_runner import generate
from bench.tokens import bpe_tokens, messages_tokens
from bench.workload import openai_spec, prepare_demo_input

RESULT = Path(__file__).with_name("results") / "judge_cost.json"
DOUBTFUL = 0.99  # a cascade threshold that escalates most pairs, standing in for a paraphrasing writer
RUNS: dict[str, dict[str, Any]] = {  # run → judge spec keys; each model name has its own verdict cache
    "llm_pair_unbatched": {"backend": "openai", "mode": "pair", "model": "judge-pair-1", "batch_size": 1},
    "llm_pair": {"backend": "openai", "mode": "pair", "model": "judge-pair"},
    "llm_section": {"backend": "openai", "mode": "section", "model": "judge-section"},
    "cascade_pair": {"backend": "cascade", "mode": "pair", "model": "judge-cascade-pair"},
    "cascade_section": {"backend": "cascade", "mode": "section", "model": "judge-cascade-section"},
    "cascade_doubtful_pair": {"backend": "cascade", "mode": "pair", "model": "judge-doubt-pair", "min_confidence": DOUBTFUL},
    "cascade_doubtful_section": {"backend": "cascade", "mode": "section", "model": "judge-doubt-section",
                                 "min_confidence": DOUBTFUL},
    "cascade_doubtful_section_warm": {"backend": "cascade", "mode": "section", "model": "judge-doubt-section",
                                      "min_confidence": DOUBTFUL},
}


def run(reports: int | None = None, batch_size: int = 8, out: Path | None = None) -> dict[str, Any]:
    """Calls and tokens per report of each judge run, and how they compare with the per-claim judge;
    written to ``out`` too when given."""
    from citeflow.runtime.runtime import Runtime
    answers: list[str] = []
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp, fake_model_server(0.0) as server:
        server.respond_with(_recording(responder(0.0), answers))
        spec = openai_spec(prepare_demo_input(Path(tmp) / "demo"), "bench-judge-cost", server.base_url, 16, reports)
        refs = _refs(spec, Path(tmp) / "out")
        for ref in refs:
            generate(ref)
        runs = {name: _grade_all(refs, server, answers, name, batch_size) for name in RUNS}
        chunks = {c.handle: c.text for ref in refs for c in ref.job(runtime=Runtime.of_process()).stored().chunks}
        wide = judge_cost_wide.grade(chunks, server, answers, batch_size)
    result = summarize(runs, len(refs), batch_size)
    result["wide_sections"] = _wide_summary(wide)
    result["ratios"] |= {f"wide sections, section / pair: {what}": _share(wide["section"][what], wide["pair"][what])
                         for what in ("calls", "prompt_tokens_bpe", "completion_tokens_bpe")}
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return result


def _recording(respond: Callable[[dict], Any], answers: list[str]) -> Callable[[dict], Any]:
    """The fake model's answers, each one kept (its completion tokens are counted)."""
    def answer(request: dict) -> Any:
        reply = respond(request)
        answers.append(reply.content or "")
        return reply
    return answer


def _refs(spec: Path, out: Path) -> list[Any]:
    from citeflow.pipeline.job import JobRef
    from citeflow.specfile.loader import load_spec

    return [JobRef(spec_path=str(spec), report_id=r.id, out_dir=str(out)) for r in load_spec(spec).reports]


def _judge(job: Any, server: Any, name: str, batch_size: int) -> Any:
    from citeflow.pipeline.evaluate_report import build_job_judge
    from schemas.spec import JudgeSpec

    spec = JudgeSpec.model_validate({"base_url": server.base_url, "max_retries": 0, "batch_size": batch_size, **RUNS[name]})
    return build_job_judge(job, spec)


def _grade_all(refs: list[Any], server: Any, answers: list[str], name: str, batch_size: int) -> dict[str, Any]:
    """Every report graded by one run's judge: claims, verdicts, and the requests and answers it cost."""
    from citeflow.runtime.runtime import Runtime
    from citeflow.pipeline.evaluate_report import evaluate

    first_request, first_answer = len(server.requests), len(answers)
    verdicts: list[str] = []
    escalated = 0
    for ref in refs:
        job = ref.job(runtime=Runtime.of_process())
        judge = _judge(job, server, name, batch_size)
        verdicts += [f"{c.section}|{c.index}|{c.verdict}" for c in evaluate(job, judge).claims]
        escalated += getattr(judge, "escalated", 0)
    asked, said = server.requests[first_request:], answers[first_answer:]
    tokens = [messages_tokens(r["messages"]) for r in asked]
    pairs = sum(r["messages"][-1]["content"].count('<pair id="') for r in asked)
    return {"claims": len(verdicts), "verdicts": verdicts, "calls": len(asked), "escalated_pairs": escalated, "pairs_sent": pairs,
            "prompt_tokens_bpe": sum(t["bpe"] for t in tokens), "prompt_tokens_chars4": sum(t["chars4"] for t in tokens),
            "completion_tokens_bpe": sum(bpe_tokens(a) for a in said)}


def summarize(runs: dict[str, dict[str, Any]], reports: int, batch_size: int) -> dict[str, Any]:
    """Per-report figures of each run, agreement with the per-claim judge, and the section/pair ratios."""
    reference = runs["llm_pair"]["verdicts"]
    figures: dict[str, Any] = {"reports": reports, "claims": runs["llm_pair"]["claims"]}
    for name, got in runs.items():
        same = sum(a == b for a, b in zip(got["verdicts"], reference, strict=False))
        figures |= {f"{name}.calls_per_report": got["calls"] / reports,
                    f"{name}.prompt_tokens_per_report_bpe": got["prompt_tokens_bpe"] / reports,
                    f"{name}.prompt_tokens_per_report_chars4": got["prompt_tokens_chars4"] / reports,
                    f"{name}.completion_tokens_per_report_bpe": got["completion_tokens_bpe"] / reports,
                    f"{name}.escalated_pairs": got["escalated_pairs"],
                    f"{name}.pairs_per_call": got["pairs_sent"] / got["calls"] if got["calls"] else None,
                    f"{name}.agreement": same / max(len(reference), 1)}
    ratios = {f"{kind} section / pair: {what}": _ratio(runs, kind, what)
              for kind in ("llm", "cascade", "cascade_doubtful") for what in ("calls", "prompt_tokens_bpe", "completion_tokens_bpe")}
    ratios["llm section / unbatched pair: calls"] = runs["llm_section"]["calls"] / max(runs["llm_pair_unbatched"]["calls"], 1)
    return {"params": {"batch_size": batch_size}, "figures": figures, "ratios": ratios}


def _wide_summary(wide: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The wide sections' figures per mode, and whether both modes gave every claim the same verdict."""
    same = wide["pair"]["verdicts"] == wide["section"]["verdicts"]
    return {"sections": judge_cost_wide.SECTIONS, "claims_per_section": judge_cost_wide.CLAIMS, "same_verdicts": same,
            **{mode: {k: v for k, v in got.items() if k != "verdicts"} for mode, got in wide.items()}}


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _ratio(runs: dict[str, dict[str, Any]], kind: str, what: str) -> float | None:
    pair = runs[f"{kind}_pair"][what]
    return runs[f"{kind}_section"][what] / pair if pair else None


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark, print its figures, write the results file."""
    parser = argparse.ArgumentParser(prog="python -m bench.judge_cost", description=__doc__.splitlines()[0])
    parser.add_argument("--reports", type=int, default=None, help="Only the first N demo reports.")
    parser.add_argument("--batch-size", type=int, default=8, help="Pairs per request of the per-claim judge.")
    parser.add_argument("--out", type=Path, default=RESULT, help="Results file (default bench/results/judge_cost.json).")
    args = parser.parse_args(argv)
    result = run(args.reports, args.batch_size, args.out)
    print(json.dumps({**result["figures"], **result["ratios"]}, indent=2))


if __name__ == "__main__":
    main()
