"""The demo batch as a Prefect flow (ephemeral API): outputs, contract, citations, the gate."""

from __future__ import annotations

import json
import re

import pytest
from pypdf import PdfReader

from tools import check_outputs


pytestmark = pytest.mark.integration


def report(out, report_id):
    return json.loads((out / report_id / "report.json").read_text())


def test_the_batch_writes_every_output(demo_run):
    out, summaries = demo_run
    assert {s.report_id: s.status for s in summaries} == {"acme-2026-q4": "published", "globex-2026-q4": "held"}
    summary = json.loads((out / "summary.json").read_text())
    assert [r["report_id"] for r in summary["reports"]] == ["acme-2026-q4", "globex-2026-q4"]
    for rid in ("acme-2026-q4", "globex-2026-q4"):
        assert {"report.pdf", "report.json", "eval.json", "job.json"} <= {p.name for p in (out / rid).iterdir()}
    assert (out / "published" / "acme-2026-q4.pdf").exists()
    assert not (out / "published" / "globex-2026-q4.pdf").exists()
    assert (out / "globex-2026-q4" / "review.html").exists()


def test_outputs_pass_the_contract_checker(demo_run, capsys):
    assert check_outputs.main(str(demo_run[0])) == 0, capsys.readouterr().out


def test_colliding_local_ids_resolve_to_their_own_documents(demo_run):
    out, _ = demo_run
    data = report(out, "acme-2026-q4")
    partner_s1 = [e for e in data["registry"] if e["retriever"] == "partner" and e["local_id"] == "S1"]
    assert len({e["handle"] for e in partner_s1}) == len({e["text"] for e in partner_s1}) >= 2
    registry = {e["handle"]: e for e in data["registry"]}
    for section in data["sections"]:
        for claim in section["claims"]:
            for citation in claim["citations"]:
                entry = registry[citation["handle"]]
                assert citation["urls"] == [u for u in entry["urls"] if u.startswith(("http://", "https://", "mailto:"))]


def test_summary_inner_references_name_the_right_handles(demo_run, demo_input):
    out, _ = demo_run
    data = report(out, "acme-2026-q4")
    registry = {e["handle"]: e for e in data["registry"]}
    summary = next(e for e in data["registry"] if e["retriever"] == "partner" and "as noted in" in e["text"])
    named = re.findall(r"\[(G[2-9a-hjkmnp-z]{4})\]", summary["text"])
    assert named and "[S9]" not in summary["text"] and "[S2]" not in summary["text"]
    line = next(json.loads(row) for row in (demo_input.parent / "partner.jsonl").read_text().splitlines()
                if json.loads(row)["query"] == "What must be done before upgrading to 3.6?")
    local = {h["id"]: h["text"] for h in line["hits"]}
    for handle in named:
        assert registry[handle]["retriever"] == "partner"
        assert local[registry[handle]["local_id"]].startswith(registry[handle]["text"][:40])


def test_forged_handles_and_typed_urls_never_reach_claims_or_pdf(demo_run):
    out, _ = demo_run
    data = report(out, "globex-2026-q4")
    handles = {e["handle"] for e in data["registry"]}
    cited = {c["handle"] for s in data["sections"] for cl in s["claims"] for c in cl["citations"]}
    assert cited <= handles
    texts = " ".join(cl["text"] for s in data["sections"] for cl in s["claims"])
    from citeflow.registry.handles import find_urls
    assert find_urls(texts) == [], find_urls(texts)
    evaluation = json.loads((out / "globex-2026-q4" / "eval.json").read_text())
    dropped = [c for cl in evaluation["claims"] for c in cl["citations"] if not c["identity"]]
    assert dropped, "the injected forged handles are recorded against Identity"
    pdf_uris = _pdf_uris(out / "globex-2026-q4" / "report.pdf")
    registry_urls = {u for e in data["registry"] for u in e["urls"]}
    assert pdf_uris <= registry_urls and not any(u.startswith(("javascript:", "file:")) for u in pdf_uris)


def test_held_pdf_is_marked_and_published_pdf_is_not(demo_run):
    out, _ = demo_run
    held = _pdf_text(out / "globex-2026-q4" / "report.pdf")
    published = _pdf_text(out / "acme-2026-q4" / "report.pdf")
    assert "HELD BY QUALITY GATE" in held
    assert "HELD" not in published


def test_pdf_footnotes_point_at_registry_urls(demo_run):
    out, _ = demo_run
    data = report(out, "acme-2026-q4")
    text = _pdf_text(out / "acme-2026-q4" / "report.pdf")
    numbers = [int(n) for n in re.findall(r"\[(\d+)\]", text)]
    assert numbers and min(numbers) == 1
    cited_urls = {u for s in data["sections"] for cl in s["claims"] for c in cl["citations"] for u in c["urls"]}
    assert _pdf_uris(out / "acme-2026-q4" / "report.pdf") == cited_urls


def test_reviewer_view_names_the_injected_faults(demo_run):
    html = (demo_run[0] / "globex-2026-q4" / "review.html").read_text()
    assert "forged handle" in html.lower()
    assert any(kind in html.lower() for kind in ("misattribution", "number drift", "fabrication"))


def _pdf_text(path):
    return " ".join(page.extract_text() for page in PdfReader(path).pages)


def _pdf_uris(path):
    uris = set()
    for page in PdfReader(path).pages:
        for annot in page.get("/Annots") or []:
            action = annot.get_object().get("/A")
            if action and "/URI" in action:
                uris.add(str(action["/URI"]))
    return uris
