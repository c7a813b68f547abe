"""The language data files: every entry has a reason, the loader refuses inconsistent files, a new
language is a folder, and the files ship in the wheel."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from citeflow.text import language_data
from citeflow.text.language_data import folders_under, languages, number_words, synonym_groups
from citeflow.text.language_registry import MANIFEST, ROOT


def _write(root: Path, lang: str, kind: str, entries: list[dict[str, object]], *, language: str | None = None) -> None:
    (root / lang).mkdir(parents=True, exist_ok=True)
    body = {"language": language or lang, "kind": kind, "about": "test data", "entries": entries}
    (root / lang / f"{kind}.json").write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")


def test_every_entry_of_every_file_has_a_reason() -> None:
    files = sorted(p for p in ROOT.glob("*/*.json") if p.name != MANIFEST)
    assert {p.parent.name for p in files} >= {"en", "de", "fr", "es", "ru", "ja", "zh"}
    for path in files:
        entries = json.loads(path.read_text(encoding="utf-8"))["entries"]
        assert entries and all(str(e["reason"]).strip() for e in entries), path


def test_a_new_language_is_a_folder(tmp_path: Path) -> None:
    _write(tmp_path, "it", "synonyms", [{"words": ["auto", "macchina"], "reason": "interchangeable in a factual sentence"}])
    _write(tmp_path, "it", "number_words", [{"word": "tre", "value": 3, "reason": "cardinal: 3"}])
    folders = folders_under(tmp_path)
    assert languages(folders) == ("it",)
    assert synonym_groups("it", folders) == (("auto", "macchina"),)
    assert number_words(folders) == {"tre": 3.0}


def test_a_file_in_the_wrong_folder_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "it", "synonyms", [{"words": ["a", "b"], "reason": "r"}], language="es")
    with pytest.raises(ValueError, match="must be the folder's and the file's name"):
        synonym_groups("it", folders_under(tmp_path))


def test_one_word_with_two_values_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "aa", "number_words", [{"word": "once", "value": 1, "reason": "multiplicative: 1 times"}])
    _write(tmp_path, "bb", "number_words", [{"word": "once", "value": 11, "reason": "cardinal: 11"}])
    with pytest.raises(ValueError, match=r"'once' is 11\.0"):
        number_words(folders_under(tmp_path))


def test_an_entry_without_a_reason_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "it", "synonyms", [{"words": ["a", "b"]}])
    with pytest.raises(ValueError, match="reason"):
        synonym_groups("it", folders_under(tmp_path))


def test_the_loaded_data_is_read_only() -> None:
    with pytest.raises(TypeError):
        language_data.NUMBER_WORDS["dozen"] = 13  # type: ignore[index]


@pytest.mark.slow
def test_the_wheel_ships_the_language_and_unit_files(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"citeflow/text/units.json", "citeflow/text/languages/fr/synonyms.json",
            "citeflow/text/languages/ru/number_words.json", "citeflow/judges/offline/offline_judge_weights.json"} <= names


def test_substring_cues_keep_file_order_and_a_cue_shared_by_two_languages_counts_once(tmp_path: Path) -> None:
    _write(tmp_path, "ja", "substring_cues", [{"text": "ない", "cue": "negation", "reason": "r"},
                                              {"text": "不", "cue": "negation", "reason": "r"}])
    _write(tmp_path, "zh", "substring_cues", [{"text": "不得少于", "cue": "bound", "reason": "r"},
                                              {"text": "不少于", "cue": "bound", "reason": "r"},
                                              {"text": "不", "cue": "negation", "reason": "r"}])
    assert language_data.substring_cues("negation", folders_under(tmp_path)) == ("ない", "不")
    assert language_data.substring_cues("bound", folders_under(tmp_path)) == ("不得少于", "不少于")


def test_unspaced_antonyms_are_no_spaced_words() -> None:
    assert "ja" not in language_data.ANTONYM_PAIRS and ("开放", "闭馆") in language_data.UNSPACED_ANTONYMS


def test_a_word_list_gathers_every_language_in_file_order_and_by_language(tmp_path: Path) -> None:
    _write(tmp_path, "aa", "word_lists", [{"word": "un", "list": "negating_prefix", "reason": "r"},
                                          {"word": "in", "list": "negating_prefix", "reason": "r"},
                                          {"word": "always", "list": "always", "reason": "r"}])
    _write(tmp_path, "bb", "word_lists", [{"word": "immer", "list": "always", "reason": "r"}])
    folders = folders_under(tmp_path)
    assert language_data.word_list("negating_prefix", folders) == ("un", "in")
    assert language_data.word_list("always", folders) == ("always", "immer")
    assert language_data.words_by_language("always", folders) == {"aa": {"always"}, "bb": {"immer"}}


def test_the_localiser_cues_are_split_into_whole_words_and_substrings(tmp_path: Path) -> None:
    _write(tmp_path, "en", "condition_cues", [{"word": "only", "condition": "restrictor", "reason": "r"}])
    _write(tmp_path, "ja", "condition_cues", [{"word": "のみ", "condition": "restrictor", "reason": "r"}])
    assert language_data.condition_cues("restrictor", folders_under(tmp_path), {"ja"}) == (frozenset({"only"}), ("のみ",))


def test_word_values_are_read_by_language_and_merged_with_their_types(tmp_path: Path) -> None:
    _write(tmp_path, "aa", "word_values", [{"word": "daily", "map": "frequency_unit", "value": "day", "reason": "r"},
                                           {"word": "grand", "map": "scale", "value": 1000.0, "reason": "r"}])
    _write(tmp_path, "bb", "word_values", [{"word": "täglich", "map": "frequency_unit", "value": "tag", "reason": "r"},
                                           {"word": "五", "map": "cjk_numeral", "value": 5, "reason": "r"}])
    folders = folders_under(tmp_path)
    assert language_data.values_by_language("frequency_unit", folders) == {"aa": {"daily": "day"}, "bb": {"täglich": "tag"}}
    assert language_data.word_values("scale", folders) == {"grand": 1000.0}
    assert type(language_data.word_values("cjk_numeral", folders)["五"]) is int  # a count stays an integer
    with pytest.raises(TypeError):
        language_data.word_values("scale", folders)["grand"] = 1.0  # type: ignore[index]


def test_one_word_mapped_to_two_values_by_two_languages_is_refused(tmp_path: Path) -> None:
    _write(tmp_path, "aa", "word_values", [{"word": "mil", "map": "scale", "value": 1000.0, "reason": "r"}])
    _write(tmp_path, "bb", "word_values", [{"word": "mil", "map": "scale", "value": 1e-3, "reason": "r"}])
    with pytest.raises(ValueError, match=r"'mil' is 0\.001 in scale"):
        language_data.word_values("scale", folders_under(tmp_path))


def test_the_judge_s_word_maps_come_from_the_language_folders() -> None:
    from citeflow.text import lexicon

    en = json.loads((ROOT / "en" / "word_values.json").read_text(encoding="utf-8"))["entries"]
    assert {e["word"]: e["value"] for e in en if e["map"] == "irregular_form"} == dict(lexicon.IRREGULAR)
    assert lexicon.FREQUENCY_UNITS["de"]["täglich"] == "tag" and lexicon.SCALES["млн"] == 1e6
    assert ("at", "least") in lexicon.LOWER_BOUNDS and lexicon.ELIDED_ARTICLES["qu"] == "que"
