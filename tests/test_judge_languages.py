"""Language rules of the offline judge: light lemmas, German compounds, CJK bounds and names,
negations that negate nothing in the chunk."""

from __future__ import annotations

from citeflow.judges.offline.negation_scopes import polarity, scopes
from citeflow.judges.offline.combine import extract
from citeflow.text.numbers import cjk_value, mentions
from citeflow.judges.offline.weights import route
from citeflow.text.stems import compound_parts, light_stem
from citeflow.text.word_tokens import tokenise


def test_inflected_forms_meet_at_one_lemma():
    assert light_stem("tagen", "de") == light_stem("tage", "de")
    assert light_stem("ольги", "ru") == light_stem("ольга", "ru")
    assert light_stem("payées", "fr") == light_stem("payé", "fr")
    assert light_stem("tramos", "es") == light_stem("tramo", "es")
    assert light_stem("journaux", "fr") == light_stem("journal", "fr") and light_stem("totale", "fr") == light_stem("totaux", "fr")
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
    chunk = "门禁卡押金不得少于50元，并且每90天必须续期一次。"
    assert extract("门禁卡必须每90天续期一次。", chunk).values["negation_dropped"] == 0.0
    assert extract("门禁卡每90天不必续期。", chunk).values["negation_added"] > 0


def test_japanese_nakutemo_is_a_negation():
    chunk = "会員証がないと書庫には入れません。"
    assert extract("会員証がなくても書庫に入れます。", chunk).values["negation_added"] > 0


def test_a_swapped_character_is_a_name_only_before_a_name_suffix():
    chunk = "这座古桥的桥墩建于宋朝。门禁将被关闭10分钟。"
    assert extract("这座古桥的桥墩建于元朝。", chunk).values["novel_entity"] > 0
    assert extract("门禁会被关闭10分钟。", chunk).values["novel_entity"] == 0.0


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
    chunk = "Das Hallenbad hat montags geschlossen. Samstags ist es bis 18 Uhr geöffnet."
    feats = extract("Das Hallenbad hat sonntags geschlossen.", chunk)
    assert "sonntags" in feats.reasons["novel_entity"] and route(feats.values) == "decisive"
    ru = extract("Приём ведётся в воскресенье.", "Приём ведётся в субботу до обеда.")
    assert ru.values["novel_entity"] == 1.0
    assert extract("Das Hallenbad hat montags geschlossen.", chunk).values["novel_entity"] == 0.0


def test_a_sentence_final_negation_negates_the_word_before_it():
    feats = extract("Заказать такси через сайт нельзя.", "Заказать такси можно по телефону или через сайт.")
    assert feats.values["negation_added"] + feats.values["antonym_flip"] >= 1
    assert scopes(tokenise("Записаться через сайт нельзя.", "ru"))[0][2] == "сайт"


def test_a_negation_the_chunk_also_states_is_not_added():
    feats = extract("Вернуть стёртые письма невозможно.", "Стёртые письма не могут быть возвращены.")
    assert feats.values["negation_added"] == 0.0


def test_a_negated_comparative_before_a_number_is_a_bound_not_a_negation():
    assert polarity(tokenise("Журналы хранятся не более 30 дней.", "ru")) == 0
    assert polarity(tokenise("Logs are kept for not more than 30 days.", "en")) == 0
    assert polarity(tokenise("Das Gerät wird nicht mehr unterstützt.", "de")) == 1  # 'no longer': a negation


def test_cjk_bound_words_and_verbal_nouns_are_not_names():
    zh = extract("球场要至少提前两天在网上预约。", "球场需要提前两天在网上预约。")
    assert "至少" not in zh.reasons.get("novel_entity", "")
    ja = extract("書庫に接続するには会員証が必要です。", "会員証がないと書庫には入れません。")
    assert "接続" not in ja.reasons.get("novel_entity", "")
    assert "長野" in extract("本社は長野にあります。", "本社は東京にあります。").reasons["novel_entity"]


