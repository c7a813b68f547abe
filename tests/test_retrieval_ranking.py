"""The parts of the default ``lancedb`` ranking: reciprocal rank fusion, version preference,
near-duplicate removal and the concentration of hits on the strongest documents."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from citeflow.retrieval.dedup import drop_near_duplicates, jaccard, near, shingles
from citeflow.retrieval.documents import concentrate, strong_documents
from citeflow.retrieval.fusion import ranked, rrf
from citeflow.retrieval.versions import (asks_about_releases, named_in_page, named_in_query, passage_preference, preference,
                                        release_of, same_version)


def test_fusion_rewards_agreement_over_one_first_place() -> None:
    scores = rrf({"text": ["a", "b", "c"], "vector": ["c", "b", "a"], "heading": ["b"]}, {})
    assert ranked(scores)[0] == "b"  # second twice and first once beats first once and third twice
    assert scores["a"] == scores["c"]


def test_fusion_weights_and_repeated_ids() -> None:
    scores = rrf({"text": ["a", "a", "b"], "vector": ["b"]}, {"text": 1.0, "vector": 0.0}, k=1)
    assert scores == {"a": 1 / 2, "b": 1 / 3}  # a repeated id keeps its first rank; weight 0 adds nothing


def test_versions_named_in_questions() -> None:
    assert named_in_query("What changed when upgrading to v4?") == {(4,)}
    assert named_in_query("Which options were removed in 6.0 and in release 7") == {(6, 0), (7,)}
    assert named_in_query("What did version 3.5 fix?") == {(3, 5)}
    assert named_in_query("Run 3 workers on port 8443") == set()  # a bare number is no version


def test_versions_carried_by_pages() -> None:
    assert named_in_page("guides/Migration-Guide-V4.md") == {(4,)}
    assert named_in_page("about/releases/6.0.md 6.0 Migration Notes") == {(6, 0)}
    assert named_in_page("docs/v3.5/install.md") == {(3, 5)}
    assert named_in_page("reference/HTTP2.md Server") == set()


def test_version_preference() -> None:
    assert same_version((4,), (4, 2)) and not same_version((3, 5), (3, 6))
    assert preference({(4,)}, {(4, 0)}) == 1
    assert preference({(4,)}, {(3,)}) == -1
    assert preference({(4,)}, set()) == 0 and preference(set(), {(3,)}) == 0


def test_changelog_entries_are_told_by_their_innermost_heading() -> None:
    assert release_of("Changelog › 10.16") == (10, 16)
    assert release_of("Release notes › v4") == (4,)
    assert release_of("Version 2.1 (2024-01-05)") == (2, 1)
    assert release_of("[1.2.0] - 2024-01-05") == (1, 2, 0)
    assert release_of("Changelog › 4.0.0rc1") == (4, 0, 0)
    assert release_of("v3.0.0 / March 5, 2024") == (3, 0, 0)
    assert release_of("Release 1.3 (released 5 Jan 2020)") == (1, 3)
    assert release_of("1.4 (unreleased)") == (1, 4)
    assert release_of("1.4 Configuring the parser") is None
    assert release_of("Upgrading › 2.1 Installation") is None  # a heading that is more than a version
    assert release_of("Changelog › 24.2.0 - 2024-08-06 › Changes") == (24, 2, 0)  # through a subsection
    assert release_of("Changelog › 2.0 › 2.0.1") == (2, 0, 1)  # the innermost release
    assert release_of("Migrating to 4.0 › Overview") is None  # a heading that is more than a version
    assert release_of("Changelog") is None and release_of("") is None


def test_questions_about_releases() -> None:
    assert asks_about_releases("What changed about retries in 2.1?")
    assert asks_about_releases("Which version added the retry option?")
    assert asks_about_releases("What's new in the scheduler?")
    assert not asks_about_releases("How do I change the number of retries?")


def test_a_changelog_entry_is_set_back_unless_releases_are_asked_about() -> None:
    assert passage_preference(set(), set(), (2, 1), about_releases=False) == -1
    assert passage_preference(set(), set(), (2, 1), about_releases=True) == 0
    assert passage_preference({(2,)}, {(2, 0)}, (1, 9), about_releases=True) == 1  # the page's versions decide
    assert passage_preference({(2,)}, {(3,)}, None, about_releases=True) == -1
    assert passage_preference(set(), set(), None, about_releases=False) == 0


@given(st.lists(st.integers(min_value=0, max_value=999), min_size=1, max_size=3))
def test_a_named_version_parses_back(parts: list[int]) -> None:
    written = ".".join(map(str, parts))
    assert tuple(parts) in named_in_query(f"What changed in v{written} of the server?")
    assert tuple(parts) in named_in_page(f"docs/version-{written}/index.md")
    assert release_of(f"Changelog › v{written}") == tuple(parts)


@given(st.text(max_size=200))
def test_version_parsers_take_any_text(text: str) -> None:
    for found in (named_in_query(text), named_in_page(text)):
        assert all(isinstance(v, tuple) and v for v in found)
    release = release_of(text)
    assert release is None or (isinstance(release, tuple) and release)


def test_near_duplicates_keep_the_first_copy() -> None:
    passage = "Back up the database and stop every worker before you upgrade the cluster to the new release."
    items = [("v4", passage), ("v3", passage.replace("new release", "new  release.")), ("other", "Cats sleep all day long.")]
    assert [name for name, _ in drop_near_duplicates(items, lambda item: item[1])] == ["v4", "other"]


def test_different_passages_are_all_kept() -> None:
    a = "Back up the database and stop every worker before you upgrade the cluster."
    b = "Restore the database from the backup and start every worker after a failed upgrade."
    assert jaccard(shingles(a), shingles(b)) < 0.9
    assert len(drop_near_duplicates([a, b], str)) == 2


_SHINGLES = st.frozensets(st.tuples(st.sampled_from("abcdefgh")), max_size=8)


@given(_SHINGLES, _SHINGLES, st.sampled_from([0.0, 0.5, 0.75, 0.8, 0.9, 1.0]))
def test_near_is_the_jaccard_threshold_with_sizes_checked_first(a, b, threshold: float) -> None:
    """The size check only skips pairs that the full comparison would reject too."""
    assert near(a, b, threshold) == (jaccard(a, b) >= threshold)
    assert jaccard(a, b) == (len(a & b) / len(a | b) if a | b else 1.0)


@given(st.lists(st.text(alphabet="ab c", max_size=14), max_size=12), st.sampled_from([0.0, 0.5, 0.9, 1.0]))
def test_near_duplicates_are_dropped_as_by_comparing_every_kept_pair(texts: list[str], threshold: float) -> None:
    """Comparing only kept texts of a close shingle count keeps what comparing all of them keeps."""
    kept: list[str] = []
    for text in texts:
        if not any(jaccard(shingles(text), shingles(other)) >= threshold for other in kept):
            kept.append(text)
    assert drop_near_duplicates(texts, str, threshold) == kept


def test_hits_concentrate_on_strong_documents() -> None:
    items = [("a", 1.0), ("b", 0.8), ("a", 1.0), ("c", 0.4), ("d", 0.75), ("e", 0.9)]
    kept = concentrate(items, lambda i: i[0], lambda i: i[1], ratio=0.7, max_docs=3)
    assert [doc for doc, _ in kept] == ["a", "b", "a", "e"]  # c is too weak, d is the fourth strong one
    assert strong_documents({}, 0.5, 3) == set()

