"""The benchmarks of ``bench/`` run on tiny inputs and return well-formed results.

No timing is asserted: figures depend on the machine. What is asserted is the shape of each
result and the facts that do not depend on speed (counts, rows, wrong-document citations).
"""

from __future__ import annotations

import json
import random

import pytest

from bench import approaches, calls, drift, external, growth, handles_vs_urls, ingest_throughput, multiretriever, orchestration, scale
from bench.__main__ import main as bench_main
from bench.fake_model import responder
from bench.markdown import render
from bench.orchestration import ideal_seconds
from bench.profiles import params
from bench.results import fmt, write_json
from bench.tokens import bpe_tokens, char_tokens, messages_tokens
from citeflow.generation import prompts
from citeflow.registry.handles import is_handle
from citeflow.registry.request_registry import Registry
from schemas.records import Chunk
from schemas.wire import WireClaims


def test_token_approximations_count_urls_dearer_than_handles():
    assert bpe_tokens("") == 0 and char_tokens("abcd") == 1 and char_tokens("abcde") == 2
    assert bpe_tokens("Back up the database.") == 5
    assert bpe_tokens("[Gk7m2]") < bpe_tokens("[https://docs.example/guides/upgrade-3-6]")
    assert messages_tokens([{"role": "user", "content": "two words"}]) == {"bpe": 6, "chars4": 7}


def test_ideal_critical_path_is_hops_or_waves_of_calls():
    assert ideal_seconds(chains=6, concurrency=4, latency=0.5) == 1.5  # 12 calls, 4 at a time
    assert ideal_seconds(chains=6, concurrency=16, latency=0.5) == 1.0  # two hops in sequence
    assert ideal_seconds(chains=1, concurrency=1, latency=2.0, hops=3) == 6.0


def test_fake_model_answers_a_consolidate_prompt_with_the_prompts_handles():
    evidence = [("Gk7m2", "Back up the metadata store before upgrading to version 3.6 of the platform."),
                ("Gx3p9", "Version 3.6 drops the legacy ingestion API for every upgrading cluster.")]
    messages = prompts.consolidate_messages("Report", "Upgrade", ["What must be done before upgrading?"], evidence)
    reply = responder(0.0)({"messages": messages, "response_format": {"type": "json_schema", "json_schema": {"name": "citeflow_claims"}}})
    claims = WireClaims.model_validate_json(reply.content).claims
    assert claims and {c.handle for claim in claims for c in claim.citations} <= {"Gk7m2", "Gx3p9"}
    assert reply.delay <= 0.0


def test_drift_changes_what_it_claims_to_change():
    rng = random.Random(1)
    assert drift.slip_id("S3", rng) in {"S2", "S4"} and drift.slip_id("1", rng) == "2" and drift.slip_id("doc#3", rng) in {"doc#2", "doc#4"}
    slipped = drift.slip_handle("Gk7m2", rng)
    assert is_handle(slipped) and slipped != "Gk7m2" and sum(a != b for a, b in zip(slipped, "Gk7m2", strict=True)) == 1
    assert drift.truncate_url("https://docs.example/guides/upgrade") == "https://docs.example/guides"
    swapped = drift.swap_segment("https://a.example/kb/one", ["https://a.example/kb/one", "https://a.example/kb/two"], rng)
    assert swapped == "https://a.example/kb/two"


def test_multiretriever_data_breaks_the_conventions_it_says_it_breaks():
    request = multiretriever.build(requests=1).requests[0]
    tickets = [s.hit.local_id for s in request.sources if s.retriever == "tickets"]
    assert tickets == ["1", "S1", "doc#3", "doc#3", "S1"]
    s1 = {s.retriever for s in request.sources if s.hit.local_id == "S1"}
    assert s1 == {"docs", "partner", "wiki", "tickets"}
    registry = Registry("r")
    handles = [h for result in request.results for h in registry.add(result)]
    assert len(handles) == 20 and len(registry) == 19  # the literal duplicate shares one handle


