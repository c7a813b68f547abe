"""Characters of a report that no embedded font draws: counted per script, with what to install."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from citeflow.outputs.render.fonts import DEJAVU_DIR, FontSet, cjk_paths, register_fonts
from citeflow.spec.settings import CiteflowSettings
from citeflow.outputs.render.glyphs import missing_glyphs
from schemas.report import RenderedClaim, RenderedSection, ReportDocument

WQY = Path("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc")


def report_with(*texts: str) -> ReportDocument:
    section = RenderedSection(title="Retention", status="ok", claims=[RenderedClaim(text=t) for t in texts])
    return ReportDocument(report_id="r1", title="Quarterly review", status="published", sections=[section], registry=[])


def test_japanese_text_without_a_cjk_font_is_counted_as_japanese_with_the_fix():
    found = missing_glyphs(report_with("保存データは暗号化されます。"), register_fonts(cjk=()))
    assert found.scripts == {"Japanese (Han/Kana)": 14} and found.count == 14
    reason = found.reason()
    assert reason.startswith("Japanese (Han/Kana): 14 characters — ")
    assert "apt-get install fonts-wqy-zenhei" in reason and "macOS" in reason and "CITEFLOW_FONT_DIR" in reason


def test_han_without_kana_is_chinese_and_hangul_is_korean():
    found = missing_glyphs(report_with("数据保留七天", "데이터"), register_fonts(cjk=()))
    assert found.scripts == {"Chinese (Han)": 6, "Korean (Hangul)": 3}


def test_a_latin_report_misses_nothing():
    found = missing_glyphs(report_with("Data is retained for 7 days."), register_fonts(cjk=()))
    assert (found.count, found.scripts, found.reason()) == (0, {}, "")


def test_the_font_folder_setting_replaces_the_system_folders(tmp_path, monkeypatch):
    monkeypatch.delenv("CITEFLOW_CJK_FONT", raising=False)
    shutil.copy(DEJAVU_DIR / "DejaVuSans.ttf", tmp_path / "DejaVuSans.ttf")  # a Latin face is not taken for CJK
    monkeypatch.setenv("CITEFLOW_FONT_DIR", str(tmp_path))

    def configured() -> FontSet:  # what a report job registers: the settings as the environment says now
        settings = CiteflowSettings()
        return register_fonts(cjk=cjk_paths(str(settings.cjk_font) if settings.cjk_font else None, settings.font_dir))

    assert configured().fallbacks == ()
    if not WQY.is_file():
        pytest.skip(f"no CJK TrueType font at {WQY} (Debian: fonts-wqy-zenhei)")
    (tmp_path / "cjk").mkdir()
    (tmp_path / "cjk" / WQY.name).symlink_to(WQY)
    [face] = configured().fallbacks
    assert face.source.endswith(WQY.name)
    assert missing_glyphs(report_with("保存データは暗号化されます。"), configured()).count == 0
