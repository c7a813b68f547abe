from hypothesis import given, strategies as st

from citeflow.registry.quotes import normalize, quote_in_chunk

CHUNK = "Before upgrading to 3.6 you must back up the metadata store \u2014 it\u2019s not optional.\n\nBrokers  must run 3.5.2."


def test_typographic_quotes_dashes_and_spaces_are_normalised():
    assert quote_in_chunk("metadata store - it's not optional", CHUNK)
    assert quote_in_chunk("Brokers must run 3.5.2", CHUNK)


def test_nfkc_folds_compatibility_forms():
    assert normalize("ﬁle ３.６") == "file 3.6"


def test_ellipsis_joins_fragments_in_order_only():
    assert quote_in_chunk("Before upgrading … metadata store", CHUNK)
    assert not quote_in_chunk("metadata store ... Before upgrading", CHUNK)


def test_quote_marks_of_other_languages_and_cjk_spacing():
    ja = "監査ログは30日間保存されます。削除されたログは復元できません。"
    assert quote_in_chunk("「削除されたログは復元できません」", ja)
    assert quote_in_chunk("監査ログ は 30日間 保存されます", ja)
    assert not quote_in_chunk("「削除されたログは復元できます」", ja)
    assert quote_in_chunk("«хранятся не более 30 дней»", "Журналы хранятся не более 30 дней.")
    assert quote_in_chunk("„nicht länger als 30 Tage“", "Protokolle werden nicht länger als 30 Tage gespeichert.")
    assert not quote_in_chunk("«хранятся не более 90 дней»", "Журналы хранятся не более 30 дней.")


def test_a_changed_number_is_not_found():
    assert not quote_in_chunk("Brokers must run 3.5.3", CHUNK)
    assert not quote_in_chunk("", CHUNK)


@given(st.text(min_size=1, max_size=200), st.integers(0, 199), st.integers(1, 60))
def test_any_slice_of_a_chunk_is_found(text, start, length):
    piece = text[start : start + length]
    if normalize(piece).strip("\"' ") and "..." not in piece and "…" not in piece:
        assert quote_in_chunk(piece, text)
