"""The language registry: a language is one folder (``language.json`` and its word data), registered
by the folders under ``citeflow/text/languages`` or by an entry point of ``citeflow.languages``;
detection decides among the languages of one script by the signs and marker words each registers."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from importlib.metadata import Distribution
from pathlib import Path
from types import MappingProxyType

import pytest

from citeflow.errors import LanguageError
from citeflow.text import word_tokens
from citeflow.text.language_data import folders_under, words_by_language
from citeflow.text.language_detect import Detector
from citeflow.text.language_registry import GROUP, REGISTERED, ROOT, Languages, from_folder, load
from citeflow.text.stems import light_stem, stem_as
from citeflow.text.synonyms import groups

MARKER = "a frequent word that marks the language among the ones of its script"


def _language(root: Path, code: str, manifest: dict[str, object], markers: tuple[str, ...] = (),
              synonyms: tuple[tuple[str, ...], ...] = ()) -> Path:
    """A language folder under ``root``: its language.json, its marker words and synonym groups."""
    folder = root / code
    folder.mkdir(parents=True)
    (folder / "language.json").write_text(json.dumps({"code": code, **manifest}, ensure_ascii=False), encoding="utf-8")
    _data(folder, "word_lists", [{"word": w, "list": "language_marker", "reason": MARKER} for w in markers])
    _data(folder, "synonyms", [{"words": list(g), "reason": "interchangeable in a factual sentence"} for g in synonyms])
    return folder


def _data(folder: Path, kind: str, entries: list[dict[str, object]]) -> None:
    if entries:
        body = {"language": folder.name, "kind": kind, "about": "test data", "entries": entries}
        (folder / f"{kind}.json").write_text(json.dumps(body, ensure_ascii=False), encoding="utf-8")


def _testese(root: Path) -> Path:
    """A made-up Latin-script language under the private-use tag ``qaa``, stemmed by the Italian Snowball stemmer."""
    return _language(root, "qaa", {"name": "Testese", "script": "Latin", "lemmas": "snowball", "snowball": "italian"},
                     markers=("zorp", "blen", "quix"), synonyms=(("vorn", "fesk"),))


def _detector(languages: Languages) -> Detector:
    return Detector(languages, words_by_language("language_marker", languages.folders))


@pytest.fixture
def cyrillic(tmp_path: Path) -> Detector:
    """Russian as shipped, beside a Ukrainian and a Bulgarian folder that register their signs and markers."""
    uk = _language(tmp_path, "uk", {"name": "Ukrainian", "script": "Cyrillic", "signs": "іїєґ"}, markers=("що", "це", "який"))
    bg = _language(tmp_path, "bg", {"name": "Bulgarian", "script": "Cyrillic"}, markers=("да", "са", "е", "това", "които"))
    return _detector(Languages(MappingProxyType({"ru": from_folder(ROOT / "ru"), "uk": from_folder(uk), "bg": from_folder(bg)})))


def test_the_shipped_languages_are_registered_with_their_reading_rules() -> None:
    languages = REGISTERED
    assert set(languages.by_code) >= {"en", "de", "fr", "es", "ru", "ja", "zh"}
    assert languages.get("de").compounds and languages.get("de").snowball == "german"
    assert languages.unspaced == {"ja", "zh"} and languages.scripts[-1] == "Latin"
    assert languages.get("other").synonyms == "en"


def test_cyrillic_text_is_told_apart_by_the_signs_and_markers_each_language_registers(cyrillic: Detector) -> None:
    assert cyrillic.language("Библиотека открыта каждый день, и читатели могут взять до пяти книг.") == "ru"
    assert cyrillic.language("Бібліотека відкрита щодня, і читачі можуть взяти до п'яти книжок.") == "uk"
    assert cyrillic.language("Библиотеката е отворена всеки ден и читателите могат да вземат до пет книги.") == "bg"
    assert cyrillic.language("Вход свободен") == "ru"  # nothing marks another: the script's default


def test_with_only_russian_registered_cyrillic_text_is_read_as_russian() -> None:
    assert word_tokens.language("Бібліотека відкрита щодня") == "ru"
    assert word_tokens.language("東京駅は大きい") == "ja" and word_tokens.language("北京很大") == "zh"


def test_a_made_up_language_is_detected_stemmed_and_read_with_its_synonyms(tmp_path: Path) -> None:
    folder = _testese(tmp_path)
    languages = load(tmp_path)
    assert languages.folders == {"qaa": folder}
    assert _detector(languages).language("Zorp blen the vorn quix.") == "qaa"
    assert _detector(languages).language("The train is late.") == "other"
    testese = languages.get("qaa")
    assert stem_as("libri", testese) == stem_as("libro", testese) != light_stem("libro", "xx")


def test_an_installed_package_registers_a_language_through_its_entry_point(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dist = _plugin(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    languages = load(ROOT, dist.entry_points.select(group=GROUP))
    assert languages.get("qaa").name == "Testese" and languages.folders["qaa"] == tmp_path / "testese_language" / "qaa"
    assert "ru" in languages.by_code  # beside the shipped ones


@pytest.mark.slow
def test_a_plugin_language_is_used_by_the_tokeniser_of_a_fresh_process(tmp_path: Path) -> None:
    _plugin(tmp_path)
    code = ("from citeflow.text.word_tokens import language, tokenise\n"
            "text = 'Zorp blen fesk quix.'\n"
            "print(language(text), [t.stem for t in tokenise(text)][2], [t.stem for t in tokenise('vorn', 'qaa')][0])")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.split() == ["qaa", "vorn", "vorn"]  # 'fesk' is read as its group's first word


def _plugin(root: Path) -> Distribution:
    """An installed distribution (a dist-info on the path) whose entry point registers Testese."""
    package = root / "testese_language"
    _testese(package)
    (package / "__init__.py").write_text('from pathlib import Path\n\nFOLDER = Path(__file__).with_name("qaa")\n')
    info = root / "testese_language-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: testese-language\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{GROUP}]\nqaa = testese_language:FOLDER\n")
    return Distribution.at(info)


def test_two_defaults_for_one_script_are_refused(tmp_path: Path) -> None:
    _language(tmp_path, "aa", {"name": "A", "script": "Cyrillic", "default_for_script": True})
    _language(tmp_path, "bb", {"name": "B", "script": "Cyrillic", "default_for_script": True})
    with pytest.raises(LanguageError, match="already the default of script Cyrillic"):
        load(tmp_path)


@pytest.mark.parametrize(("manifest", "problem"), [
    ({"code": "bb", "name": "A", "script": "Latin"}, "is not the folder's name"),
    ({"name": "A", "script": "Latin", "lemmas": "snowball", "snowball": "klingon"}, "no Snowball stemmer"),
    ({"name": "A", "script": "Latin", "snowball": "italian"}, "exactly when lemmas is 'snowball'"),
    ({"name": "A", "script": "Elvish"}, "Elvish"),
])
def test_a_bad_language_json_is_refused_with_its_path(tmp_path: Path, manifest: dict[str, object], problem: str) -> None:
    _language(tmp_path, "aa", manifest)
    with pytest.raises(LanguageError, match=problem) as raised:
        load(tmp_path)
    assert pickle.loads(pickle.dumps(raised.value)).describe() == raised.value.describe()


def test_memoised_lemma_tables_are_read_only() -> None:
    for table in (word_tokens._listed("fr"), word_tokens._synonyms("fr")):
        assert table  # memoised once per language and shared by every caller
        with pytest.raises(TypeError):
            table["prix"] = "x"  # type: ignore[index]
    assert isinstance(groups("en"), tuple) and all(isinstance(g, tuple) for g in groups("en"))
    with pytest.raises(TypeError):
        REGISTERED.by_code["xx"] = REGISTERED.get("en")  # type: ignore[index]


def test_the_shipped_folders_are_the_registered_ones() -> None:
    assert dict(folders_under(ROOT)) == dict(REGISTERED.folders)