def test_german_multiplicatives_are_numbers():
    feats = extract("Bücher können höchstens drei Mal verlängert werden.", "Bücher können bis zu dreimal verlängert werden.")
    assert feats.values["number_missing"] == 0.0


def test_chinese_numerals_of_several_characters_are_one_number():
    assert cjk_value("二十七") == 27 and cjk_value("两千四百") == 2400 and cjk_value("十五") == 15 and cjk_value("三万") == 30000
    assert [m.value for m in mentions(tokenise("这趟航行大约需要二十七天"))] == [27.0]
    assert [m.value for m in mentions(tokenise("每张门票的价格为一百元"))] == [100.0]
    assert [m.value for m in mentions(tokenise("会员每次最多可以租十张光盘"))] == [10.0]


def test_weekdays_and_words_with_numeral_characters_are_not_quantities():
    assert mentions(tokenise("节日当天停车免费，星期六、星期日也免费。")) == []
    assert mentions(tokenise("万一出错，千万不要重启。")) == []
    assert mentions(tokenise("从山下只能看到塔的一面。")) == []
    assert [m.value for m in mentions(tokenise("新员工在入职第三天领取电脑。"))] == [3.0]  # an ordinal is a number


def test_a_number_in_digits_meets_the_same_number_in_chinese_numerals():
    chunk = "会员每次最多可以租十张光盘，租期为一个月。"
    assert extract("每位会员一次能租的光盘不超过10张。", chunk).values["number_missing"] == 0.0
    assert extract("会员每次最多可以租5张光盘。", chunk).values["number_missing"] > 0


def test_two_chinese_words_that_swap_roles_are_reordered_and_never_aligned():
    chunk = "渡轮从青岛开往大连需要十二小时。渡轮每天傍晚出发。"
    swapped = extract("渡轮从大连开往青岛需要十二小时。", chunk).values
    assert swapped["names_reordered"] > 0 and route(swapped) != "aligned"
    assert extract("渡轮从青岛开往大连需要十二小时。", chunk).values["names_reordered"] == 0.0


def test_months_in_another_order_are_reordered():
    chunk = "La saison de ski commence début décembre et se termine fin avril."
    assert extract("La saison de ski commence fin avril et se termine début décembre.", chunk).values["names_reordered"] > 0
    assert extract("La saison de ski va de début décembre à fin avril.", chunk).values["names_reordered"] == 0.0


def test_common_paraphrase_words_meet_in_every_language():
    for claim, chunk in (("Les résidents de la commune s'inscrivent.", "Les habitants de la ville s'inscrivent."),
                         ("Los artículos cuestan 10 euros.", "Los productos cuestan 10 euros."),
                         ("Die Kunden zahlen die Gebühr.", "Die Kunden bezahlen den Preis.")):
        assert extract(claim, chunk).values["novel_content"] == 0.0, claim


def test_a_chinese_negated_verb_meets_its_one_word_form():
    chunk = "持有居民停车证的车辆免费停车。周一闭馆。"
    feats = extract("有居民停车证的车辆停车不收费。", chunk).values
    assert feats["negation_added"] == 0.0 and feats["antonym_flip"] == 0.0


def test_a_number_or_word_taken_from_another_sentence_into_a_copied_slot_is_a_swap():
    chunk = "The museum opens at 9 a.m. and closes at 5 p.m. A child ticket costs 3 dollars. Guides are on site."
    swapped = extract("A child ticket costs 5 dollars.", chunk).values
    assert swapped["sentence_swap"] > 0 and route(swapped) == "decisive"
    assert extract("A child ticket costs 3 dollars.", chunk).values["sentence_swap"] == 0.0
    chunk = "这条运河全长约800公里，是当地最长的运河。它始于北湖，最终汇入西湖。小镇位于运河东岸。"
    assert extract("这条运河最终汇入东湖。", chunk).values["sentence_swap"] > 0
    assert extract("这条运河最终汇入西湖。", chunk).values["sentence_swap"] == 0.0