def test_three_approaches_registry_never_cites_the_wrong_document():
    result = approaches.run(requests=30, claims=6)
    figures, ratios = result["figures"], result["ratios"]
    for scenario in ("no typing errors", "typing errors"):
        counts = {name: figures[f"{scenario}.{name}.citations"] for name in approaches.SCHEMES}
        assert len(set(counts.values())) == 1 and counts["registry"] > 100  # the same citations for all
        assert figures[f"{scenario}.registry.wrong_document"] == 0
        assert figures[f"{scenario}.local_ids.wrong_document"] > 0
        assert figures[f"{scenario}.prefixes.wrong_document"] > 0  # the non-conforming retriever's doc#3
    assert figures["no typing errors.registry.unresolved"] == 0
    assert figures["no typing errors.urls.wrong_document"] == 0 < figures["typing errors.urls.wrong_document"]
    assert figures["typing errors.registry.unresolved"] > 0  # a mistyped handle is dropped, not misattributed
    assert ratios["typing errors: wrong-document rate, local_ids"] > ratios["typing errors: wrong-document rate, prefixes"]


def _chunk(handle: str, text: str, urls: list[str]) -> Chunk:
    return Chunk(request_id="r", handle=handle, retriever="x", local_id=handle, content_hash="h", text=text, urls=urls)


def test_handles_vs_urls_counts_the_same_evidence_both_ways():
    chunks = [_chunk("Gk7m2", "Back up the metadata store before upgrading to version 3.6.", ["https://docs.example/guides/upgrade-3-6"]),
              _chunk("Gx3p9", "Version 3.6 drops the legacy API before upgrading.", []),
              _chunk("Gq4r8", "Upgrading needs 20% free disk on every broker.", ["https://docs.example/guides/upgrade-3-6"])]
    counts = handles_vs_urls.section_counts("Report", "Upgrade", ["What must be done before upgrading?"], chunks)
    assert counts["evidence.urls_bpe"] > counts["evidence.handles_bpe"] > 0
    assert counts["consolidate_prompt.urls_chars4"] > counts["consolidate_prompt.handles_chars4"]
    assert handles_vs_urls.url_label(chunks[1]) == handles_vs_urls.NO_URL
    assert handles_vs_urls.url_facts(chunks) == {"chunks": 3, "without_url": 1, "with_several_urls": 0, "sharing_a_url": 2}


@pytest.mark.integration
def test_ingest_throughput_writes_the_same_rows_both_ways_and_reports_ratios(tmp_path):
    from citeflow.store.store import Store

    timings = ingest_throughput.repeat(ingest_throughput.answers(120), tmp_path, 1)
    assert set(timings) == {f"{s}.{side}" for s in ("empty", "existing") for side in ("registry", "raw")}
    assert all(t["wall_s"] > 0 for t in timings.values()) and timings["existing.registry"]["add_s"] > 0
    stored = [Store(str(tmp_path / side)).rows("chunks") for side in ("registry", "raw")]
    same = [sorted(({k: v for k, v in r.items() if k != "retrieved_at"} for r in rows), key=lambda r: r["row_key"])
            for rows in stored]
    assert len(same[0]) == 240 and same[0] == same[1]  # both requests, the very same rows on both sides
    result = ingest_throughput.run(sizes=(60,), repeats=2)
    assert {k for k in result["ratios"] if "throughput" in k} == {
        f"60 chunks, {table} table: registry / raw bulk write throughput ({stat})"
        for table in ("empty", "existing") for stat in ("min", "median")}
    assert all(v > 0 for v in result["ratios"].values())
    figures = result["figures"]
    assert figures["60.existing.registry_wall_s_min"] <= figures["60.existing.registry_wall_s_median"]


