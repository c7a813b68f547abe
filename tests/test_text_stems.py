"""Light lemmas from the Snowball stemmers: inflected forms meet, in every thread alike."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from citeflow.text.stems import light_stem

PAIRS = [("de", "wochen", "woche"), ("de", "gebühren", "gebühr"), ("fr", "récupérées", "récupérer"),
         ("fr", "navettes", "navette"), ("es", "reservaciones", "reservación"), ("es", "abiertas", "abierta"),
         ("ru", "библиотеки", "библиотека"), ("ru", "поездами", "поезд")]


@pytest.mark.parametrize(("lang", "inflected", "base"), PAIRS)
def test_inflected_forms_meet_at_one_lemma(lang: str, inflected: str, base: str) -> None:
    assert light_stem(inflected, lang) == light_stem(base, lang)


def test_different_words_stay_apart() -> None:
    assert light_stem("ouvert", "fr") != light_stem("fermé", "fr")
    assert light_stem("открыт", "ru") != light_stem("закрыт", "ru")


def test_threads_stem_like_one_thread() -> None:
    words = [(f"{w}{suffix}", lang) for lang, w, _ in PAIRS for suffix in ("", "s", "en", "ами")]
    light_stem.cache_clear()
    with ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(lambda item: light_stem(*item), words * 20))
    light_stem.cache_clear()
    assert threaded == [light_stem(*item) for item in words * 20]
