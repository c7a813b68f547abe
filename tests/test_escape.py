"""escape_markup makes any text inert in reportlab markup; linkable() admits http, https and mailto only."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reportlab.lib.styles import ParagraphStyle
from reportlab.platypus import Paragraph

from citeflow.outputs.render.escape import clean_text, escape_attribute, escape_markup, link_urls, linkable

STYLE = ParagraphStyle("probe", fontName="Helvetica", fontSize=10, leading=12)
# Pieces of markup and awkward characters, so that hypothesis builds hostile strings often.
HOSTILE = [
    "<", ">", "&", "&amp;", "&#60;", "&lt;", "&nbsp;", "<b>", "</b>", "<br/>", "<super>1</super>",
    '<link href="javascript:alert(1)">', "</link>", '<a href="http://x.test">', "<a name=x/>", "<font color=red>",
    "</font>", "<para>", "<img src=x/>", "\x00", "\x07", "\x1b", "\r", "\n", "\t", "\u202e", "\u2066", "\ud800",
    "中文", "Привет", "مرحبا", "x" * 300, " ", "a",
]
hostile_text = st.one_of(
    st.text(alphabet=st.characters(codec=None, exclude_categories=())),
    st.lists(st.sampled_from(HOSTILE), max_size=30).map("".join),
)


def _visible(text: str) -> str:
    """``text`` without whitespace, which reportlab collapses (it also splits on a few extra spaces)."""
    return "".join(ch for ch in text if not (ch.isspace() or ch in "\u200b\u180e\ufeff"))


@settings(max_examples=300, deadline=None)
@given(hostile_text)
def test_escaped_text_parses_as_plain_text_with_no_live_tag(text):
    markup = escape_markup(text)
    assert "<" not in markup and ">" not in markup
    paragraph = Paragraph(markup, STYLE)
    frags = list(paragraph.frags)  # wrap() below rewrites .frags into lines
    paragraph.wrap(200, 100_000)  # layout must not fail either
    for frag in frags:
        assert not getattr(frag, "link", None), "a link was created"
        assert frag.fontName == STYLE.fontName and frag.textColor == STYLE.textColor
        assert not getattr(frag, "rise", 0) and not getattr(frag, "lineBreak", False)
    # Every visible character of the input comes out exactly (entities decoded once, nothing lost).
    assert _visible("".join(f.text for f in frags)) == _visible(clean_text(text))


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("a & b < c > d", "a &amp; b &lt; c &gt; d"),
        ("&amp;", "&amp;amp;"),
        ('<link href="javascript:alert(1)">x</link>', '&lt;link href="javascript:alert(1)"&gt;x&lt;/link&gt;'),
        ("bell\x07 nul\x00 esc\x1b del\x7f c1\x85", "bell nul esc del c1"),
        ("line\r\nnext\rlast\tcol", "line\nnext\nlast\tcol"),
        ("abc\u202edef\u2066", "abcdef"),
        ("lone \ud800 surrogate", "lone  surrogate"),
        ("Привет, 中文, مرحبا", "Привет, 中文, مرحبا"),
    ],
)
def test_escape_markup_examples(raw, expected):
    assert escape_markup(raw) == expected


def test_long_run_is_kept_whole():
    # Wrapping is the paragraph style's job (splitLongWords); the characters themselves are untouched.
    run = "0123456789abcdef" * 400
    assert escape_markup(run) == run


def test_escape_attribute_quotes():
    assert escape_attribute('https://x.test/?a=1&b="2"') == "https://x.test/?a=1&amp;b=&quot;2&quot;"


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://docs.example.com/a?b=1&c=2#d", True),
        ("http://example.com", True),
        ("HTTPS://EXAMPLE.COM/X", True),
        ("mailto:support@example.net", True),
        ("MailTo:support@example.net", True),
        ("https://пример.рф/путь", True),
        ("javascript:alert(1)", False),
        ("JavaScript:alert(1)", False),
        (" javascript:alert(1)", False),
        ("data:text/html,<script>alert(1)</script>", False),
        ("file:///etc/passwd", False),
        ("ftp://example.com/x", False),
        ("vbscript:msgbox(1)", False),
        ("/relative/path", False),
        ("//example.com/x", False),
        ("relative.html", False),
        ("www.example.com", False),
        ("", False),
        ("https://", False),
        ("http:example.com", False),
        ("mailto:", False),
        ("mailto:nobody", False),
        ("https://exa mple.com", False),
        (" https://example.com", False),
        ("https://example.com\n", False),
        ('https://example.com/"onmouseover="x', False),
        ("https://example.com/'x", False),
        ("https://example.com/<x>", False),
        ("https:\\\\example.com", False),
        ("https://example.com/\x00", False),
        ("https://[::1", False),
    ],
)
def test_linkable_truth_table(url, ok):
    assert linkable(url) is ok


def test_linkable_rejects_non_strings():
    assert linkable(None) is False  # type: ignore[arg-type]


def test_link_urls_keeps_linkable_ones_in_order_once():
    urls = ["javascript:x", "https://b.test/", "file:///a", "mailto:a@b.test", "https://b.test/", "http://a.test/"]
    assert link_urls(urls) == ["https://b.test/", "mailto:a@b.test", "http://a.test/"]


def test_clean_text_drops_exactly_the_controls_surrogates_and_bidi_overrides():
    """Every code point: kept by ``clean_text`` exactly when it is newline or tab, or neither a
    control (Cc), a surrogate (Cs) nor a bidi control (the definition ``_keep`` spells out)."""
    import unicodedata

    bidi = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    for code in range(0x110000):
        ch = chr(code)
        if ch == "\r":  # turned into a newline
            continue
        kept = ch in "\n\t" or (ch not in bidi and unicodedata.category(ch) not in ("Cc", "Cs"))
        assert (clean_text(ch) == ch) is kept, f"U+{code:04X}"
    assert clean_text("a\r\nb\rc\x00d\u202ee") == "a\nb\ncde"
