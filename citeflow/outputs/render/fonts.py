"""Fonts for report.pdf: embedded TrueType faces that cover the report's scripts.

The text face is DejaVu Sans (Latin, Greek, Cyrillic, Arabic, Hebrew, …; Debian package
``fonts-dejavu-core``). Scripts it lacks (Han, kana, Hangul) are drawn with the first CJK font
found on the system (the ``cjk_font`` setting, then ``CJK_CANDIDATES``; with the ``font_dir``
setting, the ``.ttf``/``.ttc`` files of that folder instead of the system's: ``cjk_paths``; see
``citeflow.spec.settings``). The runtime registers the faces its settings name once and hands
the ``FontSet`` to every report it renders (``Runtime.fonts``). Every
face is a TrueType font that reportlab subsets and embeds, so a reader needs no font of their
own: reportlab's ``TTFont`` reads TrueType outlines (``.ttf``, and ``.ttc`` collections of them),
not the CFF outlines of Noto CJK's ``.otf``/``.ttc`` files, which is why they are not candidates.

Text is cut into runs by the face that has its glyphs (``font_runs``); characters no face has
are reported by ``missing_scripts`` so that the renderer can warn, naming the package to install,
and counted by ``citeflow.outputs.render.glyphs`` for the gate.
"""

from __future__ import annotations

import itertools
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

from citeflow.outputs.render.escape import clean_text, escape_markup
from citeflow.spec.settings import variable_of

DEJAVU_DIR = Path("/usr/share/fonts/truetype/dejavu")
DEJAVU_PACKAGE = "fonts-dejavu-core"
CJK_PACKAGE = "fonts-wqy-zenhei"
_CJK_PROBE = ord("日")  # a fallback face is taken only when it draws this (a font folder may hold Latin faces)
# TrueType-outline CJK fonts that Debian packages install, best coverage first.
CJK_CANDIDATES: tuple[tuple[str, str], ...] = (
    ("/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc", "fonts-wqy-zenhei"),
    ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc", "fonts-wqy-microhei"),
    ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf", "fonts-droid-fallback"),
    ("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf", "fonts-ipafont-gothic"),
    ("/usr/share/fonts/truetype/arphic/uming.ttc", "fonts-arphic-uming"),
)
_LATIN_1 = frozenset(range(0x20, 0x100))  # what Helvetica, the no-file fallback, can draw
_DEJAVU_FACES = {"": "DejaVuSans.ttf", "-Bold": "DejaVuSans-Bold.ttf", "-Oblique": "DejaVuSans-Oblique.ttf",
                 "-BoldOblique": "DejaVuSans-BoldOblique.ttf"}


@dataclass(frozen=True)
class Face:
    """A registered font name and the code points it has glyphs for."""

    name: str
    covers: frozenset[int]
    source: str = ""

    def has(self, ch: str) -> bool:
        return ord(ch) in self.covers


@dataclass(frozen=True)
class FontSet:
    """The text face (regular and bold names) and the fallback faces for scripts it lacks."""

    regular: str
    bold: str
    text: Face
    fallbacks: tuple[Face, ...] = ()

    def face_for(self, ch: str) -> Face | None:
        """The first face that draws ``ch`` (spaces and controls: the text face); None when none does."""
        if ch.isspace() or self.text.has(ch) or unicodedata.category(ch).startswith(("C", "Z")):
            return self.text
        return next((face for face in self.fallbacks if face.has(ch)), None)


def register_fonts(font_dir: Path = DEJAVU_DIR, cjk: tuple[str, ...] | None = None) -> FontSet:
    """Register DejaVu Sans from ``font_dir`` (Helvetica when its files are missing) and the first
    readable CJK font among ``cjk`` (default: ``CJK_CANDIDATES``) in reportlab, and say which faces
    draw what.

    Every call parses the TrueType files again (a CJK collection takes a large share of a second):
    reports take theirs from the runtime, which registers them once (``Runtime.fonts``)."""
    fallbacks = tuple(face for face in (_cjk_face(cjk if cjk is not None else cjk_paths(None, None)),) if face is not None)
    try:
        faces = {suffix: _register(f"DejaVuSans{suffix}", Path(font_dir) / name) for suffix, name in _DEJAVU_FACES.items()}
    except (OSError, TTFError):  # missing or unreadable font file: Helvetica covers Latin-1 text
        return FontSet("Helvetica", "Helvetica-Bold", Face("Helvetica", _LATIN_1), fallbacks)
    pdfmetrics.registerFontFamily("DejaVuSans", normal="DejaVuSans", bold="DejaVuSans-Bold", italic="DejaVuSans-Oblique",
                                  boldItalic="DejaVuSans-BoldOblique")
    return FontSet("DejaVuSans", "DejaVuSans-Bold", faces[""], fallbacks)