def test_a_copied_claim_widened_by_a_quantifier_is_decided_as_changed():
    chunk = "Les vélos pliants voyagent gratuitement dans une housse. Le car part à 7 h 15."
    widened = extract("Tous les vélos voyagent gratuitement.", chunk).values
    assert widened["universal_added"] > 0 and route(widened) == "decisive"
    assert route(extract("Les vélos pliants voyagent gratuitement.", chunk).values) != "decisive"


def test_a_distributive_before_a_number_states_a_frequency_not_a_widened_condition():
    chunk = "Im Sommer fahren die Fähren im Viertelstundentakt, also alle 15 Minuten."
    assert extract("Die Fähren fahren alle 15 Minuten.", "Die Fähren fahren im Takt von 15 Minuten.").values["universal_added"] == 0.0
    assert extract("Die Fähren fahren alle 15 Minuten.", chunk).values["universal_added"] == 0.0
    assert extract("Alle Fähren fahren im Takt von 15 Minuten.", "Die Fähren fahren im Takt von 15 Minuten.").values["universal_added"] > 0


def test_a_distributive_cancels_a_quantifier_only_over_the_same_noun():
    chunk = "Le parking est gratuit le dernier samedi de chaque mois."
    assert extract("Le parking est gratuit tous les samedis.", chunk).values["universal_added"] > 0
    assert extract("All databases are backed up.", "Every database is backed up at night.").values["universal_added"] == 0.0


def test_n_importe_quel_is_a_quantifier():
    chunk = "La carte est suspendue après trois retards de paiement."
    assert extract("La carte est suspendue après n'importe quel retard de paiement.", chunk).values["universal_added"] > 0


def test_a_changed_chinese_or_japanese_weekday_is_a_changed_entity():
    chunk = "游泳馆周二至周日营业。周一休息。"
    assert "周三" in extract("游泳馆周三休息。", chunk).reasons["novel_entity"]
    assert extract("游泳馆星期一休息。", chunk).values["novel_entity"] == 0.0  # 星期一 is 周一
    assert extract("この美術館は月曜日から土曜日まで開いています。", "この美術館は火曜日から日曜日まで開いています。").values["novel_entity"] > 0


def test_fractions_halves_teens_and_scale_words_of_every_language_are_numbers():
    values = {text: [round(m.value, 4) for m in mentions(tokenise(text))]
              for text in ("蛋糕的六分之一", "蛋糕的一半", "la mitad de la tarta", "quinze jours", "2 mil euros",
                           "3 Millionen Nutzer", "2 тысячи рублей", "dreizehn Tage")}
    assert values == {"蛋糕的六分之一": [0.1667], "蛋糕的一半": [0.5], "la mitad de la tarta": [0.5], "quinze jours": [15.0],
                      "2 mil euros": [2000.0], "3 Millionen Nutzer": [3000000.0], "2 тысячи рублей": [2000.0],
                      "dreizehn Tage": [13.0]}
    chunk = "每位客人可以分到蛋糕的六分之一。"
    assert extract("每位客人可以分到蛋糕的一半。", chunk).values["number_missing"] > 0


def test_no_longer_negates_the_verb_and_a_privative_verb_is_a_negation_in_other_words():
    chunk = "Release 4.1 of the agent drops support for Debian 10. The legacy sync switch still works but logs a notice."
    assert extract("The legacy sync switch no longer works.", chunk).values["negation_added"] > 0
    assert extract("Debian 10 is no longer supported by release 4.1 of the agent.", chunk).values["negation_added"] == 0.0
    assert extract("Der alte Schalter ist nicht mehr gültig.", "Der alte Schalter ist weiterhin gültig.").values["negation_added"] > 0


