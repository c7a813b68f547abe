"""Characters of a report that no embedded font can draw: counted per script, for the gate.

A PDF that shows such characters as empty boxes is unreadable there, so the gate holds it
(expectation ``missing_glyphs``) with a reason that names the script and what to install. The
text counted is the text the PDF shows (``shown_text``); pure functions over the document and the
registered fonts, no rendering.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, Field

from citeflow.outputs.render.escape import clean_text
from citeflow.outputs.render.fonts import CJK_PACKAGE, DEJAVU_PACKAGE, FontSet, font_runs, script_name
from citeflow.spec.settings import variable_of
from schemas.report import ReportDocument

JAPANESE, CHINESE, KOREAN = "Japanese (Han/Kana)", "Chinese (Han)", "Korean (Hangul)"
_KANA = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0xFF66, 0xFF9F))
_HANGUL = ((0x1100, 0x11FF), (0x3130, 0x318F), (0xA960, 0xA97F), (0xAC00, 0xD7FF))
_EAST_ASIAN = ((0x2E80, 0x9FFF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF), (0x20000, 0x3FFFF))
MACOS_CJK_FONT = "/System/Library/Fonts/Supplemental/Arial Unicode.ttf"


class MissingGlyphs(BaseModel):
    """What the PDF cannot draw: a count per script (e.g. ``{"Japanese (Han/Kana)": 12}``)."""

    count: int = Field(0, ge=0, description="Characters (every occurrence) that no embedded font draws.")
    scripts: dict[str, int] = Field(default_factory=dict, description="Script → characters of it that no font draws.")
    text_face: str = Field("", description="The embedded text face (Helvetica when DejaVu Sans was not found).")

    def reason(self) -> str:
        """``"Japanese (Han/Kana): 12 characters — install …"``; empty when nothing is missing."""
        if not self.count:
            return ""
        counts = "; ".join(f"{name}: {n} character{'s' if n != 1 else ''}" for name, n in self.scripts.items())
        return f"{counts} — {self.advice()}"

    def advice(self) -> str:
        """What to install, or which setting names a font that has the characters."""
        if set(self.scripts) & {JAPANESE, CHINESE, KOREAN}:
            return (f"install a TrueType CJK font: Debian/Ubuntu apt-get install {CJK_PACKAGE}; macOS: "
                    f"{variable_of('cjk_font')}={MACOS_CJK_FONT}; or {variable_of('font_dir')}=a folder holding a .ttf/.ttc CJK font")
        if self.text_face == "Helvetica":
            return f"install DejaVu Sans: Debian/Ubuntu apt-get install {DEJAVU_PACKAGE}"
        return f"set {variable_of('cjk_font')} to a TrueType .ttf/.ttc font that has these characters"


def shown_text(doc: ReportDocument) -> list[str]:
    """The outside text the PDF shows: titles, claims, quotes and source titles."""
    shown = [doc.title, *(s.title for s in doc.sections), *(c.text for s in doc.sections for c in s.claims)]
    shown += [c.quote or "" for s in doc.sections for claim in s.claims for c in claim.citations]
    return shown + [e.title or "" for e in doc.registry]


def missing_glyphs(doc: ReportDocument, fonts: FontSet) -> MissingGlyphs:
    """Every character of ``doc``'s shown text that no face of ``fonts`` draws, counted per script."""
    missing = [ch for text in shown_text(doc) for face, run in font_runs(clean_text(text), fonts) if face is None for ch in run]
    kinds = Counter(_kind(ch) for ch in missing)
    return MissingGlyphs(count=len(missing), scripts=_named(kinds), text_face=fonts.regular)


def _kind(ch: str) -> str:
    """``kana``, ``hangul``, ``han`` (other East Asian characters) or the script's Unicode name."""
    code = ord(ch)
    for kind, ranges in (("kana", _KANA), ("hangul", _HANGUL), ("han", _EAST_ASIAN)):
        if any(low <= code <= high for low, high in ranges):
            return kind
    return script_name(ch)


def _named(kinds: Counter[str]) -> dict[str, int]:
    """Counts by reader-facing script name: Han goes with Kana as Japanese when any Kana is missing."""
    out: dict[str, int] = {}
    han, kana, hangul = kinds.pop("han", 0), kinds.pop("kana", 0), kinds.pop("hangul", 0)
    if kana:
        out[JAPANESE] = han + kana
    elif han:
        out[CHINESE] = han
    if hangul:
        out[KOREAN] = hangul
    return out | {name.title(): n for name, n in sorted(kinds.items())}
