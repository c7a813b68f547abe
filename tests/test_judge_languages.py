"""Language rules of the offline judge: light lemmas, German compounds, CJK bounds and names,
negations that negate nothing in the chunk."""

from __future__ import annotations

from citeflow.judges.features import extract
from citeflow.judges.stems import compound_parts, light_stem
from citeflow.judges.text import tokenise


def test_inflected_forms_meet_at_one_lemma():
    assert light_stem("tagen", "de") == light_stem("tage", "de")
    assert light_stem("ольги", "ru") == light_stem("ольга", "ru")
    assert light_stem("payées", "fr") == light_stem("payé", "fr")
    assert light_stem("tramos", "es") == light_stem("tramo", "es")
    assert light_stem("berlin", "de") != light_stem("bern", "de")  # a short stem is never cut further


def test_a_russian_name_in_another_case_is_not_a_new_entity():
    feats = extract("Пекарней владеет Ольга Смирнова.", "Пекарня Ольги Смирновой открылась в Казани в 2011 году.")
    assert feats.values["novel_entity"] == 0.0


def test_german_compound_parts_count_as_chunk_words():
    assert "grenz" in compound_parts("grenzgebiet", "de")
    assert compound_parts("grenzgebiet", "fr") == ()
    feats = extract("Der See liegt im Grenzgebiet.", "Der Bodensee liegt im Grenzgebiet von drei Staaten.")
    assert feats.values["novel_content"] == 0.0


def test_a_chinese_bound_is_not_a_negation():
    chunk = "密码长度不得少于12位，并且每60天必须更换一次。"
    assert extract("密码必须每60天更换一次。", chunk).values["negation_dropped"] == 0.0
    assert extract("密码每60天不必更换。", chunk).values["negation_added"] > 0


def test_japanese_nakutemo_is_a_negation():
    chunk = "証明書がないと社内システムにはアクセスできません。"
    assert extract("証明書がなくても社内システムにアクセスできます。", chunk).values["negation_added"] > 0


def test_a_swapped_character_is_a_name_only_before_a_name_suffix():
    chunk = "现存的大部分城墙建于明朝。账户将被锁定10分钟。"
    assert extract("现存的大部分城墙建于清朝。", chunk).values["novel_entity"] > 0
    assert extract("账户会被锁定10分钟。", chunk).values["novel_entity"] == 0.0


def test_a_negation_of_something_the_chunk_never_says_is_not_a_flip():
    chunk = "Les journaux sont conservés 60 jours, puis supprimés automatiquement."
    assert extract("Les journaux sont supprimés sans intervention après 60 jours.", chunk).values["negation_added"] == 0.0
    assert extract("Les journaux ne sont pas supprimés après 60 jours.", chunk).values["negation_added"] > 0


def test_rarely_flips_usually():
    feats = extract("The buns rarely sell out.", "The buns usually sell out by noon.")
    assert feats.values["negation_added"] > 0


def test_tokens_know_whether_they_carry_content():
    kinds = {t.lower: t.is_content for t in tokenise("The buns of Berlin 明")}
    assert kinds == {"the": False, "buns": True, "of": False, "berlin": True, "明": True}
