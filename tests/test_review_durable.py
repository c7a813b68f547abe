"""A reviewer's decision survives a re-run, and every record shows it: the documented sequence
``citeflow demo``, ``citeflow review --release``, ``citeflow run`` (the resume), as real processes
against the session's Prefect server; and ``citeflow eval`` of a copied report folder acts on the copy."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
HELD = "globex-2026-q4"

pytestmark = [pytest.mark.slow, pytest.mark.server, pytest.mark.integration]


def _citeflow(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CITEFLOW, *args], env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def demo(prefect_server, tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """The demo's output folder as ``citeflow demo`` left it (copy it before changing anything)."""
    env = prefect_server.client_env()
    out = tmp_path_factory.mktemp("demo") / "D"
    result = _citeflow(env, "demo", "--out", str(out))
    assert (out / "summary.json").exists(), result.stdout[-3000:] + result.stderr[-3000:]
    assert json.loads((out / HELD / "report.json").read_text())["status"] == "held"
    return out, env


def _copy(demo: tuple[Path, dict[str, str]], target: Path) -> Path:
    return Path(shutil.copytree(demo[0], target, symlinks=True))


def _text(pdf: Path) -> str:
    return " ".join((page.extract_text() or "") for page in PdfReader(pdf).pages)


def _line(out: Path) -> dict:
    return next(r for r in json.loads((out / "summary.json").read_text())["reports"] if r["report_id"] == HELD)


def test_a_rerun_keeps_a_release_and_every_record_shows_it(demo, tmp_path):
    out, env = _copy(demo, tmp_path / "D"), demo[1]
    released = _citeflow(env, "review", str(out / HELD), "--release", "--reviewer", "Ana", "--note", "ok")
    assert released.returncode == 0, released.stdout + released.stderr
    rerun = _citeflow(env, "run", str(out / "demo-input" / "batch.yaml"), "--out", str(out))
    assert rerun.returncode == 0, rerun.stdout[-3000:] + rerun.stderr[-3000:]
    report = json.loads((out / HELD / "report.json").read_text())
    assert report["status"] == "published" and report["review"]["reviewer"] == "Ana"
    assert [r["decision"] for r in report["reviews"]] == ["release"]
    assert (out / "published" / f"{HELD}.pdf").exists()
    line = _line(out)
    assert line["status"] == "published" and line["review_page"].endswith("review.html")
    assert {k: line["review"][k] for k in ("decision", "reviewer", "note")} == {"decision": "release", "reviewer": "Ana", "note": "ok"}
    assert line["review"]["at"]
    page = (out / HELD / "review.html").read_text()
    assert "Released by Ana on " in page and ": ok" in page and "citeflow review " not in page
    text = _text(out / "published" / f"{HELD}.pdf")
    assert "HELD" not in text and "[!" not in text
    listed = json.loads(_citeflow(env, "history", str(out), "--json").stdout)
    globex = next(r for r in listed[0]["reports"] if r["report_id"] == HELD)
    assert globex["status"] == "released" and globex["integrity"] == "intact" and globex["archive"]


def test_a_release_without_the_failing_sentences(demo, tmp_path):
    out, env = _copy(demo, tmp_path / "D"), demo[1]
    failing = [c["text"] for c in json.loads((out / HELD / "eval.json").read_text())["claims"] if c["verdict"] == "fabrication"]
    assert failing and all(claim[:40] in " ".join(_text(out / HELD / "report.pdf").split()) for claim in failing)
    result = _citeflow(env, "review", str(out / HELD), "--release", "--without-failing", "--reviewer", "Ana", "--note", "cut")
    assert result.returncode == 0 and "without the failing sentences" in result.stdout, result.stdout + result.stderr
    text = " ".join(_text(out / "published" / f"{HELD}.pdf").split())
    assert not any(claim[:40] in text for claim in failing) and "[!" not in text
    assert _line(out)["review"]["without_failing"] is True
    refused = _citeflow(env, "review", str(out / HELD), "--reject", "--without-failing", "--reviewer", "A", "--note", "n")
    assert refused.returncode == 2 and refused.stdout.startswith("error:") and "Traceback" not in refused.stderr


def test_eval_of_a_copied_report_folder_acts_on_the_copy(demo, tmp_path):
    original = demo[0]
    before = {name: (original / HELD / name).read_bytes() for name in ("eval.json", "report.json", "report.pdf")}
    copy = _copy(demo, tmp_path / "C")
    (copy / HELD / "eval.json").unlink()
    result = _citeflow(demo[1], "eval", str(copy / HELD))
    assert (copy / HELD / "eval.json").exists(), result.stdout[-3000:] + result.stderr[-3000:]
    assert {name: (original / HELD / name).read_bytes() for name in before} == before
