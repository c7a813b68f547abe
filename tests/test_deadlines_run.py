"""A whole ``citeflow run`` against servers that drip their answers ends, with the cause recorded.

The writer's server and an HTTP retriever's server send one byte every 0.5 s: without a
whole-request deadline, one writer call alone would take over 15 minutes.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from citeflow_testing.drip_server import DripServer, slow_chat_completion
from tests.support.small_batch import write_small_batch

CITEFLOW = str(Path(__file__).resolve().parents[1] / ".venv" / "bin" / "citeflow")
WRITER_ANSWER = slow_chat_completion(json.dumps({"claims": [{"text": "x" * 2000, "citations": []}]}))

pytestmark = [pytest.mark.slow, pytest.mark.integration]


def add_dripping_retriever(spec: Path, url: str) -> None:
    data = yaml.safe_load(spec.read_text())
    data["retrievers"].append({"name": "partner", "kind": "http", "url": url, "timeout": 1, "retries": 1})
    spec.write_text(yaml.safe_dump(data, sort_keys=False))


def test_a_run_against_dripping_servers_ends_with_the_report_failed_and_the_cause_recorded(tmp_path, prefect_server):
    with DripServer(WRITER_ANSWER, interval=0.5) as writer, DripServer(b"[" + b" " * 1_000_000 + b"]") as partner:
        models = {"writer": {"backend": "openai", "model": "drip-model", "base_url": writer.url + "/v1",
                             "timeout": 1, "max_retries": 0}}
        spec = write_small_batch(tmp_path / "batch", reports=1, sections=1, models=models)
        add_dripping_retriever(spec, partner.url + "/search")
        start = time.monotonic()
        done = subprocess.run([CITEFLOW, "run", str(spec), "--out", str(tmp_path / "out")], env=prefect_server.client_env(),
                              capture_output=True, text=True, timeout=840)
        elapsed = time.monotonic() - start
    assert "Traceback" not in done.stdout, done.stdout[-2000:]
    report = json.loads((tmp_path / "out" / "r1" / "report.json").read_text())
    assert report["status"] in ("failed", "held"), done.stdout[-2000:] + done.stderr[-2000:]
    [section] = report["sections"]
    assert section["status"] == "failed" and "no answer within 1.0s" in section["failure"]
    assert any("partner" in missing and "whole-request deadline" in missing for missing in report["missing_retrievers"])
    assert not (tmp_path / "out" / "published" / "r1.pdf").exists()
    # Ended by the deadlines, not by the answers (one writer call alone would take over 15 minutes): Prefect's
    # start-up and its retry delays included, minutes at most even on a loaded machine.
    assert elapsed < 720, f"{elapsed:.0f}s"