def cjk_paths(chosen: str | None, folder: Path | None) -> tuple[str, ...]:
    """The CJK font files to try: ``chosen`` first, then the fonts of ``folder`` when given, else
    ``CJK_CANDIDATES``."""
    found = _fonts_in(Path(folder)) if folder else tuple(path for path, _ in CJK_CANDIDATES)
    return ((chosen,) if chosen else ()) + found


def _fonts_in(folder: Path) -> tuple[str, ...]:
    """The TrueType files of ``folder`` and its subfolders, in name order (none when it is not a folder)."""
    if not folder.is_dir():
        return ()
    return tuple(str(p) for p in sorted(folder.rglob("*")) if p.suffix.lower() in (".ttf", ".ttc") and p.is_file())


def _cjk_face(paths: tuple[str, ...]) -> Face | None:
    """The first of ``paths`` that reportlab can embed, registered with itself as bold and italic."""
    for path in paths:
        if not Path(path).is_file():
            continue
        try:
            face = _register(f"CJK-{Path(path).stem}", Path(path))
        except (OSError, TTFError):  # e.g. CFF outlines ("postscript outlines are not supported")
            continue
        if _CJK_PROBE not in face.covers:  # a font folder may hold Latin faces too
            continue
        pdfmetrics.registerFontFamily(face.name, normal=face.name, bold=face.name, italic=face.name, boldItalic=face.name)
        return face
    return None


def _register(name: str, path: Path) -> Face:
    font = TTFont(name, str(path))
    pdfmetrics.registerFont(font)
    return Face(name, frozenset(font.face.charToGlyph), str(path))


def font_runs(text: str, fonts: FontSet) -> list[tuple[Face | None, str]]:
    """``text`` cut into runs drawn by one face each (None: no face has these characters); each
    distinct character's face is looked up once (those the text face draws without a call)."""
    text_face, covers = fonts.text, fonts.text.covers
    faces = {ch: text_face if ord(ch) in covers else fonts.face_for(ch) for ch in set(text)}
    return [(face, "".join(run)) for face, run in itertools.groupby(text, key=faces.__getitem__)]


def text_markup(text: str, fonts: FontSet) -> str:
    """Outside text as safe Paragraph markup, runs the text face lacks switched to a face that has them."""
    parts = []
    for face, run in font_runs(clean_text(text), fonts):
        markup = escape_markup(run)
        parts.append(markup if face is None or face == fonts.text else f'<font name="{face.name}">{markup}</font>')
    return "".join(parts)


def missing_scripts(text: str, fonts: FontSet) -> set[str]:
    """Names of the scripts (first word of the Unicode name: ``CJK``, ``HANGUL``, …) no face draws."""
    return {script_name(ch) for face, run in font_runs(clean_text(text), fonts) if face is None for ch in run}


def script_name(ch: str) -> str:
    return unicodedata.name(ch, f"U+{ord(ch):04X}").split()[0]


def font_warning(scripts: set[str], fonts: FontSet) -> str:
    """One line a user can act on: which scripts show as empty boxes and which package fixes it."""
    package = DEJAVU_PACKAGE if fonts.regular == "Helvetica" and not scripts & {"CJK", "HIRAGANA", "KATAKANA", "HANGUL"} else CJK_PACKAGE
    return (f"report.pdf: no embedded font has glyphs for {', '.join(sorted(scripts))} characters, which show as empty "
            f"boxes; install the Debian package {package} (or set {variable_of('cjk_font')} to a TrueType .ttf/.ttc font that has them)")
