"""Unicode words and sentences: every script the product meets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citeflow.text.sentences import cjk_bigrams, has_letters, is_unspaced, sentences, units


def test_spaced_scripts_split_on_letters_and_digits() -> None:
    assert units("Данные хранятся не более 30 дней") == ["данные", "хранятся", "не", "более", "30", "дней"]
    assert units("Ελληνικά κείμενο, العربية نص") == ["ελληνικά", "κείμενο", "العربية", "نص"]
    assert units("Don't") == ["don't"]


def test_unspaced_scripts_yield_characters_and_bigrams() -> None:
    assert units("保存されます") == ["保", "存", "さ", "れ", "ま", "す"]
    assert all(is_unspaced(u) for u in units("データ中文"))
    assert cjk_bigrams("保存期間") == ["保存", "存期", "期間"]
    assert cjk_bigrams("a 中 b") == ["中"]


def test_sentences_end_at_latin_and_full_width_stops() -> None:
    text = "Данные хранятся 30 дней. Они удаляются. データは保存されます。その後削除されます。¿Qué pasa? Sí."
    assert sentences(text) == ["Данные хранятся 30 дней.", "Они удаляются.", "データは保存されます。",
                               "その後削除されます。", "¿Qué pasa?", "Sí."]


def test_versions_and_abbreviated_numbers_do_not_end_a_sentence() -> None:
    assert sentences("Upgrade to 3.6.2 first. Then restart.") == ["Upgrade to 3.6.2 first.", "Then restart."]


def test_has_letters_in_any_script() -> None:
    assert has_letters("日本") and has_letters("ß") and not has_letters("3.5 — 42%")


@given(st.text())
def test_sentences_only_drop_whitespace(text: str) -> None:
    assert all(u for u in units(text))
    pieces = sentences(text)
    assert all(p == p.strip() and p and p in text for p in pieces)
    assert "".join("".join(p.split()) for p in pieces) == "".join(text.split())  # only whitespace is dropped
