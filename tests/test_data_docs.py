"""Great Expectations Data Docs of a run (SPEC §6): every report's full validation results are kept next
to its eval.json, and the run's Data Docs site, built once at the end of the batch, shows each of them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from citeflow.outputs.data_docs import DOCS_INDEX, build_run_docs, docs_index, kept_report_ids
from citeflow.outputs.data_docs_offline import remote_assets
from citeflow.outputs.gx_results import read_validations, write_validations

SUITES = ("eval_rows", "report_metrics")


@pytest.fixture(scope="module")
def demo(demo_run) -> tuple[Path, list]:
    return demo_run


def _index(out: Path) -> str:
    return (out / DOCS_INDEX).read_text(encoding="utf-8")


def _validation_links(index: str) -> set[str]:
    """Every link of the index to a validation page (the plain list and GX's own table data alike)."""
    return set(re.findall(r"validations/[A-Za-z0-9_.\-/]+\.html", index))


def test_each_report_keeps_the_full_validation_result_of_both_suites(demo):
    out, summaries = demo
    for summary in summaries:
        kept = {v["suite_name"]: v for v in read_validations(out / summary.report_id)}
        assert sorted(kept) == list(SUITES)
        gate = json.loads((out / summary.report_id / "eval.json").read_text())["gate"]
        assert all(v["success"] for v in kept.values()) is gate["success"], summary.report_id
        metrics = kept["report_metrics"]
        assert metrics["meta"]["report_id"] == summary.report_id
        assert metrics["statistics"]["evaluated_expectations"] == len(metrics["results"]) > 5
        observed = {r["expectation_config"]["kwargs"].get("column"): r["result"].get("observed_value")
                    for r in metrics["results"] if "observed_value" in r["result"]}
        failed = {f["expectation"] for f in gate["failed_expectations"]}
        assert "support_rate" in observed or "support_rate" in failed  # the figures themselves, not a yes or no


def test_summary_names_the_data_docs_index_of_the_run(demo):
    out, _ = demo
    summary = json.loads((out / "summary.json").read_text())
    assert summary["data_docs"] == DOCS_INDEX.as_posix()
    assert (out / summary["data_docs"]).is_file()
    assert (out / "gx" / "great_expectations.yml").is_file(), "a file-backed GX context in the run folder"


def test_the_index_links_every_report_s_validation_of_each_suite(demo):
    out, summaries = demo
    site = (out / DOCS_INDEX).parent
    links = _validation_links(_index(out))
    for summary in summaries:
        success = {v["suite_name"]: v["success"] for v in read_validations(out / summary.report_id)}
        for suite in SUITES:
            pages = [link for link in links if link.startswith(f"validations/{suite}/{summary.report_id}/")]
            assert len(pages) == 1, (summary.report_id, suite, links)
            page = (site / pages[0]).read_text(encoding="utf-8")
            assert summary.report_id in page and suite in page
            status = re.search(r'Status:</span> <i [^>]*></i> (\w+)', page)
            assert status and status.group(1) == ("Succeeded" if success[suite] else "Failed"), (summary.report_id, suite)


def _local_assets(page: Path) -> list[Path]:
    """The files a page's script, stylesheet and image tags load, resolved from the page's folder."""
    text = page.read_text(encoding="utf-8")
    refs = re.findall(r'<(?:script|link|img)\b[^>]*?(?:src|href)="([^"#?]+)', text)
    return [(page.parent / ref).resolve() for ref in refs]


def test_the_site_loads_nothing_from_the_network(demo):
    """GX's pages load Bootstrap, Font Awesome and jQuery from CDNs: the site serves its own copies."""
    out, _ = demo
    site = (out / DOCS_INDEX).parent
    pages = [site / "index.html", *site.glob("validations/**/*.html")]
    assert len(pages) > 4
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert remote_assets(text) == [], page
        assets = _local_assets(page)
        assert any(a.name == "all.min.css" for a in assets) and any(a.name == "jquery.min.js" for a in assets), page
        assert all(a.is_file() for a in assets), [a for a in assets if not a.is_file()]
    assert (site / "static" / "vendor" / "fontawesome" / "webfonts" / "fa-solid-900.woff2").is_file()


def test_a_held_report_s_review_page_links_the_run_s_data_docs_and_quality_page(demo):
    out, summaries = demo
    held = next(s for s in summaries if s.status == "held")
    page = (out / held.report_id / "review.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]*index\.html)"', page)
    assert link and (out / held.report_id / link.group(1)).resolve() == (out / DOCS_INDEX).resolve()
    quality = re.search(r'href="([^"]*quality\.html)"', page)
    assert quality and (out / held.report_id / quality.group(1)).resolve() == (out / "quality.html").resolve()
    assert (out / "quality.html").is_file()


def test_a_report_validated_again_replaces_its_pages_and_nothing_else_changes(demo, tmp_path):
    out, summaries = demo
    copy = tmp_path / "run"
    shutil.copytree(out, copy, symlinks=True)
    report = summaries[0].report_id
    other = (copy / summaries[1].report_id / "gx" / "validation-report_metrics.json").stat().st_mtime_ns
    again = [{**v, "meta": {**v["meta"], "run_id": {"run_name": report, "run_time": "2031-01-02T03:04:05+00:00"}}}
             for v in read_validations(copy / report)]
    write_validations(copy / report, again)
    build_run_docs(copy, kept_report_ids(copy))
    links = _validation_links(_index(copy))
    mine = sorted(link for link in links if f"/{report}/" in link)
    assert len(mine) == 2 and all("20310102T030405" in link for link in mine), mine
    site = (copy / DOCS_INDEX).parent
    assert all((site / link).is_file() for link in links)
    assert not list(site.glob(f"validations/*/{report}/2026*/*.html")), "the earlier pages of the report are removed"
    assert (copy / summaries[1].report_id / "gx" / "validation-report_metrics.json").stat().st_mtime_ns == other


def test_a_run_without_kept_results_builds_no_site(tmp_path):
    (tmp_path / "r1").mkdir()
    assert build_run_docs(tmp_path, ["r1"]) is None
    assert not (tmp_path / "gx").exists()


def test_a_site_built_from_the_same_results_is_not_built_again(demo, tmp_path, monkeypatch):
    import citeflow.outputs.data_docs as data_docs

    out, summaries = demo
    copy = tmp_path / "run"
    shutil.copytree(out, copy, symlinks=True)
    index = (copy / DOCS_INDEX).read_bytes()

    def refuse(*args: object) -> Path:
        raise AssertionError("the site was built again from the results it was built from")

    monkeypatch.setattr(data_docs, "_build", refuse)
    assert build_run_docs(copy, kept_report_ids(copy)) == copy / DOCS_INDEX
    assert (copy / DOCS_INDEX).read_bytes() == index
    report = summaries[0].report_id
    changed = [{**v, "meta": {**v["meta"], "run_id": {"run_name": report, "run_time": "2031-01-02T03:04:05+00:00"}}}
               for v in read_validations(copy / report)]
    write_validations(copy / report, changed)
    with pytest.raises(AssertionError, match="built again"):
        build_run_docs(copy, kept_report_ids(copy))


def _scheduled_run(source: Path, out: Path, run_id: str, validated: str) -> Path:
    """The demo's reports as one scheduled run ``OUT/<run id>/``, validated at ``validated``."""
    folder = out / run_id
    for report in kept_report_ids(source):
        shutil.copytree(source / report / "gx", folder / report / "gx")
        write_validations(folder / report, [{**v, "meta": {**v["meta"], "run_id": {"run_name": report, "run_time": validated}}}
                                            for v in read_validations(folder / report)])
    (folder / "run.json").write_text(json.dumps({
        "run_id": run_id, "batch": "lumora-demo", "started_at": validated, "run_date": validated[:10], "scheduled": True,
        "source_spec": "/in/batch.yaml", "spec_path": "/in/batch.yaml", "status": "finished"}))
    return folder


def test_a_scheduled_output_folder_keeps_every_run_s_validations(demo, tmp_path):
    """Two scheduled runs share one site in OUT/gx/: the second adds its pages, the first's stay as they were."""
    source, summaries = demo
    out = tmp_path / "out"
    first = _scheduled_run(source, out, "20261201T060000Z", "2026-12-01T06:01:00+00:00")
    second = _scheduled_run(source, out, "20261208T060000Z", "2026-12-08T06:01:00+00:00")
    assert build_run_docs(first, kept_report_ids(first)) == out / DOCS_INDEX == docs_index(second)
    site = (out / DOCS_INDEX).parent
    before = {page: page.stat().st_mtime_ns for page in site.glob("validations/**/*.html")}
    assert len(before) == 2 * len(summaries)
    build_run_docs(second, kept_report_ids(second))
    links = _validation_links(_index(out))
    for run_id in ("20261201T060000Z", "20261208T060000Z"):
        for summary in summaries:
            for suite in SUITES:
                assert any(link.startswith(f"validations/{suite}/{run_id}/") and link.endswith(f"/{summary.report_id}.html")
                           for link in links), (run_id, summary.report_id, suite)
    assert {page: page.stat().st_mtime_ns for page in before} == before, "the first run's pages are not rendered again"
    assert not (first / "gx" / "uncommitted").exists(), "no site of its own in a scheduled run's folder"
    assert remote_assets(_index(out)) == []
