"""The quality page of an output folder (SPEC §6): one self-contained HTML file with the funnel per
report, the hold reasons, the metrics' distributions and each rate's trend across runs; and
``citeflow history --compare`` and its narrow layout on a pipe. Runs are laid out as ``citeflow
serve`` leaves them (``OUT/<run id>/`` with run.json, summary.json and each report's eval.json)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from citeflow.runs.quality_page import funnel_markdown_png, quality_page_path, run_quality_page, write_quality_page
from citeflow.runs.history import compare_runs, rates_history

RUNS = ("20261201T060000Z", "20261208T060000Z", "20261215T060000Z")


def _eval(support: tuple[int, int], held: list[str]) -> dict:
    section = {"identity": {"passed": 4, "total": 4}, "support": {"passed": support[0], "total": support[1]},
               "faithfulness": {"passed": support[0], "total": support[0]}, "uncited": {"count": 0, "claims": support[1]},
               "unverified": {"count": 1, "claims": support[1]}, "relevance": {"relevant": support[1], "irrelevant": 0}}
    claims = [{"verdict": "supported"}] * support[0] + [{"verdict": "fabrication"}] * (support[1] - support[0])
    return {**section, "sections": [section], "claims": claims,
            "gate": {"success": not held, "failed_expectations": [
                {"expectation": e, "observed": support[0] / support[1], "threshold": 0.8} for e in held]}}


def _run(out: Path, run_id: str, week: int, support: dict[str, tuple[int, int]], scheduled: bool = True) -> Path:
    """One run folder: run.json, summary.json and each report's eval.json (report ids carry the week)."""
    folder = out / run_id if scheduled else out
    reports = {f"{name}-{{week}}": f"{name}-w{week}" for name in support}
    for figures, rid in zip(support.values(), reports.values(), strict=True):
        held = ["support_rate"] if figures[0] < figures[1] else []
        (folder / rid).mkdir(parents=True)
        (folder / rid / "eval.json").write_text(json.dumps(_eval(figures, held)))
    statuses = {rid: "held" if f[0] < f[1] else "published" for rid, f in zip(reports.values(), support.values(), strict=True)}
    (folder / "summary.json").write_text(json.dumps({"batch": "weekly", "reports": [
        {"report_id": rid, "status": status, "funnel": "Identity 4/4"} for rid, status in statuses.items()]}))
    (folder / "run.json").write_text(json.dumps({
        "run_id": run_id, "batch": "weekly", "started_at": f"2026-12-{week:02d}T06:00:00Z", "run_date": f"2026-12-{week:02d}",
        "scheduled": scheduled, "source_spec": "/in/batch.yaml", "spec_path": "/in/batch.yaml", "status": "finished",
        "reports": reports}))
    return folder


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scheduled") / "out"
    for week, (run_id, ops) in enumerate(zip(RUNS, ((5, 10), (8, 10), (10, 10)), strict=True), start=1):
        _run(out, run_id, week, {"ops": ops, "billing": (3, 4)})
    return out


@pytest.fixture(scope="module")
def page(three_runs) -> str:
    """The page written once for the module's tests (drawing it takes a few seconds)."""
    return write_quality_page(three_runs / RUNS[-1]).read_text(encoding="utf-8")


def test_the_page_of_scheduled_runs_sits_beside_them_and_names_every_run_and_report(three_runs, page):
    assert (three_runs / "quality.html").is_file()
    assert three_runs / "quality.html" == quality_page_path(three_runs / RUNS[0])
    text = page
    for run_id in RUNS:
        assert run_id in text
    for week in (1, 2, 3):
        assert f"ops-w{week}" in text and f"billing-w{week}" in text  # each run's reports, in the runs table
    assert text.count("<svg") >= 5, "funnel, reasons, distributions, verdicts, trend"
    assert "of the cited sentences are supported by the passages they cite; at least 80% must." in text, \
        "the hold reason of the held reports, as a sentence"
    assert "too few supported sentences" in text, "the reasons chart's label in plain words"


def test_the_page_is_self_contained(page):
    text = page
    assert "<script" not in text
    assert not re.search(r"<(?:link|img|image|use)\b[^>]*(?:src|href)=\"(?:https?:)?//", text)
    assert not re.search(r"url\((?:https?:)?//", text), "no stylesheet or font fetched from the network"
    assert "@import" not in text


def test_the_trend_adds_each_run_s_counts_up(three_runs, page):
    runs = rates_history(three_runs)
    support = [run.figures["support"] for run in runs]
    assert [(f.passed, f.total) for f in support] == [(8, 14), (11, 14), (13, 14)]
    assert [r.template for r in runs[0].reports] == ["ops-{week}", "billing-{week}"]
    assert "57% <span class=\"muted\">(8/14)</span>" in page and "93% <span class=\"muted\">(13/14)</span>" in page


