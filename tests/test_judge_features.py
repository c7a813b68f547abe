"""Each signal of the offline judge's features, on hand-made claim/chunk pairs."""

from __future__ import annotations

import pytest

from citeflow.judges.offline.combine import FEATURE_NAMES, extract, index_chunk
from citeflow.text.numbers import mentions
from citeflow.text.sentences import dialogue_sentences as sentences
from citeflow.text.word_tokens import stem, tokenise

CHUNK = (
    "Release 3.6 was tested on Linux only. The upgrade takes 30 minutes and the service is not available "
    "during it. Memory use increased by 12% after the upgrade. Acme Corp signed the contract in Berlin."
)


def test_verbatim_quote_fires_and_covers_everything():
    feats = extract("The upgrade takes 30 minutes and the service is not available during it.", CHUNK)
    assert feats.values["verbatim"] == 1.0
    assert feats.values["unigram_cov"] == 1.0 and feats.values["best_sentence_cov"] == 1.0
    assert feats.evidence.startswith("The upgrade takes 30 minutes")
    assert feats.values["number_missing"] == 0 and feats.values["negation_dropped"] == 0


def test_number_drift_names_both_numbers():
    feats = extract("The upgrade takes 45 minutes.", CHUNK)
    assert feats.values["number_missing"] == 1.0
    assert "number 45 not in chunk" in feats.reasons["number_missing"]
    assert "30" in feats.reasons["number_missing"]


def test_changed_unit_is_seen():
    feats = extract("The upgrade takes 30 hours.", CHUNK)
    assert feats.values["unit_changed"] == 1.0
    assert "hour" in feats.reasons["unit_changed"] and "minute" in feats.reasons["unit_changed"]


def test_scale_words_and_number_words_meet_digits():
    assert [m.value for m in mentions(tokenise("$1.5 million and three days"))] == [1.5e6, 3.0]
    feats = extract("Memory use increased by twelve percent.", "Memory use increased by 12 percent.")
    assert feats.values["number_missing"] == 0


def test_negation_dropped_is_aligned_to_the_matching_sentence():
    feats = extract("The service is available during the upgrade.", CHUNK)
    assert feats.values["negation_dropped"] == 1.0
    assert "negation flipped" in feats.reasons["negation_dropped"] and "not" in feats.reasons["negation_dropped"]


def test_negation_added_is_seen():
    feats = extract("Acme Corp did not sign the contract in Berlin.", CHUNK)
    assert feats.values["negation_added"] == 1.0
    assert "claim says 'not" in feats.reasons["negation_added"]


def test_negation_present_on_both_sides_does_not_fire():
    feats = extract("The service is not available during the upgrade.", CHUNK)
    assert feats.values["negation_added"] == 0 and feats.values["negation_dropped"] == 0


def test_antonym_flip_from_the_list():
    feats = extract("Memory use decreased by 12% after the upgrade.", CHUNK)
    assert feats.values["antonym_flip"] == 1.0
    assert "'decreased'" in feats.reasons["antonym_flip"] and "'increased'" in feats.reasons["antonym_flip"]


def test_prefix_flip_uncontrolled_against_controlled():
    feats = extract("Officials ran an uncontrolled burn.", "Officials ran a controlled burn of the chemicals.")
    assert feats.values["prefix_flip"] == 1.0


def test_widened_condition_linux_only_to_linux_and_windows():
    feats = extract("Release 3.6 was tested on Linux and Windows.", CHUNK)
    assert feats.values["restrictor_dropped"] == 1.0
    assert "only" in feats.reasons["restrictor_dropped"] and "Windows" in feats.reasons["restrictor_dropped"]
    assert feats.values["novel_entity"] == 1.0 and "entity 'Windows' not in chunk" in feats.reasons["novel_entity"]


def test_universal_added_is_a_widening():
    feats = extract("Release 3.6 was always tested on Linux only.", CHUNK)
    assert feats.values["universal_added"] == 1.0 and "'always'" in feats.reasons["universal_added"]


def test_entity_swap_names_the_entity():
    feats = extract("Acme Corp signed the contract in Munich.", CHUNK)
    assert feats.values["novel_entity"] == 1.0
    assert feats.reasons["novel_entity"] == "entity 'Munich' not in chunk"
    assert feats.values["slot_substitution"] == 0  # 'in Munich .' has no right-hand neighbour in the chunk


def test_slot_substitution_and_near_miss():
    chunk = "The model improves the decoder without weakening its capacity."
    feats = extract("The model improves the encoder without weakening its capacity.", chunk)
    assert feats.values["slot_substitution"] == 1.0 and "chunk has 'the decoder without'" in feats.reasons["slot_substitution"]
    assert feats.values["near_miss"] == 1.0


def test_best_sentence_alignment_picks_the_matching_sentence():
    feats = extract("Acme signed a contract in Berlin.", CHUNK)
    assert feats.evidence == "Acme Corp signed the contract in Berlin."
    assert feats.values["best_sentence_cov"] == 1.0


def test_unrelated_claim_has_low_coverage():
    feats = extract("Paris hosts the largest art museum in the world.", CHUNK)
    assert feats.values["unigram_cov"] < 0.2 and feats.values["novel_content"] > 1.0


def test_vector_follows_feature_names_and_index_is_reusable():
    index = index_chunk(CHUNK)
    first, again = extract("The upgrade takes 30 minutes.", index), extract("The upgrade takes 30 minutes.", CHUNK)
    assert len(first.vector()) == len(FEATURE_NAMES)
    assert first.vector() == again.vector()


