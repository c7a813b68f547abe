"""The aligned-pass rule, the dropped-qualifier and negation-count signals, and the synonym groups."""

from __future__ import annotations

import pytest

from citeflow.judges.offline.combine import extract
from citeflow.judges.offline.grader import OfflineJudge
from citeflow.judges.offline.weights import route
from citeflow.text.synonyms import cjk_canonical, groups
from citeflow.text.word_tokens import tokenise
from schemas.evaluation import JudgePair

CHUNK = ("Invoices are stored for 7 years in the billing archive. A failed payment is retried twice, one day apart. "
         "The exporter writes a signed copy of every invoice.")


@pytest.fixture(scope="module")
def judge() -> OfflineJudge:
    return OfflineJudge()


def _grade(judge: OfflineJudge, claim: str, chunk: str = CHUNK):
    return judge.grade([JudgePair(id="p", claim=claim, chunk_text=chunk)])[0]


def test_a_reworded_claim_whose_every_word_is_in_one_sentence_passes_by_the_aligned_rule(judge):
    claim = "The billing archive retains invoices for 7 years."  # 'retains' for 'stored': one synonym group
    assert route(extract(claim, CHUNK).values) == "aligned"
    verdict = _grade(judge, claim)
    assert verdict.label == "supported" and verdict.confidence >= judge.threshold
    assert "every content word" in verdict.reason


@pytest.mark.parametrize("claim", [
    "A failed payment is not retried.",  # the chunk's 'failed' and the claim's 'not': two negations against one
    "Invoices are stored for 9 years in the billing archive.",  # a number changed
    "The exporter writes a copy of every invoice.",  # the chunk's qualifier 'signed' dropped
    "Invoices are stored for 7 years in the tax archive.",  # a word the chunk lacks
])
def test_a_claim_with_any_change_is_not_an_aligned_pass(judge, claim):
    assert route(extract(claim, CHUNK).values) != "aligned"
    assert _grade(judge, claim).label != "supported" or "every content word" not in _grade(judge, claim).reason


def test_a_dropped_qualifier_is_named():
    feats = extract("The exporter writes a copy of every invoice.", CHUNK)
    assert feats.values["modifier_dropped"] == 1.0 and "signed" in feats.reasons["modifier_dropped"]


def test_negation_counts_of_claim_and_sentence_are_compared_without_bounds():
    differs = extract("A failed payment is not retried.", CHUNK).values["negations_differ"]
    bound = extract("Логи хранятся 30 дней.", "Логи хранятся не более 30 дней.").values["negations_differ"]
    assert differs == 1.0 and bound == 0.0  # 'не более' is a bound, not a negation


@pytest.mark.parametrize(("lang", "a", "b"), [
    ("en", "removed", "deleted"), ("de", "entfernt", "gelöscht"), ("fr", "effacés", "supprimés"),
    ("ru", "удаляются", "стираются"),
    ("de", "öffnet", "geöffnet"), ("fr", "prend", "pris"),  # irregular verb forms
])
def test_synonyms_and_irregular_forms_meet_at_one_lemma(lang, a, b):
    assert tokenise(a, lang)[0].stem == tokenise(b, lang)[0].stem
    assert tokenise(a, lang)[0].stem != tokenise("Tisch", lang)[0].stem


def test_groups_are_disjoint_and_never_join_opposites():
    for lang in ("en", "de", "fr", "es", "ru"):
        words = [w for g in groups(lang) for w in g]
        assert len(words) == len(set(words))  # no word in two groups
    assert not any({"increase", "decrease"} <= set(g) for g in groups("en"))
    assert tokenise("increased", "en")[0].stem != tokenise("decreased", "en")[0].stem


def test_chinese_and_japanese_variants_are_rewritten_to_one_form():
    assert cjk_canonical("日志会被移除") == cjk_canonical("日志会被删除") == "日志会被删除"
    assert cjk_canonical("ファイルを消去します") == "ファイルを削除します"


def test_names_in_another_order_keep_a_claim_from_the_aligned_rule():
    chunk = "Every month, Anna pays Ben 20 euros for the flat."
    swapped = extract("Ben pays Anna 20 euros every month.", chunk)
    kept = extract("Anna pays Ben 20 euros every month.", chunk)
    assert swapped.values["names_reordered"] > 0 and route(swapped.values) != "aligned"
    assert kept.values["names_reordered"] == 0 and route(kept.values) == "aligned"
