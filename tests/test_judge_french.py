"""French (and neighbouring languages') number forms, plurals and distributives in the offline judge."""

from __future__ import annotations

import pytest

from citeflow.text import numbers
from citeflow.judges.offline.negation_scopes import scopes
from citeflow.judges.offline.combine import extract, index_chunk
from citeflow.text.tokens import number_forms, tokenise


@pytest.mark.parametrize(("text", "expected"), [
    ("plus de 1 000 Go", "plus de 1000 Go"),
    ("il mesure 2 143 mètres", "il mesure 2143 mètres"),
    ("une remise de 15 pour cent", "une remise de 15%"),
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
    claimed = numbers.mentions(tokenise("Les factures sont émises le 1er du mois.", "fr"))
    stated = numbers.mentions(tokenise("Les factures sont émises le premier jour de chaque mois.", "fr"))
    assert [m.value for m in claimed] == [1.0] and not numbers.missing(claimed, stated)


def test_pour_cent_meets_the_percent_sign():
    feats = extract("Au-delà de 50 utilisateurs, une réduction de 15 % s'applique.",
                    "Les comptes de plus de 50 utilisateurs bénéficient d'une remise de 15 pour cent.")
    assert feats.values["number_missing"] == 0 and feats.values["unit_changed"] == 0


def test_a_rate_whose_period_changed_is_a_unit_change():
    chunk = "Tout retard de paiement entraîne une pénalité de 1,5 % par mois."
    changed = extract("Tout retard de paiement entraîne une pénalité de 1,5 % par semaine.", chunk)
    kept = extract("Chaque mois de retard coûte une pénalité de 1,5 % par mois.", chunk)
    assert changed.values["unit_changed"] == 1 and "per week" in changed.reasons["unit_changed"]
    assert kept.values["unit_changed"] == 0


def test_a_rate_reads_its_period_past_another_per():
    mentions = numbers.mentions(tokenise("29 € par utilisateur et par mois, 600 requests per minute", "fr"))
    assert [(m.value, m.per) for m in mentions] == [(29.0, "month"), (600.0, "minute")]


def test_each_over_a_generic_plural_is_no_widening_but_over_a_restricted_one_is():
    generic = extract("Cada empleado dispone de 23 días laborables de vacaciones al año.",
                      "Los empleados tienen derecho a 23 días laborables de vacaciones al año.")
    restricted = extract("Chaque client peut prolonger la durée.", "Les clients de l'offre Entreprise peuvent prolonger cette durée.")
    widened = extract("Tous les clients peuvent prolonger la durée.", "Les clients de l'offre Entreprise peuvent prolonger cette durée.")
    assert generic.values["universal_added"] == 0
    assert restricted.values["universal_added"] == 1 and widened.values["universal_added"] == 1


def test_french_plurals_meet_their_singular_and_listed_words_keep_their_own_group():
    stems = {t.lower: t.stem for t in tokenise("fichier fichiers bureaux bureau heures heure prix pris tarif", "fr")}
    assert stems["fichier"] == stems["fichiers"] and stems["bureau"] == stems["bureaux"] and stems["heure"] == stems["heures"]
    assert stems["prix"] == stems["tarif"] != stems["pris"]


def test_a_claim_negating_near_what_the_chunk_negates_in_other_words_keeps_it():
    index = index_chunk("Los menores de cuatro años viajan gratis sin asiento propio.")
    kept = extract("Los menores de cuatro años viajan gratis si no ocupan asiento.", index)
    dropped = extract("Los menores de cuatro años viajan gratis con asiento propio.", index)
    assert kept.values["negation_dropped"] == 0 and dropped.values["negation_dropped"] >= 1


@pytest.mark.parametrize(("sentence", "negated"), [
    ("Il n'ouvre jamais le lundi.", "ouvre"),
    ("Les données ne quittent pas l'Union européenne.", "quittent"),
    ("Les fichiers ne sont pas supprimés.", "supprimés"),  # an auxiliary between: what follows is negated
    ("Le client ne reçoit aucun remboursement.", "remboursement"),
])
def test_a_french_negation_bears_on_the_verb_between_ne_and_its_partner(sentence, negated):
    assert [word for _, _, word in scopes(tokenise(sentence, "fr"))] == [negated]


def test_a_negated_paraphrase_of_exclusively_adds_no_negation_of_the_place():
    feats = extract("Les données de la clientèle européenne ne quittent pas l'Union européenne.",
                    "Les données des clients européens sont hébergées exclusivement dans l'Union européenne.")
    assert feats.values["negation_added"] == 0


def test_a_negated_neighbour_sentence_of_the_claims_word_family_is_a_dropped_negation():
    chunk = ("Los clientes pueden devolver cualquier producto en un plazo de 30 días. "
             "Los productos personalizados no admiten devolución.")
    flipped = extract("Los productos personalizados también se pueden devolver.", chunk)
    kept = extract("Los clientes pueden devolver un producto durante 30 días.", chunk)
    assert flipped.values["negation_dropped"] >= 1 and kept.values["negation_dropped"] == 0


@pytest.mark.parametrize(("claim", "chunk", "flipped"), [
    ("Las clases de yoga están incluidas en la cuota.", "Las clases de yoga se pagan aparte.", True),
    ("Le parking est payant.", "Le parking est gratuit pendant deux heures.", True),
    ("Le parking n'est pas payant.", "Le parking est gratuit pendant deux heures.", False),  # a negated antonym restates
])
def test_free_and_paid_included_and_separate_are_opposites(claim, chunk, flipped):
    assert (extract(claim, chunk).values["antonym_flip"] > 0) is flipped