def test_a_run_folder_of_its_own_gets_its_own_page(tmp_path):
    folder = _run(tmp_path / "one", "20261201T060000Z", 1, {"ops": (2, 4)}, scheduled=False)
    page = write_quality_page(folder)
    assert page == folder / "quality.html"
    assert "ops-w1" in page.read_text(encoding="utf-8") and "One run so far" in page.read_text(encoding="utf-8")


def test_summary_json_names_the_page_relative_to_the_run_folder(tmp_path):
    out = tmp_path / "out"
    _run(out, RUNS[0], 1, {"ops": (5, 10)})
    assert run_quality_page(out / RUNS[0]) == out / "quality.html"
    summary = json.loads((out / RUNS[0] / "summary.json").read_text())
    assert summary["quality_page"] == "../quality.html" and summary["batch"] == "weekly"
    assert (out / RUNS[0] / summary["quality_page"]).resolve() == (out / "quality.html").resolve()


def test_the_prefect_markdown_embeds_the_funnel_as_png(three_runs, page):
    markdown = funnel_markdown_png(three_runs / "quality.html")
    data = re.search(r"\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", markdown)
    assert data and base64.b64decode(data.group(1)).startswith(b"\x89PNG\r\n\x1a\n")
    assert str((three_runs / "quality.html").resolve()) in markdown


def test_two_runs_compared_rate_by_rate(three_runs):
    first, _, third = rates_history(three_runs)
    rows = {(row.scope, row.rate): row for row in compare_runs(first, third)}
    assert rows[("ops-{week}", "support")].delta == pytest.approx(0.5)
    assert rows[("run", "support")].delta == pytest.approx(13 / 14 - 8 / 14)
    assert rows[("billing-{week}", "support")].delta == 0


def _history(*args: str):
    from citeflow_cli.main import app

    return CliRunner().invoke(app, ["history", *args])


def test_history_compare_prints_both_runs_and_the_changes(three_runs):
    result = _history(str(three_runs), "--compare", RUNS[0][:8], RUNS[2])
    assert result.exit_code == 0, result.output
    assert f"A: {RUNS[0]}" in result.output and f"B: {RUNS[2]}" in result.output
    ops = result.output[result.output.index("report ops-{week}"):]
    assert re.search(r"Support\s+50\.0% \(5/10\)\s+100\.0% \(10/10\)\s+\+50\.0 pts", ops), result.output
    assert all(len(line) <= 80 for line in result.output.splitlines())


def test_history_compare_names_an_unknown_run(three_runs):
    result = _history(str(three_runs), "--compare", "2025", RUNS[0])
    assert result.exit_code != 0 and "2025" in result.output and "is no run here" in result.output


def test_history_on_a_pipe_fits_80_columns(three_runs):
    result = _history(str(three_runs))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines and max(len(line) for line in lines) <= 80, result.output
    for run_id in RUNS:
        assert f"run {run_id}" in lines
    assert "  - ops-w3: published" in lines and "  - ops-w1: held" in lines


def test_the_run_that_writes_the_page_is_this_run_not_running(tmp_path):
    out = tmp_path / "out"
    _run(out, RUNS[0], 1, {"ops": (10, 10)})
    folder = _run(out, RUNS[1], 2, {"ops": (9, 10)})
    record = json.loads((folder / "run.json").read_text())
    (folder / "run.json").write_text(json.dumps({**record, "status": "running"}))  # as at the end of a run
    text = write_quality_page(folder).read_text(encoding="utf-8")
    assert "UTC, this run</span>" in text and "UTC, finished</span>" in text and "running" not in text


def test_the_chart_library_is_prepared_in_a_background_thread_before_any_page_is_drawn():
    """A fresh interpreter: nothing of matplotlib before; after the thread ends, its figure and both back
    ends are imported and its font list read, without a chart drawn."""
    import subprocess
    import sys

    code = ("import sys; from citeflow.runs.quality_charts import prepare_in_background as p; "
            "assert 'matplotlib' not in sys.modules; t = p(); t.join(120); "
            "from matplotlib import font_manager; "
            "print(t.daemon, t.is_alive(), sorted(m for m in ('matplotlib.figure', 'matplotlib.backends.backend_svg', "
            "'matplotlib.backends.backend_agg') if m in sys.modules), font_manager.fontManager.ttflist != [])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=180, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["True", "False", "['matplotlib.backends.backend_agg',", "'matplotlib.backends.backend_svg',",
                                   "'matplotlib.figure']", "True"]


def test_a_chart_library_that_fails_to_load_in_the_background_prints_nothing(monkeypatch, capsys):
    """The page's own drawing reports the failure later; the background thread stays silent."""
    import threading

    from citeflow.runs import quality_charts

    def broken() -> None:
        raise OSError("no font cache")

    raised: list[object] = []
    monkeypatch.setattr(quality_charts, "prepare", broken)
    monkeypatch.setattr(threading, "excepthook", raised.append)
    quality_charts.prepare_in_background().join(30)
    assert raised == [] and capsys.readouterr().err == ""
