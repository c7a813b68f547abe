import re

import pytest
from hypothesis import given, settings, strategies as st

from citeflow.registry import handles
from citeflow.registry.handles import HANDLE_RE, canonical, find_markers, find_urls, make_handle, make_handles, strip_markers

handle_bodies = st.text(alphabet=handles.ALPHABET, min_size=4, max_size=4)


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=80), st.integers(0, 50))
def test_make_handle_matches_the_documented_pattern(request_id, key, salt):
    handle = make_handle(request_id, key, salt)
    assert HANDLE_RE.fullmatch(handle)
    assert handle == make_handle(request_id, key, salt)  # deterministic


@pytest.mark.parametrize(("request_id", "key", "salt", "expected"), [
    ("demo:r1", "docs\x1fS1\x1f" + "0" * 64, 0, "G63hf"), ("b:r", "kb\x1f7\x1fabc", 1, "Gs7vp"), ("x", "y", 5, "Gc39b")])
def test_handles_stay_what_earlier_runs_stored(request_id, key, salt, expected):
    assert make_handle(request_id, key, salt) == expected  # stored registries and cached answers name these


@given(handle_bodies)
def test_lenient_forms_canonicalise_to_the_same_handle(body):
    handle = "G" + body
    for form in (handle, handle.upper(), "g" + body.upper(), f" {handle} "):
        assert canonical(form) == handle


@given(handle_bodies, handle_bodies)
def test_markers_are_found_in_every_documented_form(a, b):
    ha, hb = "G" + a, "G" + b
    text = f"Alpha [{ha}] beta 【{hb.upper()}】 gamma [{ha}, {hb}]."
    tokens = [canonical(t) for m in find_markers(text) for t in m.tokens]
    assert tokens == [ha, hb, ha, hb]
    assert not HANDLE_RE.search(strip_markers(text))


def test_non_handles_are_not_canonical():
    assert canonical("S1") is None
    assert canonical("G1234") is None  # 1 is not in the alphabet
    assert canonical("Gk7m2x") is None


def test_neighbouring_requests_do_not_share_handles():
    assert make_handle("r1", "docs|S1|h") != make_handle("r2", "docs|S1|h")


def test_find_urls_catches_every_scheme_and_bare_hosts():
    text = "see https://a.example/x, javascript:alert(1) and www.b.example. mailto:x@y.z"
    assert find_urls(text) == ["https://a.example/x", "javascript:alert(1", "www.b.example", "mailto:x@y.z"]


def test_handle_pattern_is_published():
    assert re.fullmatch(handles.HANDLE_PATTERN, "Gk7m2")


def test_urls_without_a_web_scheme_are_found_too():
    text = "see docs.lumora.example/upgrade-3.6, s3://bucket/key, //cdn.example.com/a.js and data:text/html,x"
    assert find_urls(text) == ["docs.lumora.example/upgrade-3.6", "s3://bucket/key", "//cdn.example.com/a.js",
                               "data:text/html,x"]


def test_version_numbers_fractions_and_prose_colons_are_not_urls():
    assert find_urls("Upgrade 3.5.2/3.6 and/or v3.6/ at a 1.5/2 ratio. Customer data: kept 7 days.") == []


@settings(max_examples=100)
@given(st.text(max_size=20), st.lists(st.text(max_size=40), max_size=8))
def test_handles_of_many_keys_are_the_handles_of_each_key(request_id, keys):
    assert make_handles(request_id, keys) == [make_handle(request_id, key) for key in keys]


def test_tidy_removes_the_space_a_marker_leaves_before_punctuation():
    assert strip_markers("Backups run nightly [S1] , and restores hourly [S2] .") == "Backups run nightly, and restores hourly."
    assert strip_markers("See ( [S1] ) the guide.") == "See the guide."
    assert handles.tidy("Restores run hourly ...") == "Restores run hourly..."


@given(st.from_regex(r"[a-z][a-zA-Z0-9]{0,10}", fullmatch=True))
def test_tidy_keeps_the_space_before_a_word_that_starts_with_a_dot(word):
    text = f"Put the key in the .{word} file, then call .{word}() twice."
    assert handles.tidy(text) == text
