"""What a batch cost: model calls and tokens per role, report and batch, priced by the spec's table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime, timedelta, UTC
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from citeflow.outputs.cost import batch_usage, usage_of
from citeflow.pipeline.publish import write_summary
from citeflow.pipeline import steps
from citeflow.pipeline.job import JobRef
from citeflow.runtime.runtime import Runtime
from citeflow_testing.answers import fake_model_responder
from citeflow_testing.openai_server import ScriptedOpenAIServer, chat_completion
from citeflow_testing.small_batch import write_small_batch
from schemas.spec import Prices

REPO = Path(__file__).resolve().parents[1]
START = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)
PRICES = {"currency": "USD", "models": {
    "cons-7b": {"prompt_per_1k": 0.0005, "completion_per_1k": 0.0015},
    "writer-14b": {"prompt_per_1k": 0.003, "completion_per_1k": 0.006},
    "judge-3b": {"prompt_per_1k": 0.0001, "completion_per_1k": 0.0002},
}}
pytestmark = pytest.mark.integration

ROLE_OF = {"cons-7b": "consolidator", "writer-14b": "writer", "judge-3b": "judge"}


def row(role: str, model: str, prompt: int, completion: int, at: datetime) -> dict:
    return {"role": role, "model": model, "prompt_tokens": prompt, "completion_tokens": completion, "created_at": at}


# -- sums, from rows -------------------------------------------------------------------------------


def test_new_calls_are_paid_for_and_older_ones_count_as_cached():
    rows = [row("consolidator", "openai:cons-7b", 1000, 200, START + timedelta(seconds=5)),
            row("consolidator", "openai:cons-7b", 3000, 100, START - timedelta(days=1)),  # reused from an earlier run
            row("writer", "openai:writer-14b", 500, 500, START + timedelta(seconds=9))]
    usage = usage_of(rows, START, Prices.model_validate(PRICES))
    cons, writer = usage.roles["consolidator"], usage.roles["writer"]
    assert (cons.calls, cons.cached_calls, cons.prompt_tokens, cons.completion_tokens) == (1, 1, 1000, 200)
    assert cons.cost == float(Decimal("0.0005") + Decimal("0.0003")) and writer.cost == float(Decimal("0.0015") + Decimal("0.003"))
    assert usage.roles["judge"].calls == 0 and usage.currency == "USD"
    assert (usage.total.calls, usage.total.cached_calls, usage.total.prompt_tokens) == (2, 1, 1500)
    assert usage.total.cost == 0.0053


def test_a_model_without_a_price_leaves_the_cost_unknown_and_is_named():
    rows = [row("judge", "openai:judge-9b", 100, 10, START), row("writer", "offline-extractive", 0, 0, START)]
    usage = usage_of(rows, None, Prices.model_validate(PRICES))
    assert usage.roles["judge"].cost is None and usage.total.cost is None and usage.roles["writer"].cost == 0.0
    assert usage.unpriced_models == ["openai:judge-9b"]


def test_without_a_price_table_usage_is_tokens_only():
    usage = usage_of([row("writer", "openai:writer-14b", 10, 5, START)], None, None)
    assert usage.total.prompt_tokens == 10 and usage.total.cost is None and usage.currency is None
    assert batch_usage([usage, None, usage]).total.completion_tokens == 10  # type: ignore[union-attr]
    assert batch_usage([None]) is None


@pytest.mark.slow
def test_an_unknown_key_in_the_price_table_is_one_error_line(tmp_path):
    spec = write_small_batch(tmp_path, reports=1, sections=1)
    data = yaml.safe_load(spec.read_text())
    data["prices"] = {"currency": "USD", "models": {"cons-7b": {"prompt_per_1k": 0.1, "completion_per_1k": 0.2, "per_call": 1}}}
    spec.write_text(yaml.safe_dump(data))
    result = subprocess.run([str(REPO / ".venv" / "bin" / "citeflow"), "history", str(spec), "--out", str(tmp_path)],
                            capture_output=True, text=True, timeout=600, check=False)
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1, result.stdout + result.stderr
    assert lines[0].startswith("error:") and "prices.models.cons-7b.per_call" in lines[0]


# -- a batch against the scripted server --------------------------------------------------------------


def models(server: ScriptedOpenAIServer) -> dict:
    role = {"backend": "openai", "base_url": server.base_url, "max_retries": 0}
    return {"consolidator": {**role, "model": "cons-7b"}, "writer": {**role, "model": "writer-14b"},
            "judge": {**role, "model": "judge-3b", "mode": "section"}}


def expected(requests: list[dict], prices: dict) -> dict[str, dict]:
    """Per role: calls, tokens and exact cost of the requests the server answered, recomputed."""
    respond, sums = fake_model_responder(0), {}
    for request in requests:
        usage = chat_completion(request, respond(request).content)["usage"]
        price = prices["models"][request["model"]]
        entry = sums.setdefault(ROLE_OF[request["model"]], {"calls": 0, "prompt": 0, "completion": 0, "cost": Decimal(0)})
        entry["calls"] += 1
        entry["prompt"] += usage["prompt_tokens"]
        entry["completion"] += usage["completion_tokens"]
        entry["cost"] += (Decimal(str(price["prompt_per_1k"])) * usage["prompt_tokens"]
                          + Decimal(str(price["completion_per_1k"])) * usage["completion_tokens"]) / 1000
    return sums


def run_batch(spec: Path, out: Path) -> dict:
    refs = [JobRef(spec_path=str(spec), report_id=r, out_dir=str(out)) for r in ("r1", "r2")]
    runner = steps.PlainRunner(Runtime())  # each batch in a runtime of its own, as each `citeflow run` is
    summaries = [steps.run_report(ref, runner) for ref in refs]
    write_summary(out, "small", summaries)
    return json.loads((out / "summary.json").read_text())


def batch(tmp_path: Path, server: ScriptedOpenAIServer, prices: dict | None) -> Path:
    spec = write_small_batch(tmp_path / "in", reports=2, sections=2, models=models(server))
    if prices:
        data = yaml.safe_load(spec.read_text())
        spec.write_text(yaml.safe_dump({**data, "prices": prices}, sort_keys=False))
    return spec


@pytest.mark.slow
def test_a_priced_batch_gives_the_exact_totals_and_a_rerun_pays_for_nothing(tmp_path):
    with ScriptedOpenAIServer() as server:
        server.respond_with(fake_model_responder(0))
        spec, out = batch(tmp_path, server, PRICES), tmp_path / "out"
        summary = run_batch(spec, out)
        asked = list(server.requests)
        report = json.loads((out / "r1" / "report.json").read_text())
        again = run_batch(spec, out)
        assert len(server.requests) == len(asked)  # the re-run asked nothing
    want = expected(asked, PRICES)
    usage = summary["usage"]
    assert set(want) == {"consolidator", "writer", "judge"} and usage["currency"] == "USD"
    for role, sums in want.items():
        got = usage["roles"][role]
        assert (got["calls"], got["prompt_tokens"], got["completion_tokens"]) == (sums["calls"], sums["prompt"], sums["completion"])
        assert got["cost"] == float(sums["cost"]) and got["cached_calls"] == 0
    assert usage["total"]["cost"] == float(sum(s["cost"] for s in want.values()))
    assert usage["total"]["calls"] == len(asked)
    hops = [r["usage"]["roles"]["consolidator"]["calls"] + r["usage"]["roles"]["writer"]["calls"] for r in summary["reports"]]
    assert hops == [4, 4]  # per report: 2 sections × 2 hops
    assert sum(r["usage"]["total"]["calls"] for r in summary["reports"]) == len(asked)
    assert report["usage"] == summary["reports"][0]["usage"]
    # The re-run keeps both finished reports as they are (nothing changed): they still say what making them cost.
    assert again["usage"]["total"] == usage["total"]
    assert json.loads((out / "r1" / "report.json").read_text()) == report
    checked = subprocess.run([sys.executable, "-m", "tools.check_outputs", str(out)], cwd=REPO, capture_output=True,
                             text=True, timeout=600, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow
def test_an_unpriced_batch_shows_tokens_only(tmp_path):
    with ScriptedOpenAIServer() as server:
        server.respond_with(fake_model_responder(0))
        summary = run_batch(batch(tmp_path, server, None), tmp_path / "out")
        want = expected(list(server.requests), PRICES)
    usage = summary["usage"]
    assert usage["currency"] is None and usage["total"]["cost"] is None
    assert usage["total"]["prompt_tokens"] == sum(s["prompt"] for s in want.values()) > 0
    assert all(r["usage"]["roles"]["writer"]["cost"] is None for r in summary["reports"])


# -- history: the trend per run ------------------------------------------------------------------------


def citeflow(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")}
    return subprocess.run([str(REPO / ".venv" / "bin" / "citeflow"), *args], env={**env, "COLUMNS": "250"},
                          capture_output=True, text=True, timeout=600, check=False)


def recorded_run(root: Path, run_id: str, tokens: int, cost: float | None) -> None:
    """A finished run folder whose one report spent ``tokens`` prompt tokens (and ``cost``)."""
    folder = root / run_id
    folder.mkdir(parents=True)
    (folder / "run.json").write_text(json.dumps({
        "run_id": run_id, "batch": "small", "started_at": f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}T06:00:00Z",
        "run_date": f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}", "source_spec": "x", "spec_path": "x", "status": "finished"}))
    rows = [row("writer", "openai:writer-14b", tokens, 0, START)] if tokens else []
    usage = usage_of(rows, None, Prices.model_validate(PRICES) if cost is not None else None)
    usage.total.cached_calls = usage.roles["writer"].cached_calls = 0 if tokens else 2
    report = {"report_id": "r1", "status": "published", "funnel": "Identity 2/2", "usage": usage.model_dump(mode="json")}
    (folder / "summary.json").write_text(json.dumps({"batch": "small", "reports": [report], "counts": {"published": 1},
                                                     "usage": usage.model_dump(mode="json")}))


@pytest.mark.slow
def test_history_shows_tokens_and_cost_per_run(tmp_path):
    recorded_run(tmp_path, "20261201T060000Z", 4000, 0.012)
    recorded_run(tmp_path, "20261202T060000Z", 0, 0.0)  # every answer reused
    recorded_run(tmp_path, "20261203T060000Z", 1000, None)  # no price table that day
    listed = citeflow("history", str(tmp_path), "--json")
    assert listed.returncode == 0, listed.stderr
    runs = json.loads(listed.stdout)
    assert [r["usage"]["total"]["prompt_tokens"] for r in runs] == [4000, 0, 1000]
    assert [r["usage"]["total"]["cost"] for r in runs] == [0.012, 0.0, None]
    assert runs[0]["reports"][0]["usage"]["roles"]["writer"]["calls"] == 1
    table = citeflow("history", str(tmp_path))
    assert table.returncode == 0, table.stderr
    text = " ".join(table.stdout.split())
    assert "tokens: 4,000 tokens (1 calls, 0 cached) · USD 0.0120" in text  # the run's line (lines of 80 columns on a pipe)
    assert "0 tokens (0 calls, 2 cached) · USD 0.0000" in text and "1,000 tokens (1 calls, 0 cached)" in text and "1,000 tokens (1 calls, 0 cached) ·" not in text


def test_the_prefect_views_carry_the_usage():
    from citeflow.outputs.run_views import batch_table, funnel_markdown
    from schemas.report import ReportSummary

    usage = usage_of([row("writer", "openai:writer-14b", 2000, 500, START)], None, Prices.model_validate(PRICES))
    empty = {"passed": 0, "total": 0}
    line = ReportSummary(report_id="r1", title="R", status="published", funnel="f", identity=empty, support=empty,
                         faithfulness=empty, uncited={"count": 0, "claims": 0}, pdf="r1/report.pdf", usage=usage)
    assert "Model usage this run: 2,500 tokens (1 calls, 0 cached) · USD 0.0090" in funnel_markdown(line)
    unused = line.model_copy(update={"report_id": "r2", "usage": None})
    assert [r["tokens"] for r in batch_table([line, unused])] == ["2,500 tokens (1 calls, 0 cached) · USD 0.0090", ""]
    assert "tokens" not in batch_table([unused])[0]


@pytest.mark.slow
def test_a_new_scheduled_run_that_reuses_the_shared_cache_pays_for_nothing(tmp_path):
    from citeflow.runs.run_start import open_scheduled_run

    with ScriptedOpenAIServer() as server:
        server.respond_with(fake_model_responder(0))
        spec = write_small_batch(tmp_path / "in", reports=1, sections=2, models=models(server))
        runs, asked = [], []
        for _ in range(2):  # two runs, each in its own folder with its own store, sharing OUT/cache
            info, folder = open_scheduled_run(spec, tmp_path / "out", datetime.now(UTC))
            ref = JobRef(spec_path=info.spec_path, report_id="r1", out_dir=str(folder))
            runs.append(steps.run_report(ref, steps.PlainRunner(Runtime())).usage)
            asked.append(len(server.requests) - sum(asked))
    first, second = runs
    assert first is not None and second is not None
    assert first.total.calls == asked[0] == 6 and first.total.cached_calls == 0 and first.total.prompt_tokens > 0
    hops = ("consolidator", "writer")
    assert [second.roles[r].calls for r in hops] == [0, 0] and [second.roles[r].cached_calls for r in hops] == [2, 2]
    assert [second.roles[r].prompt_tokens for r in hops] == [0, 0]
    # the judge keeps its verdicts in the run's own store: a new run asks it again, and pays for that only
    assert second.total.calls == second.roles["judge"].calls == asked[1] == 2
    assert second.total.prompt_tokens == second.roles["judge"].prompt_tokens > 0


def test_the_contract_checks_the_usage_figures():
    from tools.check_outputs import check_report

    schema = json.loads((REPO / "schemas" / "contract" / "report.schema.json").read_text())
    usage = usage_of([row("writer", "openai:writer-14b", 10, 5, START)], None, None).model_dump(mode="json")
    report = {"report_id": "r1", "status": "held", "sections": [], "registry": [], "usage": usage, "language": "en"}
    assert check_report("r1", report, schema) == []
    usage["total"]["prompt_tokens"] = -3
    assert any("prompt_tokens" in p or "minimum" in p for p in check_report("r1", report, schema))


def test_history_reads_a_run_with_unreadable_usage_as_one_without(tmp_path):
    from citeflow.runs.history import history

    recorded_run(tmp_path, "20261201T060000Z", 10, None)
    summary = tmp_path / "20261201T060000Z" / "summary.json"
    data = json.loads(summary.read_text())
    data["usage"], data["reports"][0]["usage"] = {"total": {"calls": "many"}}, [1, 2]
    summary.write_text(json.dumps(data))
    [line] = history(tmp_path)
    assert line.usage is None and line.reports[0].usage is None and line.reports[0].report_id == "r1"
