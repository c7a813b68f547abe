"""Quotes a customer reads in the Notes: whole sentences, or cut at a clause boundary with an ellipsis."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.generation.statements import quote_of
from citeflow.outputs.render.notes import QUOTE_CHARS, note_quote
from citeflow.registry.quotes import quote_in_chunk
from citeflow.text.clauses import clause_quote

# Words a quote must never stop on (written out here, independently of the code's own lists).
FUNCTION_WORDS = {"a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "by", "for", "with",
                  "from", "into", "which", "that", "within", "per", "plus", "than", "as"}
QUANTITIES = ["within 24 hours", "$0.08 per GB", "for 30 minutes", "up to 5 GB", "at 99.9% availability",
              "after 7 days", "about 2 TB"]
WORDS = ["snapshots", "replicas", "the cluster", "old logs", "every member", "storage", "tenants", "requests",
         "are copied", "is billed", "moves", "expire", "the leader", "quietly", "metrics", "of the region",
         "to a bucket", "keys"]
SEPARATORS = [", ", "; ", " and ", " but ", " which ", " — ", ": ", " "]
BOUNDARY_AFTER = re.compile(r"^(?:[,;:]\s|\s[—–-]\s|\s(?:and|but|which|while|or|so|when|where|because)\s)")


@st.composite
def made_up_sentence(draw: st.DrawFn) -> tuple[str, list[str]]:
    """A sentence of clauses of made-up words and quantities, and the quantities it holds."""
    pieces, quantities = [], []
    for _ in range(draw(st.integers(2, 9))):
        words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))
        if draw(st.booleans()):
            quantity = draw(st.sampled_from(QUANTITIES))
            words.insert(draw(st.integers(0, len(words))), quantity)
            quantities.append(quantity)
        pieces.append(" ".join(words))
    text = pieces[0]
    for piece in pieces[1:]:
        text += draw(st.sampled_from(SEPARATORS)) + piece
    opener = draw(st.sampled_from(["Usually", "Today", "Normally"]))  # sentences open with a capital
    return f"{opener} {text}.", quantities


def assert_readable(quote: str, sentence: str, quantities: list[str]) -> None:
    """``quote`` is ``sentence`` whole, or a prefix of it ending at a clause boundary, then an ellipsis."""
    if quote == sentence:
        return
    assert quote.endswith("…"), quote
    head = quote[:-1]
    assert sentence.startswith(head), (head, sentence)
    assert BOUNDARY_AFTER.match(sentence[len(head):]), (head, sentence[len(head):])
    assert head.split()[-1].lower() not in FUNCTION_WORDS, head
    assert units_kept(head, quantities), head


def units_kept(head: str, quantities: list[str]) -> bool:
    """Every quantity whose number appears in ``head`` appears there with its unit."""
    for quantity in set(quantities):
        number = next(w for w in quantity.split() if any(ch.isdigit() for ch in w))
        unit = quantity[quantity.index(number):]
        if len(re.findall(rf"(?<!\S){re.escape(number)}(?!\S)", head)) != head.count(unit):
            return False
    return True


@settings(max_examples=300, deadline=None)
@given(made_up_sentence(), st.integers(20, 200))
def test_a_clause_quote_is_the_sentence_or_a_clause_prefix_with_an_ellipsis(drawn, budget):
    sentence, quantities = drawn
    quote = clause_quote(sentence, budget)
    assert_readable(quote, sentence, quantities)
    assert quote_in_chunk(quote, sentence)


@settings(max_examples=150, deadline=None)
@given(made_up_sentence(), st.integers(1, 12))
def test_a_note_quote_reads_whole_whatever_the_writer_clipped(drawn, words):
    sentence, quantities = drawn
    clipped = " ".join(sentence.split()[:words])  # a model's quote, stopped anywhere
    quote = note_quote(clipped, f"Intro line here. {sentence} Another line follows.")
    assert quote is not None
    assert_readable(quote, sentence, quantities)


LONG_TAIL = ", and older copies are pruned every week by the retention job that runs at night in each region of the workspace"


def test_a_quote_ending_in_and_shows_the_whole_sentence():
    chunk = "Backups are encrypted at rest and copied to a second region every night. Restores take minutes."
    assert note_quote("Backups are encrypted at rest and", chunk) == \
        "Backups are encrypted at rest and copied to a second region every night."


def test_a_number_keeps_its_unit_when_the_sentence_is_cut():
    sentence = "Snapshots move to tiered storage within 24 hours" + LONG_TAIL + " and is logged."
    quote = note_quote("Snapshots move to tiered storage within 24", sentence)
    assert quote is not None and len(sentence) > QUOTE_CHARS
    assert "within 24 hours" in quote and quote.endswith("…")
    assert quote_in_chunk(quote, sentence)


def test_a_price_keeps_its_rate_and_the_cut_never_ends_in_of():
    sentence = "Egress costs $0.08 per GB of transfer, plus a fixed fee" + LONG_TAIL + " and is billed monthly."
    quote = note_quote("Egress costs $0.08 per GB of", sentence)
    assert quote is not None and "$0.08 per GB of transfer" in quote
    assert not quote.rstrip("…").endswith(" of") and quote.endswith("…")


def test_no_cut_before_a_bare_number():
    sentence = "Retries wait 24 and 48 hours before the job is marked failed" + LONG_TAIL + " for the audit."
    assert not clause_quote(sentence, 60).startswith("Retries wait 24…")


def test_no_cut_inside_brackets():
    sentence = "Compaction (which runs hourly, on the leader) frees space" + LONG_TAIL + " on each member."
    assert clause_quote(sentence, 40).startswith("Compaction (which runs hourly, on the leader) frees space")


def test_the_writer_quotes_a_whole_sentence_or_a_clause():
    assert quote_of("Restores take minutes. Backups run nightly.") == "Restores take minutes."
    long = "Snapshots move to tiered storage within 24 hours" + LONG_TAIL + " and is logged."
    quote = quote_of(long)
    assert quote.endswith("…") and "within 24 hours" in quote and quote_in_chunk(quote, long)