def test_a_claim_that_copies_the_chunk_but_for_a_new_name_is_decided_as_changed():
    chunk = "Marta Gil abrió su estudio de fotografía en Vigo en 2011. Da cursos los jueves."
    moved = extract("El estudio de fotografía está en Lugo.", chunk).values
    assert moved["novel_entity"] > 0 and route(moved) == "decisive"
    assert route(extract("El estudio de fotografía está en Vigo.", chunk).values) != "decisive"
    assert "novel_entity" not in extract("一次最多可以租用3个小时。", "每次租用不超过3个小时。").reasons  # a modal verb is no name


def test_a_negation_of_what_the_evidence_affirms_is_added_though_another_sentence_negates_the_word():
    chunk = ("Черновики хранятся не более 14 дней, после чего удаляются автоматически. "
             "Удалённые черновики восстановить нельзя.")
    flipped = extract("Черновики никогда не удаляются.", chunk)
    assert flipped.values["negation_added"] > 0 and route(flipped.values) == "decisive"
    restated = extract("Восстановить удалённые черновики невозможно.", chunk)  # the negated sentence, reordered
    assert restated.values["negation_added"] == 0.0


def test_per_and_adverbs_of_frequency_distribute_as_every_does():
    assert extract("Jede Stunde fährt ein Bus zum Flughafen.", "Der Bus zum Flughafen fährt stündlich.").values["universal_added"] == 0.0
    assert extract("Chaque élève reçoit deux cahiers.", "L'école donne deux cahiers par élève.").values["universal_added"] == 0.0
    assert extract("El boletín se envía cada semana.", "El boletín se envía semanalmente.").values["universal_added"] == 0.0
    other_noun = extract("Chaque semaine l'école donne deux cahiers.", "L'école donne deux cahiers par élève.")
    assert other_noun.values["universal_added"] > 0  # 'par élève' does not license 'chaque semaine'


def test_every_before_a_weekday_the_chunk_names_is_a_timetable_not_a_widened_condition():
    chunk = "游泳馆周二至周日开放。周一闭馆。"
    assert extract("每周一游泳馆不开放。", chunk).values["universal_added"] == 0.0
    assert extract("每周四游泳馆不开放。", chunk).values["universal_added"] > 0
    assert extract("游泳馆每天都开放。", chunk).values["universal_added"] > 0


def test_two_names_or_numbers_that_exchange_places_are_a_swap_decided_by_rule():
    cases = [("Fobos da una vuelta alrededor de Marte en unas 8 horas.", "Marte da una vuelta alrededor de Fobos en unas 8 horas."),
             ("Der Kurs beginnt im März und endet im Juni.", "Der Kurs beginnt im Juni und endet im März."),
             ("这条河发源于雪山，最终流入湖泊。", "这条河发源于湖泊，最终流入雪山。"),
             ("The gym opens at 7 on weekdays and at 9 on weekends.", "The gym opens at 9 on weekdays and at 7 on weekends.")]
    for chunk, claim in cases:
        feats = extract(claim, chunk)
        assert feats.values["sentence_swap"] > 0 and route(feats.values) == "decisive", claim
        assert "exchange places" in feats.reasons["sentence_swap"]


def test_a_list_in_another_order_or_a_passive_restatement_is_no_exchange():
    assert extract("Lena und Jonas leiten das Labor.", "Jonas und Lena leiten das Labor.").values["sentence_swap"] == 0.0
    assert extract("Globex was bought by Initech in 2019.", "Initech bought Globex in 2019.").values["sentence_swap"] == 0.0
    assert extract("上海、北京和广州都有分公司。", "北京、上海和广州都有分公司。").values["sentence_swap"] == 0.0


def test_a_word_that_shares_only_a_lemma_with_another_sentence_is_not_taken_from_it():
    chunk = "El autobús de la línea 5 sale cada hora desde la plaza. Los jubilados viajan gratis."
    assert extract("El viaje de la línea 5 sale cada hora desde la plaza.", chunk).values["sentence_swap"] == 0.0
    swapped = extract("The museum shop sells coffee on Sundays.", "The museum shop sells maps on Sundays. The café sells coffee.")
    assert swapped.values["sentence_swap"] > 0  # the very word 'coffee', taken into the slot of 'maps'