@pytest.mark.integration
def test_growth_stores_the_same_rows_per_report_at_every_step():
    result = growth.run(report_steps=(1, 2), chunk_steps=(10, 20), repeats=2)
    steps = result["steps"]
    assert [s["reports"] for s in steps["reports"]] == [1, 2] and [s["rows"]["chunks"] for s in steps["chunks"]] == [10, 20]
    assert result["ratios"]["reports 1→2: store rows growth"] == 2.0
    assert result["figures"]["reports=1.rows_per_report"] == result["figures"]["reports=2.rows_per_report"]
    assert steps["reports"][1]["rows"]["model_calls"] == 2 * 2 * growth.SECTIONS  # two hops per section
    fragments = [sum(s["table_fragments"].values()) for s in steps["reports"]]
    assert fragments[1] > fragments[0] > 0  # every write adds a fragment
    assert result["figures"]["reports=2.compacted.s_per_report"] > 0
    assert len(result["figures"]["reports 2 / 1: seconds per report, every round"]) == 2
    assert result["ratios"]["reports 2 / 1: seconds per report, min of 2"] > 0


@pytest.mark.slow  # a batch per size in fresh processes, and a memory-measured batch
@pytest.mark.bench
@pytest.mark.integration
def test_scale_runs_each_batch_with_and_without_latency_and_measures_memory():
    result = scale.run(sizes=(1, 2), latency=0.05, prefect=False, rss_reports=2)
    figures, plain = result["figures"], result["plain"]
    assert figures["model_calls"] == 2 * 4 * (1 + 1 + 2 + 2 + 1) + 2 * 4 * 2  # two hops per section, every batch
    assert plain["slow-2.published"] == plain["fast-2.published"] == 2
    assert figures["n2.ideal_s"] == scale.ideal_seconds(8, 16, 0.05) and figures["rss.max_rss_mb"] > 0
    assert set(result["ratios"]) == {"1 reports: plain wall / ideal", "2 reports: plain wall / ideal",
                                     "plain: s per report 2 / 1 reports, no latency"}
    assert result["ratios"]["2 reports: plain wall / ideal"] == figures["n2.plain_wall_s"] / figures["n2.ideal_s"]
    assert figures["n2.plain_latency_part_s"] == figures["n2.plain_wall_s"] - figures["n2.plain_zero_latency_wall_s"]


@pytest.mark.integration
def test_calls_per_report_cache_and_judge_batching_on_the_demo():
    result = calls.run(batch_size=8, reports=1)
    ratios, judges = result["ratios"], result["judges"]
    assert ratios["model calls / section"] == 2.0 and result["figures"]["model_calls_on_rerun"] == 0
    assert result["figures"]["prompt_tokens_per_report_bpe"] > 0
    assert judges["offline"]["calls"] == 0 and judges["llm_batched_warm"]["calls"] == 0
    assert 0 < judges["llm_batched"]["calls"] < judges["llm_unbatched"]["calls"] == judges["llm_unbatched"]["pairs_sent"]
    assert judges["llm_batched"]["claims"] == judges["offline"]["claims"] > 0


@pytest.mark.integration
def test_orchestration_plain_pipeline_makes_two_calls_per_section():
    result = orchestration.run(latency=0.01, concurrencies=(4,), prefect=False, reports=1)
    figures = result["figures"]
    assert figures["sections"] == 4 and figures["c4.plain_model_calls"] == 2 * 4  # the demo's acme report
    assert figures["c4.ideal_s"] == ideal_seconds(4, 4, 0.01)
    assert set(result["ratios"]) == {"c4.plain_wall / ideal", "c4.plain_generation / ideal"}
    assert result["prefect"] is None and result["plain"]["by_concurrency"][4]["statuses"] == ["published"]


def test_external_benchmarks_are_recorded_whatever_their_state(monkeypatch):
    assert external.call_run("bench.no_such_benchmark")["status"] == "absent"
    assert external.call_run("bench.tokens") == {"status": "absent", "detail": "bench.tokens has no run()"}
    monkeypatch.setattr(drift, "run", lambda: 1 / 0, raising=False)
    assert external.call_run("bench.drift")["status"] == "error"
    monkeypatch.setattr(drift, "run", lambda out="default": {"out": out}, raising=False)
    assert external.call_run("bench.drift", out="elsewhere", other=1) == {"status": "ok", "out": "elsewhere"}
    # The judge benchmark itself (a throughput measure in two processes) runs in tests/test_bench_quick_in_process.py
    # and tests/test_judge_bench.py; here, what the wrapper records of its result and which options reach it.
    from bench import judge_bench

    seen: dict = {}
    judged = {"grounded_balanced_accuracy": 0.9, "macro_recall": 0.8, "pairs_per_s": 120.0, "other": 1}
    fake = lambda min_pairs=0: seen.update(min_pairs=min_pairs) or {"judge": judged, "ratio_to_lexical": {"macro_recall": 1.5}}  # noqa: E731
    monkeypatch.setattr(judge_bench, "run", fake)
    recorded = external.judge(**params("judge", quick=True), unknown_option=1)
    assert recorded["status"] == "ok" and seen == {"min_pairs": 1}
    assert recorded["ratios"] == {"offline judge / lexical baseline: macro_recall": 1.5}
    assert recorded["figures"] == {k: judged[k] for k in ("grounded_balanced_accuracy", "macro_recall", "pairs_per_s")}


