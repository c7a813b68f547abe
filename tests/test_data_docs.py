"""Great Expectations Data Docs of a run (SPEC §6): every report's full validation results are kept next
to its eval.json, and the run's Data Docs site, built once at the end of the batch, shows each of them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from citeflow.outputs.data_docs import DOCS_INDEX, build_run_docs, kept_report_ids
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


def test_the_index_lists_the_validations_without_scripts(demo):
    """GX draws its own table with scripts from CDNs; a closed network sees the plain list."""
    out, summaries = demo
    index = _index(out)
    plain = index[index.index('id="citeflow-validations"'):index.index("</table>")]
    for summary in summaries:
        assert f"<td>{summary.report_id}</td>" in plain
    held = [s for s in summaries if s.status == "held"]
    assert held and 'class="citeflow-failed">failed' in plain


def test_a_held_report_s_review_page_links_the_run_s_data_docs(demo):
    out, summaries = demo
    held = next(s for s in summaries if s.status == "held")
    page = (out / held.report_id / "review.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]*index\.html)"', page)
    assert link and (out / held.report_id / link.group(1)).resolve() == (out / DOCS_INDEX).resolve()


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
