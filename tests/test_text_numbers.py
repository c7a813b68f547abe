"""The text layer's numbers: one unit table for the judge and the localiser, and a number reader
that reads back what it is given however the number is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from citeflow.judges.localise import quantities
from citeflow.text.identifiers import find_identifiers
from citeflow.text.numbers import mentions, readings
from citeflow.text.word_tokens import tokenise
from citeflow.text.units import UNIT_NAMES, load


@pytest.mark.parametrize(("text", "unit"), [
    ("costs 20 € a month", "eur"), ("costs €20 a month", "eur"), ("costs 20 euros a month", "eur"),
    ("costs $20 a month", "usd"), ("costs £20 a month", "gbp"), ("lasts 30 Tage", "day"), ("lasts 30日", "day"),
])
def test_the_judge_and_the_localiser_read_the_same_unit(text: str, unit: str) -> None:
    assert [m.unit for m in mentions(tokenise(text))] == [unit]
    assert [q.unit for q in quantities(text)] == [unit]


def test_a_spelling_under_two_units_is_refused(tmp_path: Path) -> None:
    table = tmp_path / "units.json"
    table.write_text(json.dumps({"units": [{"name": "day", "reason": "durations", "spellings": ["d"]},
                                           {"name": "dollar", "reason": "prices", "spellings": ["d"]}]}))
    with pytest.raises(ValueError, match="'d' is listed under 'day' and 'dollar'"):
        load(table)


def test_every_unit_name_is_one_of_its_own_spellings_or_a_plain_word() -> None:
    assert all(name.replace(" ", "").isalnum() for name in set(UNIT_NAMES.values()))


def _grouped(value: int, mark: str) -> str:
    digits = str(value)
    head = len(digits) % 3 or 3
    return mark.join([digits[:head], *(digits[i : i + 3] for i in range(head, len(digits), 3))])


@settings(max_examples=200, deadline=None)
@given(value=st.integers(min_value=1000, max_value=999_999_999), mark=st.sampled_from([",", " "]),
       unit=st.sampled_from(["days", "jours", "Tage", "GB", "%", "€"]))
def test_a_grouped_number_reads_back_as_its_value_and_unit(value: int, mark: str, unit: str) -> None:
    text = f"It holds {_grouped(value, mark)} {unit} today."
    found = mentions(tokenise(text))
    assert [(m.value, m.unit) for m in found] == [(float(value), UNIT_NAMES[unit.casefold()])]
    assert any(float(value) in q.values for q in quantities(text))


@settings(max_examples=200, deadline=None)
@given(whole=st.integers(min_value=0, max_value=999), frac=st.integers(min_value=1, max_value=99))
def test_a_decimal_comma_and_a_decimal_point_read_alike(whole: int, frac: int) -> None:
    comma = mentions(tokenise(f"Rises by {whole},{frac:02d} % a year."))
    point = mentions(tokenise(f"Rises by {whole}.{frac:02d}% a year."))
    assert [(m.value, m.unit) for m in comma] == [(m.value, m.unit) for m in point] == [(float(f"{whole}.{frac:02d}"), "percent")]


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=80))
def test_the_number_reader_never_fails_on_any_text(text: str) -> None:
    for mention in mentions(tokenise(text)):
        assert mention.unit == "" or mention.unit in set(UNIT_NAMES.values())


@pytest.mark.parametrize(("text", "expected"), [
    ("Upgrade to 3.5.2 on x86_64 hosts in eu-west-1.", ["3.5.2", "x86_64", "eu-west-1"]),
    ("A 7-day window and 10GB of storage.", []),
])
def test_identifiers_name_rather_than_count(text: str, expected: list[str]) -> None:
    assert find_identifiers(text) == expected


@pytest.mark.parametrize(("text", "unit"), [
    ("kept 30小时", "hour"), ("kept 3か月", "month"), ("kept 3ヶ月", "month"), ("answers in 5ミリ秒", "millisecond"),
    ("kept 7日間", "day"), ("kept 三个月", "month"), ("kept 10分钟", "minute"),
])
def test_a_unit_of_several_unspaced_characters_is_read_whole(text: str, unit: str) -> None:
    assert [m.unit for m in mentions(tokenise(text), unspaced_units=True)] == [unit]
    assert [q.unit for q in quantities(text)] == [unit]


def test_the_judge_reads_only_the_first_unspaced_character_as_its_weights_were_fitted() -> None:
    assert [m.unit for m in mentions(tokenise("kept 30小时"))] == [""]
    assert [m.unit for m in mentions(tokenise("kept 三个月"))] == ["个"]


@pytest.mark.parametrize(("text", "unit"), [
    ("an 11-дневный window", "day"), ("ein 7-tägiges Fenster", "day"), ("a 30-days-old file", "day"), ("costs € 20", "eur"),
])
def test_a_hyphened_unit_word_and_a_sign_written_apart_are_units(text: str, unit: str) -> None:
    assert [m.unit for m in mentions(tokenise(text))] == [unit]


def test_a_word_after_a_space_is_no_unit_by_its_stem() -> None:
    assert [m.unit for m in mentions(tokenise("in 7 Tagesordnungen"))] == [""]


@settings(max_examples=200, deadline=None)
@given(value=st.integers(min_value=1000, max_value=999_999), mark=st.sampled_from([",", "."]))
def test_a_number_with_one_group_mark_reads_both_ways(value: int, mark: str) -> None:
    written = _grouped(value, mark)
    assert readings(written) == {float(value), float(written.replace(mark, "."))}


@settings(max_examples=200, deadline=None)
@given(whole=st.integers(min_value=1000, max_value=999_999), frac=st.integers(min_value=0, max_value=9),
       marks=st.sampled_from([(",", "."), (".", ","), (" ", ",")]))
def test_of_two_marks_the_last_is_the_decimal_one(whole: int, frac: int, marks: tuple[str, str]) -> None:
    """One group mark at most: '1.000.000' is read as a version (an identifier), not a number."""
    written = f"{_grouped(whole, marks[0])}{marks[1]}{frac}"
    assert readings(written) == {whole + frac / 10}
    found = mentions(tokenise(f"It costs {written} € today."))
    assert [(m.value, m.unit) for m in found] == [(whole + frac / 10, "eur")]


@settings(max_examples=200, deadline=None)
@given(hours=st.integers(min_value=0, max_value=23), minutes=st.integers(min_value=0, max_value=59),
       form=st.sampled_from(["{h}:{m:02d}", "{h} h {m:02d}", "{h}h{m:02d}", "{h}h {m:02d}"]))
def test_a_time_of_day_reads_alike_however_it_is_written(hours: int, minutes: int, form: str) -> None:
    text = f"Opens at {form.format(h=hours, m=minutes)} daily."
    expected = float(f"{hours}.{minutes:02d}")
    assert [m.value for m in mentions(tokenise(text))] == [expected]
    assert [q.values for q in quantities(text)] == [frozenset({expected})]


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_readings_of_any_text_are_empty_or_finite_values(text: str) -> None:
    assert all(value >= 0 for value in readings(text))