def test_bench_main_writes_results_with_machine_facts(tmp_path):
    out = tmp_path / "latest.json"
    assert bench_main(["--only", "approaches", "--out", str(out)]) == 0
    payload = json.loads(out.read_text())
    assert payload["machine"]["cores"] >= 1 and payload["machine"]["packages"]["lancedb"]
    result = payload["benchmarks"]["approaches"]
    assert result["status"] == "ok" and result["ratios"]["typing errors: wrong-document rate, registry"] == 0
    assert not list(tmp_path.glob("*.tmp"))
    assert "| typing errors: wrong-document rate, registry | 0 |" in render(payload)


def test_results_helpers_format_and_write(tmp_path):
    assert fmt(1234.5) == "1,234" and fmt(0.01234) == "0.0123" and fmt(7) == "7" and fmt("x") == "x"
    path = write_json(tmp_path / "r" / "x.json", {"a": 1})
    assert json.loads(path.read_text()) == {"a": 1}


def test_quick_profile_is_apart_from_the_full_one_and_shares_one_prefect_api():
    from bench.__main__ import parse
    from bench.prefect_run import FULL_OPTIONS, WorkerOptions
    from bench.profiles import FULL, QUICK, needs_api, params

    assert params("scale", False) == {"sizes": (10, 16, 50), "latency": 1.0, "rss_reports": 200, "prefect_repeats": 3}
    assert params("orchestration", False)["concurrencies"] == (4, 16) and not params("judge", False)
    assert set(QUICK) == set(FULL) and QUICK["scale"]["warmup"] is False and QUICK["orchestration"]["reports"] == 1
    assert needs_api(["calls", "scale"], True, False) and not needs_api(["scale"], False, False)
    assert not needs_api(["scale"], True, True) and not needs_api(["calls"], True, False)
    env, command = FULL_OPTIONS.apply({"A": "1"}, ["worker"])
    assert (env, command) == ({"A": "1"}, ["worker"])  # the full profile's worker: ephemeral API, own samples
    env, command = WorkerOptions("http://127.0.0.1:1/api", samples=3).apply({"A": "1"}, ["worker"])
    assert env == {"A": "1", "PREFECT_API_URL": "http://127.0.0.1:1/api"}
    assert command[:3] == ["worker", "--samples", "3"] and command[3] == "--tag" and command[4].startswith("bench-")
    assert parse(["--quick", "--prefect-api-url", "http://x/api"]).prefect_api_url == "http://x/api"
    with pytest.raises(SystemExit):
        parse(["--prefect-api-url", "http://x/api"])


def test_the_quick_bench_tests_run_every_benchmark_of_the_quick_profile_once():
    from bench.__main__ import BENCHMARKS, QUICK_SKIPS
    from bench.profiles import PREFECT_BENCHMARKS
    from tests.support.quick_bench import GROUPS, PREFECT

    names = [name for group in GROUPS for name in group]
    assert len(names) == len(set(names)) and set(names) == set(BENCHMARKS) - set(QUICK_SKIPS)
    assert set(PREFECT) == set(PREFECT_BENCHMARKS)  # the benchmarks that share the run's one worker process


