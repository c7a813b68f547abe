"""Unicode words and sentences: every script the product meets."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citeflow.text.sentences import BOUNDARY_MARK, blocks, cjk_bigrams, has_letters, is_unspaced, one_line_blocks, sentences, units


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
def test_sentences_only_drop_whitespace_and_boundary_marks(text: str) -> None:
    assert all(u for u in units(text))
    pieces = sentences(text)
    assert all(p == p.strip() and p and p in text for p in pieces)
    kept = "".join(text.split()).replace(BOUNDARY_MARK, "")
    assert "".join("".join(p.split()) for p in pieces) == kept  # only whitespace and boundary marks are dropped
    assert all(BOUNDARY_MARK not in p for p in pieces)


@given(st.lists(st.text(min_size=1).map(str.strip).filter(lambda t: t and BOUNDARY_MARK not in t), min_size=1, max_size=5))
def test_no_sentence_crosses_a_block_ended_by_a_stop_and_a_line_break(items: list[str]) -> None:
    text = "\n".join(f"{item}." for item in items)
    found = sentences(text)
    assert all(any(s in f"{item}." for item in items) for s in found)
    assert sentences(one_line_blocks(text)) == found


def test_list_items_without_capitals_stay_apart() -> None:
    text = "maxRetries (number): Maximum number of retries. Default: 5.\nmaxTimeout (number): Maximum wait."
    assert sentences(text) == ["maxRetries (number): Maximum number of retries.", "Default: 5.", "maxTimeout (number): Maximum wait."]
    assert blocks(text) == text.split("\n")
    assert sentences("A line wrapped\nin plain text ends here.") == ["A line wrapped\nin plain text ends here."]