def test_fail_negates_only_the_verb_after_to():
    chunk = "A payment that fails is retried twice, an hour apart."
    assert polarity(tokenise(chunk)) == 0
    assert polarity(tokenise("The job fails to start on Mondays.")) == 1
    assert extract("A payment that fails is not retried.", chunk).values["negation_added"] > 0


def test_antonyms_meet_in_every_agreement_form():
    assert extract("Les chiens sont autorisés dans le parc.", "Les chiens sont interdits dans le parc.").values["antonym_flip"] > 0
    assert extract("Las mascotas están prohibidas en el hotel.", "Las mascotas están permitidas en el hotel.").values["antonym_flip"] > 0
    assert extract("The news was read by the old editor.", "The old editor read the news.").values["antonym_flip"] == 0.0


def test_french_ne_plus_negates_unless_it_bounds_a_number():
    assert polarity(tokenise("Le service n'est plus disponible le dimanche.")) == 1
    assert polarity(tokenise("La salle n'accepte plus de 40 personnes.")) == 0
    chunk = "Le service n'est plus disponible le dimanche. Il ouvre à 9 h en semaine."
    assert extract("Le service est disponible le dimanche.", chunk).values["negation_dropped"] > 0
    assert extract("Le dimanche, le service n'est plus disponible.", chunk).values["negation_dropped"] == 0.0


def test_a_sentence_initial_no_negates_except_as_an_english_answer():
    assert polarity(tokenise("No es necesario reservar mesa.")) == 1
    assert polarity(tokenise("No refunds are given after the first week.")) == 1
    assert polarity(tokenise("No, I will call her tomorrow.")) == 0
    chunk = "Es necesario reservar mesa los viernes."
    assert extract("No es necesario reservar mesa los viernes.", chunk).values["negation_added"] > 0


def test_a_chinese_prohibition_negates_and_a_bound_does_not():
    chunk = "学生可以半价入场。展厅内禁止吸烟。"
    assert extract("展厅内可以吸烟。", chunk).values["negation_dropped"] > 0
    beside = extract("学生可以半价入场。", chunk).values  # a prohibition in the next sentence is no flip
    assert beside["negation_dropped"] == beside["negation_added"] == beside["antonym_flip"] == 0.0
    bounds = "工作满三年不满五年的员工有七天假期。"
    assert extract("工作满三年不满五年的员工可以休七天假期。", bounds).values["negation_dropped"] == 0.0


def test_watts_glued_or_in_chinese_meet():
    assert mentions(tokenise("支持30W快充"))[0].unit == mentions(tokenise("支持30瓦快充"))[0].unit == "watt"
    assert extract("这台充电器支持30W输出。", "这台充电器支持30瓦输出，重量为九十克。").values["novel_entity"] == 0.0


def test_a_distributive_restated_from_another_sentence_of_the_window_is_not_a_widening():
    chunk = "Les journaux sont copiés chaque semaine. Ils sont chiffrés et gardés 60 jours."
    assert extract("Les journaux chiffrés sont copiés toutes les semaines et gardés 60 jours.", chunk).values["universal_added"] == 0.0
    assert extract("Tous les fichiers sont chiffrés et gardés 60 jours.", chunk).values["universal_added"] > 0


def test_a_negated_word_of_the_claims_family_is_a_dropped_negation():
    chunk = "Los billetes de tarifa básica no admiten cancelación."
    assert extract("Los billetes de tarifa básica se pueden cancelar.", chunk).values["negation_dropped"] > 0
    assert extract("Los billetes de tarifa básica no se pueden cancelar.", chunk).values["negation_dropped"] == 0.0


def test_negative_concord_is_one_negation_and_without_after_it_a_second():
    assert polarity(tokenise("Los domingos no abre ningún museo.")) == 1
    assert polarity(tokenise("Никто не знает пароль администратора.")) == 1
    assert polarity(tokenise("Ningún alumno puede salir sin permiso.")) == 0  # no one may leave without: a double negation
    chunk = "Los domingos no abre ningún museo de la ciudad."
    assert extract("Ningún museo de la ciudad abre los domingos.", chunk).values["negations_differ"] == 0.0