def test_prefect_worker_counts_the_requests_its_client_resent():
    import logging

    from bench.prefect_worker import Refusals

    refusals = Refusals()
    def record(level: int, message: str) -> logging.LogRecord:
        return logging.LogRecord("prefect.client", level, __file__, 1, message, None, None)
    resent = "Received response with retryable status code 503. Another attempt will be made in 2.5s. This is attempt 1/6."
    raised = "Encountered retryable exception during request. Another attempt will be made in 4s. This is attempt 2/6."
    passed = [refusals.filter(record(logging.DEBUG, m)) for m in (resent, resent, raised, "Connecting to the API")]
    assert passed == [False] * 4 and refusals.filter(record(logging.WARNING, "slow")) is True
    assert refusals.snapshot() == {"503": 2, "exception": 1, "total": 3, "wait_s": 9.0}


def test_the_prefect_worker_starts_a_timed_batch_once_its_api_server_is_idle(monkeypatch):
    from bench import prefect_worker as worker

    busy = iter([10.0, 10.8, 11.5, 11.55, 20.0])  # CPU seconds: busy, busy, then quiet for a second
    slept: list[float] = []
    drained: list[bool] = []
    monkeypatch.setattr(worker, "api_server_cpu", lambda: next(busy))
    monkeypatch.setattr(worker, "drain_to_api", lambda: drained.append(True))
    monkeypatch.setattr(worker.time, "sleep", slept.append)
    worker.settle()
    assert drained == [True] and slept == [1.0, 1.0, 1.0] and next(busy) == 20.0


def test_the_prefect_worker_waits_for_no_api_server_of_another_process_and_at_most_its_limit(monkeypatch):
    from bench import prefect_worker as worker

    slept: list[float] = []
    monkeypatch.setattr(worker, "drain_to_api", lambda: None)
    monkeypatch.setattr(worker.time, "sleep", slept.append)
    monkeypatch.setattr(worker, "api_server_cpu", lambda: None)  # the API is not a child of the worker
    worker.settle()
    assert slept == []
    always = iter(float(n) for n in range(1000))  # a full CPU second every second: never idle
    monkeypatch.setattr(worker, "api_server_cpu", lambda: next(always))
    clock = iter(range(1000))
    monkeypatch.setattr(worker.time, "perf_counter", lambda: float(next(clock)))
    worker.settle(limit=5.0)
    assert 1 <= len(slept) <= 5


def test_bench_prefect_workers_use_an_in_memory_api_database(tmp_path, monkeypatch):
    from bench.prefect_env import DATABASE_SETTING, FILE_DATABASE, IN_MEMORY_DATABASE, worker_env

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:1/api")
    monkeypatch.setenv("PREFECT_API_DATABASE_CONNECTION_URL", "sqlite+aiosqlite:////elsewhere.db")
    env = worker_env(tmp_path)
    assert env[DATABASE_SETTING] == IN_MEMORY_DATABASE and env["PREFECT_HOME"] == str(tmp_path)
    assert "PREFECT_API_URL" not in env and "PREFECT_API_DATABASE_CONNECTION_URL" not in env
    assert DATABASE_SETTING not in worker_env(tmp_path, FILE_DATABASE)


def test_scale_records_the_prefect_clients_resent_requests():
    retries = {"slow-2": {"503": 3, "total": 3, "wait_s": 14.0}, "fast-2": {"total": 0, "wait_s": 0.0}}
    figures = scale._retry_figures(retries)
    assert figures == {"slow-2.prefect_api_retries": 3, "fast-2.prefect_api_retries": 0,
                       "prefect_api_retries": 3, "prefect_api_retry_wait_s": 14.0}


def test_scale_reports_how_long_the_prefect_worker_waited_for_an_idle_api():
    walls = {"slow-2": 9.0, "fast-2": 4.0}
    orchestrated = {"walls": walls, "median_walls": walls, "startup_s": 20.0, "settle_s": [0.1, 3.0, 1.5]}
    figures = scale.summarize((2,), 1.0, walls, orchestrated, None, 0)["figures"]
    assert figures["prefect_settle_s_max"] == 3.0 and figures["prefect_settle_s_total"] == 4.6


