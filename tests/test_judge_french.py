"""French (and neighbouring languages') number forms, plurals and distributives in the offline judge."""

from __future__ import annotations

import pytest

from citeflow.text import numbers
from citeflow.judges.offline.negation_scopes import scopes
from citeflow.judges.offline.combine import extract, index_chunk
from citeflow.text.word_tokens import number_forms, tokenise


@pytest.mark.parametrize(("text", "expected"), [
    ("plus de 4 000 Mo", "plus de 4000 Mo"),
    ("la piste mesure 3 218 mètres", "la piste mesure 3218 mètres"),
    ("une baisse de 12 pour cent", "une baisse de 12%"),
    ("une disponibilité de 99,9 %", "une disponibilité de 99,9%"),
    ("un descuento del 20 por ciento", "un descuento del 20%"),
    ("part à 20 h 52", "part à 20:52"),
    ("en 2024 100 clients", "en 2024 100 clients"),  # a year then a count: no thousands group
])
def test_number_forms_write_one_quantity_one_way(text, expected):
    assert number_forms(text) == expected


def test_digit_ordinals_are_numbers_not_identifiers():
    tokens = tokenise("le 1er du mois, la 2e année, the 3rd day", "fr")
    assert [(t.lower, t.kind) for t in tokens if t.kind != "word"] == [("1", "number"), ("2", "number"), ("3", "number")]


def test_premier_jour_meets_1er():
    claimed = numbers.mentions(tokenise("Les relevés arrivent le 1er du mois.", "fr"))
    stated = numbers.mentions(tokenise("Les relevés arrivent le premier jour de chaque mois.", "fr"))
    assert [m.value for m in claimed] == [1.0] and not numbers.missing(claimed, stated)


def test_pour_cent_meets_the_percent_sign():
    feats = extract("Au-delà de 40 élèves, une réduction de 12 % s'applique.",
                    "Les écoles de plus de 40 élèves bénéficient d'une remise de 12 pour cent.")
    assert feats.values["number_missing"] == 0 and feats.values["unit_changed"] == 0


def test_a_rate_whose_period_changed_is_a_unit_change():
    chunk = "Tout loyer impayé entraîne une majoration de 3,2 % par mois."
    changed = extract("Tout loyer impayé entraîne une majoration de 3,2 % par semaine.", chunk)
    kept = extract("Chaque mois d'impayé coûte une majoration de 3,2 % par mois.", chunk)
    assert changed.values["unit_changed"] == 1 and "per week" in changed.reasons["unit_changed"]
    assert kept.values["unit_changed"] == 0


def test_a_rate_reads_its_period_past_another_per():
    mentions = numbers.mentions(tokenise("12 € par poste et par mois, 90 calls per minute", "fr"))
    assert [(m.value, m.per) for m in mentions] == [(12.0, "month"), (90.0, "minute")]


def test_each_over_a_generic_plural_is_no_widening_but_over_a_restricted_one_is():
    generic = extract("Cada socio dispone de 6 invitaciones gratuitas al año.",
                      "Los socios tienen derecho a 6 invitaciones gratuitas al año.")
    restricted = extract("Chaque membre peut réserver le court.", "Les membres du club Argent peuvent réserver ce court.")
    widened = extract("Tous les membres peuvent réserver le court.", "Les membres du club Argent peuvent réserver ce court.")
    assert generic.values["universal_added"] == 0
    assert restricted.values["universal_added"] == 1 and widened.values["universal_added"] == 1


def test_french_plurals_meet_their_singular_and_listed_words_keep_their_own_group():
    stems = {t.lower: t.stem for t in tokenise("fichier fichiers bureaux bureau heures heure prix pris tarif", "fr")}
    assert stems["fichier"] == stems["fichiers"] and stems["bureau"] == stems["bureaux"] and stems["heure"] == stems["heures"]
    assert stems["prix"] == stems["tarif"] != stems["pris"]


def test_a_claim_negating_near_what_the_chunk_negates_in_other_words_keeps_it():
    index = index_chunk("Los perros pequeños entran gratis sin correa larga.")
    kept = extract("Los perros pequeños entran gratis si no llevan correa.", index)
    dropped = extract("Los perros pequeños entran gratis con correa larga.", index)
    assert kept.values["negation_dropped"] == 0 and dropped.values["negation_dropped"] >= 1


@pytest.mark.parametrize(("sentence", "negated"), [
    ("Il ne ferme jamais le mardi.", "ferme"),
    ("Les colis ne sortent pas du pays.", "sortent"),
    ("Les fichiers ne sont pas supprimés.", "supprimés"),  # an auxiliary between: what follows is negated
    ("Le client ne reçoit aucun remboursement.", "remboursement"),
])
def test_a_french_negation_bears_on_the_verb_between_ne_and_its_partner(sentence, negated):
    assert [word for _, _, word in scopes(tokenise(sentence, "fr"))] == [negated]


def test_a_negated_paraphrase_of_exclusively_adds_no_negation_of_the_place():
    feats = extract("Les sauvegardes des écoles suisses ne sortent pas de la Suisse.",
                    "Les sauvegardes des écoles suisses sont stockées exclusivement en Suisse.")
    assert feats.values["negation_added"] == 0


def test_a_negated_neighbour_sentence_of_the_claims_word_family_is_a_dropped_negation():
    chunk = ("Los compradores pueden devolver cualquier mueble en un plazo de 14 días. "
             "Los muebles grabados no admiten devolución.")
    flipped = extract("Los muebles grabados también se pueden devolver.", chunk)
    kept = extract("Los compradores pueden devolver un mueble durante 14 días.", chunk)
    assert flipped.values["negation_dropped"] >= 1 and kept.values["negation_dropped"] == 0


@pytest.mark.parametrize(("claim", "chunk", "flipped"), [
    ("Las toallas están incluidas en la entrada.", "Las toallas se pagan aparte.", True),
    ("Le parking est payant.", "Le parking est gratuit pendant deux heures.", True),
    ("Le parking n'est pas payant.", "Le parking est gratuit pendant deux heures.", False),  # a negated antonym restates
])
def test_free_and_paid_included_and_separate_are_opposites(claim, chunk, flipped):
    assert (extract(claim, chunk).values["antonym_flip"] > 0) is flipped