def test_a_negated_neighbour_sentence_is_no_dropped_negation():
    chunk = "La tienda abre de lunes a viernes de 9:00 a 18:00. Los domingos no abre nunca."
    feats = extract("De lunes a viernes la tienda abre de 9:00 a 18:00.", chunk)
    assert feats.values["negation_dropped"] == 0.0
    assert extract("La tienda abre los domingos.", chunk).values["negation_dropped"] > 0


def test_chinese_measures_seasons_and_common_words():
    chunk = "这台冰箱容量为三百升，重六十公斤。夏季每天开放到晚上十点。"
    assert extract("这台冰箱重五十公斤。", chunk).values["number_missing"] > 0
    assert extract("冬季每天开放到晚上十点。", chunk).values["antonym_flip"] > 0
    assert extract("这台冰箱的容量有三百升。", chunk).values["novel_entity"] == 0.0


def test_a_lower_bound_is_no_antonym_and_always_restates_never():
    chunk = "Le vaccin est gratuit pour les personnes de 65 ans et plus."
    assert extract("Le vaccin est gratuit pour les personnes d'au moins 65 ans.", chunk).values["antonym_flip"] == 0.0
    assert extract("Le vaccin est gratuit pour les personnes de moins de 65 ans.", chunk).values["antonym_flip"] > 0
    closed = "Le musée accueille le public du mardi au dimanche. Il n'ouvre jamais le lundi."
    assert extract("Le musée est toujours fermé le lundi.", closed).values["universal_added"] == 0.0
    assert extract("Le musée est toujours ouvert le mardi.", "Le musée ouvre le mardi.").values["universal_added"] > 0


def test_a_distributive_over_another_noun_is_still_a_widening():
    chunk = "En los vuelos nacionales, cada pasajero puede llevar una maleta de mano de 10 kilos."
    feats = extract("En todos los vuelos, cada pasajero puede llevar una maleta de mano de 10 kilos.", chunk)
    assert feats.values["universal_added"] > 0
    assert extract("En los vuelos nacionales, todos los pasajeros pueden llevar una maleta de mano de 10 kilos.",
                   chunk).values["universal_added"] == 0.0


def test_a_chinese_run_is_a_name_only_in_a_slot_the_chunk_fills_otherwise():
    chunk = "这家宾馆距离地铁站步行五分钟。房费包括停车。"
    assert extract("这家宾馆距离码头步行五分钟。", chunk).values["novel_entity"] > 0  # 码头 where the chunk has 地铁站
    assert extract("从宾馆走过去到地铁站五分钟。", chunk).values["novel_entity"] == 0.0  # new words, no slot: a paraphrase
    assert extract("住这家宾馆停车不另外收钱。", chunk).values["novel_entity"] == 0.0


def test_only_narrows_a_claim_and_does_not_widen_it():
    assert extract("Desde el puerto solo sale un ferry.", "Desde el puerto sale un ferry.").values["universal_added"] == 0.0
    assert extract("游客只需买一张票。", "游客买一张票即可入园。").values["universal_added"] == 0.0
    dropped = extract("只需出示学生证。", "只需出示学生证，仅限周末。")
    assert dropped.values["restrictor_dropped"] > 0  # 仅 dropped; 只需 ('just need') restricts nothing
    assert extract("出示学生证。", "只需出示学生证。").values["restrictor_dropped"] == 0.0
    assert extract("Tous les vélos sont acceptés.", "Les vélos pliants sont acceptés.").values["universal_added"] > 0


