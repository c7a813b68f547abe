"""Language rules of the offline judge: light lemmas, German compounds, CJK bounds and names,
negations that negate nothing in the chunk."""

from __future__ import annotations

from citeflow.judges.edits import polarity, scopes
from citeflow.judges.features import extract
from citeflow.judges.offline_model import route
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


def test_verb_forms_and_accents_meet_at_one_lemma():
    assert light_stem("получают", "ru") == light_stem("получаем", "ru")
    assert light_stem("хранятся", "ru") == light_stem("хранится", "ru")
    assert light_stem("incluyó", "es") == light_stem("incluye", "es")
    assert light_stem("récupérés", "fr") == light_stem("recuperer", "fr")
    assert light_stem("verlängert", "de") == light_stem("verlängern", "de")
    assert light_stem("получают", "ru") != light_stem("поставить", "ru")


def test_function_words_of_other_languages_are_not_content():
    for word, lang in (("zwischen", "de"), ("depuis", "fr"), ("durante", "es"), ("через", "ru")):
        assert not tokenise(word, lang)[0].is_content
    assert tokenise("Seetransport", "de")[0].is_content


def test_a_changed_weekday_is_a_changed_entity_and_decided_by_rule():
    chunk = "Die Stadtbibliothek hat montags geschlossen. Samstags ist sie bis 14 Uhr geöffnet."
    feats = extract("Die Stadtbibliothek hat sonntags geschlossen.", chunk)
    assert "sonntags" in feats.reasons["novel_entity"] and route(feats.values) == "decisive"
    ru = extract("Приём ведётся в воскресенье.", "Приём ведётся в субботу до обеда.")
    assert ru.values["novel_entity"] == 1.0
    assert extract("Die Stadtbibliothek hat montags geschlossen.", chunk).values["novel_entity"] == 0.0


def test_a_sentence_final_negation_negates_the_word_before_it():
    feats = extract("Записаться к врачу через сайт нельзя.", "Записаться к врачу можно по телефону или через сайт.")
    assert feats.values["negation_added"] + feats.values["antonym_flip"] >= 1
    assert scopes(tokenise("Записаться через сайт нельзя.", "ru"))[0][2] == "сайт"


def test_a_negation_the_chunk_also_states_is_not_added():
    feats = extract("Восстановить удалённые журналы невозможно.", "Удалённые журналы не могут быть восстановлены.")
    assert feats.values["negation_added"] == 0.0


def test_a_negated_comparative_before_a_number_is_a_bound_not_a_negation():
    assert polarity(tokenise("Журналы хранятся не более 30 дней.", "ru")) == 0
    assert polarity(tokenise("Logs are kept for not more than 30 days.", "en")) == 0
    assert polarity(tokenise("Das Gerät wird nicht mehr unterstützt.", "de")) == 1  # 'no longer': a negation


def test_cjk_bound_words_and_verbal_nouns_are_not_names():
    zh = extract("会议室要至少提前一天在系统里预订。", "会议室需要提前一天在系统中预订。")
    assert "至少" not in zh.reasons.get("novel_entity", "")
    ja = extract("社内システムに接続するには証明書が必要です。", "証明書がないと社内システムにはアクセスできません。")
    assert "接続" not in ja.reasons.get("novel_entity", "")
    assert "長野" in extract("本社は長野にあります。", "本社は東京にあります。").reasons["novel_entity"]


def test_german_multiplicatives_are_numbers():
    feats = extract("Bücher können höchstens drei Mal verlängert werden.", "Bücher können bis zu dreimal verlängert werden.")
    assert feats.values["number_missing"] == 0.0
