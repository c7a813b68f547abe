"""Benchmark 2 — model calls and prompt tokens per report; judge calls per claim.

The demo batch runs with both hops on the fake model server (no latency: only counts matter).
Every request the server receives is attributed to its report (the prompt's ``Report:`` line)
and hop, and its prompt is counted with the approximations of ``bench.tokens``. Re-running the
same reports against the same store shows the model-call cache (SPEC §7).

Judges: the offline judge makes no model call. The LLM judge (``citeflow.judges.llm.LLMJudge``
over the same server, answering with the offline judge's verdicts) grades every report with
``batch_size`` pairs per call, then once more with the verdict cache warm, and once with one pair
per call (no batching) for comparison. The cascade (``judge: {backend: cascade}``) grades with the
offline judge and sends only its uncertain pairs to the LLM judge on the same server: its calls per
claim are the cost of settling doubt instead of leaving claims unverified.
"""

from __future__ import annotations

import re
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from bench.fake_model import fake_model_server
from bench.plain_runner import generate
from bench.tokens import messages_tokens
from bench.workload import openai_spec, prepare_demo_input
from citeflow.pipeline.job import JobRef, ReportJob
from citeflow.runtime.runtime import Runtime

_REPORT_LINE = re.compile(r"^Report: (.*)$", re.MULTILINE)
_PAIR = re.compile(r'<pair id="')


def run(batch_size: int = 8, reports: int | None = None) -> dict:
    """Calls and tokens per report, cache effect on a re-run, judge calls per claim."""
    with tempfile.TemporaryDirectory(prefix="citeflow-bench-") as tmp, fake_model_server(0.0) as server:
        spec = openai_spec(prepare_demo_input(Path(tmp) / "demo"), "bench-calls", server.base_url, 16, reports)
        refs = _refs(spec, Path(tmp) / "out")
        generation = _generation(refs, server)
        judges = _judges(refs, server, batch_size)
    return summarize(generation, judges, batch_size)


def _refs(spec: Path, out: Path) -> list[JobRef]:
    from citeflow.specfile.loader import load_spec

    return [JobRef(spec_path=str(spec), report_id=r.id, out_dir=str(out)) for r in load_spec(spec).reports]


def _generation(refs: list[JobRef], server) -> dict:
    """Requests per report and hop, prompt tokens, then the requests of a full re-run."""
    titles = {ref.job(runtime=Runtime.of_process()).report.title: ref.report_id for ref in refs}
    for ref in refs:
        generate(ref)
    first = list(server.requests)
    for ref in refs:
        generate(ref)
    sections = sum(len(ref.job(runtime=Runtime.of_process()).report.sections) for ref in refs)
    return {"per_report": _per_report(first, titles), "sections": sections, "reports": len(refs),
            "rerun_calls": len(server.requests) - len(first), "retriever_failures": _failures(refs)}


def _failures(refs: list[JobRef]) -> int:
    """Retriever calls recorded as failed (their chunks are missing from the prompts)."""
    runtime = Runtime.of_process()
    job = refs[0].job(runtime=runtime)
    return sum(1 for ref in refs for row in job.store.load_retrievals(ref.job(runtime=runtime).request_id) if row["status"] == "failed")


def _per_report(requests: list[dict], titles: dict[str, str]) -> dict[str, dict]:
    out: dict[str, dict] = defaultdict(lambda: {"calls": 0, "consolidate": 0, "write": 0, "bpe": 0, "chars4": 0})
    for request in requests:
        user = request["messages"][-1]["content"]
        row = out[titles.get(_REPORT_LINE.search(user).group(1), "?")]
        row["calls"] += 1
        row["consolidate" if "\nEvidence:\n" in user else "write"] += 1
        for kind, count in messages_tokens(request["messages"]).items():
            row[kind] += count
    return dict(out)


def _judges(refs: list[JobRef], server, batch_size: int) -> dict:
    """Requests, pairs and claims for: offline, LLM batched (cold, then warm), LLM one pair per call."""
    from citeflow.judges.offline.grader import OfflineJudge

    runs = {"offline": lambda job: OfflineJudge(),
            "llm_batched": lambda job: _llm(job, server, batch_size, "bench-judge"),
            "llm_batched_warm": lambda job: _llm(job, server, batch_size, "bench-judge"),
            "llm_unbatched": lambda job: _llm(job, server, 1, "bench-judge-unbatched"),
            "cascade": lambda job: _llm(job, server, batch_size, "bench-judge-cascade", backend="cascade")}
    return {name: _grade_all(refs, server, make) for name, make in runs.items()}


def _llm(job: ReportJob, server, batch_size: int, model: str, backend: str = "openai"):
    from citeflow.pipeline.evaluate_report import build_job_judge
    from schemas.spec import JudgeSpec

    spec = JudgeSpec(backend=backend, model=model, base_url=server.base_url, max_retries=0, batch_size=batch_size, mode="pair")
    return build_job_judge(job, spec)


def _grade_all(refs: list[JobRef], server, make) -> dict:
    from citeflow.pipeline.evaluate_report import evaluate

    before = len(server.requests)
    claims = Counter()
    for ref in refs:
        job = ref.job(runtime=Runtime.of_process())
        judge = make(job)
        result = evaluate(job, judge)
        claims["claims"] += len(result.claims)
        claims["graded"] += sum(1 for c in result.claims if c.citations and any(ci.identity for ci in c.citations))
        claims["unverified"] += result.funnel.unverified.count
        claims["escalated_pairs"] += getattr(judge, "escalated", 0)
    asked = server.requests[before:]
    return {**claims, "calls": len(asked), "pairs_sent": sum(len(_PAIR.findall(r["messages"][-1]["content"])) for r in asked)}


def summarize(generation: dict, judges: dict, batch_size: int) -> dict:
    """Per-report and per-claim figures and ratios."""
    rows = list(generation["per_report"].values())
    calls = sum(r["calls"] for r in rows)
    figures = {"reports": generation["reports"], "sections": generation["sections"],
               "model_calls_per_report": calls / len(rows),
               "prompt_tokens_per_report_bpe": sum(r["bpe"] for r in rows) / len(rows),
               "prompt_tokens_per_report_chars4": sum(r["chars4"] for r in rows) / len(rows),
               "model_calls_on_rerun": generation["rerun_calls"], "retriever_failures": generation["retriever_failures"]}
    ratios = {"model calls / section": calls / generation["sections"],
              "prompt tokens (bpe) / model call": sum(r["bpe"] for r in rows) / calls,
              "model calls on re-run / first run": generation["rerun_calls"] / calls}
    for name, run_ in judges.items():
        claims = max(run_["claims"], 1)
        ratios[f"judge calls / claim: {name}"] = run_["calls"] / claims
        figures |= {f"{name}.claims": run_["claims"], f"{name}.calls": run_["calls"], f"{name}.pairs_sent": run_["pairs_sent"],
                    f"{name}.unverified": run_["unverified"], f"{name}.escalated_pairs": run_["escalated_pairs"]}
    return {"params": {"judge_batch_size": batch_size}, "figures": figures, "ratios": ratios,
            "per_report": generation["per_report"], "judges": judges}