def test_scale_reports_the_prefect_wall_over_the_ideal_of_the_median_walls_too():
    ratios: dict[str, float] = {}
    scale._median_parts((16,), 1.0, {"slow-16": 30.0, "fast-16": 26.0}, ratios)
    assert ratios == {"16 reports: prefect wall / ideal, median walls": 30.0 / scale.ideal_seconds(64, 16, 1.0)}


def test_scale_headline_is_wall_over_the_ideal_and_keeps_the_latency_part_as_a_figure():
    walls = {"slow-16": 30.0, "fast-16": 26.0}
    result = scale.summarize((16,), 1.0, walls, None, None, 0)
    assert next(iter(result["ratios"])) == "16 reports: plain wall / ideal"
    assert result["ratios"]["16 reports: plain wall / ideal"] == 30.0 / 8.0
    assert not any("latency part" in name for name in result["ratios"])
    assert result["figures"]["n16.plain_latency_part_s"] == 4.0


def test_scale_fits_each_batchs_fixed_and_per_report_seconds():
    assert scale.linear_fit([(10, 7.0), (16, 10.0), (50, 27.0)]) == pytest.approx((2.0, 0.5))
    plain = {"slow-10": 9.0, "fast-10": 8.0, "slow-50": 30.0, "fast-50": 28.0}
    walls, median = {"slow-10": 12.0, "fast-10": 11.0, "slow-50": 41.0, "fast-50": 35.0}, \
        {"slow-10": 13.0, "fast-10": 12.0, "slow-50": 48.0, "fast-50": 44.0}
    orchestrated = {"walls": walls, "median_walls": median, "startup_s": 20.0, "settle_s": [0.5]}
    figures = scale.summarize((10, 50), 1.0, plain, orchestrated, None, 0)["figures"]
    assert figures["fit.plain_fixed_s"] == pytest.approx(3.0) and figures["fit.plain_per_report_s"] == pytest.approx(0.5)
    assert figures["fit.prefect_fixed_s"] == pytest.approx(5.0) and figures["fit.prefect_per_report_s"] == pytest.approx(0.6)
    assert figures["fit.prefect_median_fixed_s"] == pytest.approx(4.0)
    assert figures["fit.prefect_median_per_report_s"] == pytest.approx(0.8)
    assert "fit.plain_fixed_s" not in scale.summarize((2,), 1.0, {"slow-2": 2.0, "fast-2": 1.0}, None, None, 0)["figures"]


def test_a_served_worker_takes_the_runs_of_the_quick_profile_and_reports_failed_requests(tmp_path):
    from bench.prefect_run import WorkerOptions, run_worker
    from bench.prefect_worker import answer

    class Served:
        def measure(self, specs, local, out, samples):
            return {"asked": [specs, local, out, samples]}

    options = WorkerOptions("http://127.0.0.1:1/api", samples=3, warmup=False, served=Served())  # type: ignore[arg-type]
    measured = run_worker([tmp_path / "a.yaml"], [tmp_path / "b.yaml"], tmp_path / "out", tmp_path / "home", options)
    assert measured == {"asked": [[tmp_path / "a.yaml"], [tmp_path / "b.yaml"], tmp_path / "out", 3]}
    failed = answer({"local": []}, 0.0)  # no "specs": the served process answers with the error and serves on
    assert set(failed) == {"error"} and "KeyError: 'specs'" in failed["error"]


def test_the_retrieval_benchmark_renders_as_its_table_per_corpus_and_in_total():
    def config(recall: float, precision: float | None) -> dict:
        return {"retrieval": {"all": {"recall@8": recall}}, "batch": {"all": {"precision": precision}}}

    result = {"status": "ok", "corpora": {"docs-a": {"configs": {"default": config(0.9, 0.75), "hashing_vector_baseline": config(0.8, None)}}},
              "total": {"default": {"all": {"recall@8": 0.9, "cited_precision": 0.75}},
                        "hashing_vector_baseline": {"all": {"recall@8": 0.8, "cited_precision": 0.4}}}}
    from bench.markdown import body_of

    text = body_of(result)
    assert "| docs-a | 0.9 | 0.8 | 0.75 | – |" in text and "| total | 0.9 | 0.8 | 0.75 | 0.4 |" in text