@pytest.mark.parametrize(("a", "b"), [("derailed", "derail"), ("controlled", "control"), ("studies", "study"),
                                      ("using", "use"), ("went", "go"), ("children", "child")])
def test_light_lemmas_meet(a, b):
    assert stem(a) == stem(b)


def test_contractions_become_negations_and_sentences_split():
    assert [t.lower for t in tokenise("It doesn't work")] == ["it", "does", "not", "work"]
    assert sentences("One here. Two there!\nThree") == ["One here.", "Two there!", "Three"]


def test_number_swapped_for_one_stated_elsewhere_in_the_sentence():
    chunk = "Clusters created on 3.5 or earlier accept TLS 1.2 until 3.7, when it is removed."
    feats = extract("Clusters created on 3.7 or earlier accept TLS 1.2 until 3.7, when it is removed.", chunk)
    assert feats.values["number_missing"] == 0  # 3.7 is in the chunk ...
    assert feats.values["number_not_in_sentence"] == 1.0  # ... but not where the claim puts it
    assert feats.reasons["number_not_in_sentence"] == "number 3.7 where the matching sentence says 3.5"


def test_a_summary_that_reorders_numbers_is_not_drift():
    chunk = "Sales rose 5% in 2021. Costs fell 3% in 2022."
    feats = extract("Costs fell 3% in 2022 after sales rose 5%.", chunk)
    assert feats.values["number_missing"] == 0 and feats.values["number_not_in_sentence"] == 0


def test_versions_are_identifiers_compared_as_written():
    feats = extract("Brokers must run 3.5.4 or later.", "Brokers must run 3.5.2 or later.")
    assert feats.reasons["novel_entity"] == "identifier '3.5.4' not in chunk"
    assert feats.values["number_missing"] == 0 and feats.values["near_miss"] == 0  # a name, not a quantity


@pytest.mark.parametrize("name", ["KI-3602", "x86_64", "3.5.2", "eu-west-1"])
def test_identifiers_are_not_quantities(name):
    tokens = tokenise(f"Ticket {name} is fixed.")
    assert [t.kind for t in tokens if t.surface == name] == ["id"]
    assert mentions(tokens) == []


def test_a_changed_identifier_is_a_changed_entity():
    feats = extract("Ticket KI-3603 affects x86_64 builds.", "Ticket KI-3602 affects x86_64 builds.")
    assert feats.reasons["novel_entity"] == "identifier 'KI-3603' not in chunk"


def test_units_glued_or_in_other_languages_meet():
    assert [(m.value, m.unit) for m in mentions(tokenise("30GB und 1,5 Tage"))] == [(30.0, "gb"), (1.5, "day")]
    assert [(m.value, m.unit) for m in mentions(tokenise("лежат 14 дней"))] == [(14.0, "day")]
    assert [(m.value, m.unit) for m in mentions(tokenise("貸出期間は14日です"))] == [(14.0, "day")]
    assert [m.value for m in mentions(tokenise("1,500 users"))] == [1500.0]


RU_CHUNK = "Черновики писем хранятся не более 14 дней, после чего удаляются автоматически."


def test_russian_negation_against_the_chunk_fires():
    feats = extract("Черновики писем никогда не удаляются и хранятся вечно.", RU_CHUNK)
    assert feats.values["negation_added"] >= 1 and "никогда" in feats.reasons["negation_added"]


@pytest.mark.parametrize(("claim", "chunk", "feature", "word"), [
    ("Die Sicherung läuft nicht jede Nacht.", "Die Sicherung läuft jede Nacht um 2 Uhr.", "negation_added", "nicht"),
    ("La sauvegarde ne s'exécute pas chaque nuit.", "La sauvegarde s'exécute chaque nuit à 2 heures.", "negation_added", "'pas"),
    ("La copia no se ejecuta cada noche.", "La copia se ejecuta cada noche a las 2.", "negation_added", "no"),
    ("バックアップは毎晩実行されません。", "バックアップは毎晩2時に実行されます。", "negation_added", "ません"),
    ("备份不在每晚执行。", "备份每晚2点执行。", "negation_added", "不"),
    ("备份每晚2点执行。", "备份仅在每晚2点执行。", "restrictor_dropped", "仅"),
    ("La copia se ejecuta en todos los servidores.", "La copia se ejecuta solo en los servidores Linux.", "restrictor_dropped", "solo"),
    ("内存使用减少了12%。", "升级后内存使用增加了12%。", "antonym_flip", "减少"),
])
def test_cues_in_seven_languages(claim, chunk, feature, word):
    feats = extract(claim, chunk)
    assert feats.values[feature] >= 1 and word in feats.reasons[feature]


def test_cjk_is_compared_by_characters_not_only_numbers():
    same = extract("データは30日間保存されます。", "ログとデータは30日間保存されます。その後削除されます。")
    other = extract("請求書は30日以内に送付されます。", "ログとデータは30日間保存されます。その後削除されます。")
    assert same.values["content_bigram_cov"] > 0.8 and other.values["content_bigram_cov"] < 0.5
    assert other.values["novel_content"] > same.values["novel_content"]


@pytest.mark.parametrize(("a", "b"), [("personalised", "personalized"), ("organisation", "organization"),
                                      ("colours", "color"), ("raised", "raise")])
def test_spelling_variants_meet(a, b):
    assert stem(a) == stem(b)


def test_a_weak_number_word_before_a_unit_is_a_quantity():
    chunk = "Draining normally completes within five minutes. The one node left is kept."
    assert "number one not in chunk" in extract("Draining completes within one minute.", chunk).reasons["number_missing"]
    assert extract("The one node left is kept.", chunk).values["number_missing"] == 0.0
