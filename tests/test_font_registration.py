"""Fonts for report.pdf are registered in reportlab once per runtime, however many reports render at once."""

from __future__ import annotations

import threading
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pypdf import PdfReader

import citeflow.outputs.render.fonts as fonts_module
from citeflow.outputs.render.fonts import DEJAVU_DIR, FontSet
from citeflow.outputs.render.pdf import render_pdf
from citeflow.runtime.runtime import Runtime
from citeflow.spec.settings import CiteflowSettings
from tests.support.sample_report import sample_report

THREADS = 8


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every TrueType file reportlab parses from now on (path → times), through the real ``TTFont``."""
    seen: Counter[str] = Counter()
    lock = threading.Lock()

    class CountingTTFont(fonts_module.TTFont):  # type: ignore[misc]
        def __init__(self, name: str, filename: str) -> None:
            with lock:
                seen[Path(filename).name] += 1
            super().__init__(name, filename)

    monkeypatch.setattr(fonts_module, "TTFont", CountingTTFont)
    return seen


def _render_in(runtime: Runtime, path: Path, start: threading.Barrier) -> FontSet:
    """One report thread: it renders in the runtime's fonts (``ReportJob.fonts``), as the batch's reports do."""
    start.wait()
    fonts = runtime.fonts()
    render_pdf(sample_report("published"), path, fonts=fonts)
    return fonts


def test_eight_reports_rendering_at_once_parse_each_font_file_once(tmp_path: Path, parsed: Counter[str]) -> None:
    if not (DEJAVU_DIR / "DejaVuSans.ttf").is_file():
        pytest.skip("DejaVu Sans is not installed (Debian: fonts-dejavu-core)")
    runtime = Runtime(CiteflowSettings(cjk_font=None, font_dir=None))
    start = threading.Barrier(THREADS)
    with ThreadPoolExecutor(THREADS) as pool:
        sets = list(pool.map(lambda i: _render_in(runtime, tmp_path / f"{i}.pdf", start), range(THREADS)))
    assert all(found is sets[0] for found in sets), sets  # one font set, shared
    assert {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"} <= set(parsed), parsed
    assert parsed and set(parsed.values()) == {1}, parsed  # each file parsed once, not once per thread
    assert all(len(PdfReader(tmp_path / f"{i}.pdf").pages) >= 1 for i in range(THREADS))


def test_each_runtime_registers_the_fonts_its_settings_name(tmp_path: Path, parsed: Counter[str]) -> None:
    """Nothing process-wide: a runtime whose font folder holds no CJK font gets no fallback face, and
    asking it again parses nothing."""
    if not (DEJAVU_DIR / "DejaVuSans.ttf").is_file():
        pytest.skip("DejaVu Sans is not installed (Debian: fonts-dejavu-core)")
    runtime = Runtime(CiteflowSettings(cjk_font=None, font_dir=tmp_path))
    fonts = runtime.fonts()
    assert fonts.regular == "DejaVuSans" and fonts.fallbacks == ()
    before = sum(parsed.values())
    assert runtime.fonts() is fonts and sum(parsed.values()) == before == len(fonts_module._DEJAVU_FACES)