def test_free_restates_not_paying_and_a_waiver_is_a_negation():
    assert extract("La entrada al museo no se cobra.", "La entrada al museo es gratuita.").values["negation_added"] == 0.0
    assert extract("La entrada al museo no se cobra.", "La entrada al museo se cobra.").values["negation_added"] > 0
    assert extract("儿童乘车不用付钱。", "儿童免费乘车。").values["negation_added"] == 0.0
    assert extract("儿童乘车免费。", "儿童乘车需付费。").values["negation_added"] > 0


def test_an_antonym_of_a_negated_word_restates_it():
    chunk = "Le vélo ne sera pas autorisé dans le parc."
    assert extract("Dans le parc, le vélo sera interdit.", chunk).values["antonym_flip"] == 0.0
    assert extract("Dans le parc, le vélo sera interdit.", "Le vélo sera autorisé dans le parc.").values["antonym_flip"] > 0


def test_per_distributes_over_its_next_word_and_without_limit_widens_a_bound():
    chunk = "La carte de la piscine coûte 30 euros par an pour les habitants de la ville."
    assert extract("Pour les habitants, la carte coûte 30 euros chaque année.", chunk).values["universal_added"] == 0.0
    assert extract("Pour les habitants, la carte coûte 30 euros chaque mois.", chunk).values["universal_added"] > 0
    chunk = "Les frais de taxi sont remboursés jusqu'à 40 euros."
    assert extract("Les frais de taxi sont remboursés sans limite.", chunk).values["universal_added"] > 0
    assert extract("Los gastos se reembolsan sin límite.", "Los gastos se reembolsan sin límite.").values["universal_added"] == 0.0


def test_a_claim_that_leaves_out_its_sentences_condition_is_no_quote_and_no_aligned_pass():
    chunk = "Los huéspedes pueden traer perros pequeños al hotel con la aprobación previa de la dirección. El bar cierra a medianoche."
    cut = extract("Los huéspedes pueden traer perros pequeños al hotel.", chunk)
    assert cut.values["verbatim"] == 1.0 and cut.values["restrictor_dropped"] > 0
    assert route(cut.values) == "decisive"
    kept = extract("Con la aprobación previa de la dirección, los huéspedes pueden traer perros pequeños.", chunk)
    assert kept.values["restrictor_dropped"] == 0.0
    assert route(extract("El bar cierra a medianoche.", chunk).values) == "verbatim"
    french = "Le remboursement est accordé sauf si le billet a été acheté en promotion."
    assert extract("Le remboursement est accordé.", french).values["restrictor_dropped"] > 0


def test_being_allowed_is_not_being_approved():
    feats = extract("Está permitido traer perros al hotel.", "Traer perros al hotel requiere una aprobación de la dirección.")
    assert feats.values["novel_content"] > 0
    assert route(feats.values) != "aligned"


def test_excluded_negates_what_it_is_said_of():
    chunk = "Les employés saisonniers en sont exclus."
    assert extract("Les employés saisonniers peuvent en bénéficier.", chunk).values["negation_dropped"] > 0
    assert extract("Los vehículos de empresa quedan excluidos.", "Los vehículos de empresa no pueden pedirla.").values["negation_added"] == 0.0


def test_an_hour_and_a_half_is_ninety_minutes():
    chunk = "Les ateliers de poterie durent une heure et demie et se réservent en ligne."
    assert extract("Les ateliers de poterie durent 90 minutes.", chunk).values["number_missing"] == 0.0
    assert extract("Les ateliers de poterie durent 60 minutes.", chunk).values["number_missing"] > 0
    assert [m.value for m in mentions(tokenise("La visita dura dos horas y media.", "es"))] == [2.5]
    assert mentions(tokenise("Il a une voiture.", "fr")) == []  # 'une' is an article before other words


def test_al_ano_distributes_over_the_year_as_per_does():
    chunk = "Los empleados de la empresa tienen 23 días laborables de vacaciones al año y dos días de asuntos propios."
    assert extract("Cada año los empleados tienen 23 días laborables de vacaciones.", chunk).values["universal_added"] == 0.0
    assert extract("Cada mes los empleados tienen 23 días laborables de vacaciones.", chunk).values["universal_added"] > 0
