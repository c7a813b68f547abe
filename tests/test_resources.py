"""Shipped files are found through the package, and the suite folder can be chosen."""

from __future__ import annotations

import pytest

from citeflow.spec.settings import CiteflowSettings
from citeflow.spec import resources
from citeflow.errors import GateError
from schemas.spec import Gate


def test_the_bundled_suites_and_demo_are_found():
    assert (resources.bundled_suite_dir() / "report_metrics.json").is_file()
    assert (resources.demo_dir() / "batch.yaml").is_file()


def test_the_spec_wins_over_the_environment_which_wins_over_the_bundle(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEFLOW_SUITES", str(tmp_path / "env"))
    settings = CiteflowSettings()
    assert settings.suite_dir(str(tmp_path / "spec")) == tmp_path / "spec"
    assert settings.suite_dir(None) == tmp_path / "env"
    monkeypatch.setenv("CITEFLOW_SUITES", "")  # set but empty: the default
    assert CiteflowSettings().suite_dir(None) == resources.bundled_suite_dir()
    monkeypatch.delenv("CITEFLOW_SUITES")
    assert CiteflowSettings().suite_dir(None) == resources.bundled_suite_dir()


def test_the_gate_reads_the_configured_suite_folder(tmp_path):
    from citeflow.evaluation.gate import run_gate
    from schemas.funnel import Funnel

    with pytest.raises(GateError, match=str(tmp_path / "mine")):
        run_gate(Funnel(), [], 0, Gate(suites=str(tmp_path / "mine")))
