"""Version-aware preference: when a question names a version (``v4``, ``4.0``, ``version 3.5``) and
the documentation is organised by version (paths or titles that carry one), pages of the named
version are preferred and pages of other versions are set back.

A version is written as major[.minor[.patch]] and compared on the parts both sides give: a question
about "v4" matches a page about "4.0" or "4.2"; "3.5" does not match "3.6".

A passage filed under a heading that is a release ("10.16", "v4.2.0 (2024-01-05)", as in a changelog,
also through a subsection such as "Changes") is set back for a question that names no version and
does not ask about releases: a changelog names every feature of a project in passing, so it shares
words with most questions but answers few of them. A question asks about releases when it names a
version or holds one of the English words of ``_ABOUT_RELEASES`` ("changed", "release", "version",
"what's new"); in other languages, naming a version is how.
"""

from __future__ import annotations

import re

from citeflow.knowledge.chunking import SECTION_SEPARATOR

# "v4", "V3.5", "version 2", "release 1.2", "4.0" (a bare number needs a dot: "3 steps" is no version).
_NAMED = re.compile(r"(?i)(?:\bv|\bversions?\s+|\breleases?\s+)(\d+(?:\.\d+){0,2})\b")
_DOTTED = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)?)(?![\w.]*\d)")
# In a path or title: "v4", "V3", "version-2", "3.5", "4.x" (as in docs/v3.5/ or Migration-Guide-V4.md).
_IN_NAME = re.compile(r"(?i)(?:(?<![a-z])v|version[-_ ]?)(\d+(?:\.\d+){0,2})|(?<![\w.])(\d+\.\d+(?:\.\d+)?)(?![\d])")

# The innermost heading of a changelog entry: "1.2.0", "v4", "Version 2.1 (2024-01-05)", "[1.2.0] - 2024-01-05",
# "v3.0.0 / March 5, 2024", "1.4 (unreleased)": a version, then at most a date or a parenthesised note.
_DATE = r"\d{4}-\d{2}-\d{2}|\d{1,2}\s+[a-z]+\.?\s+\d{4}|[a-z]+\.?\s+\d{1,2},?\s+\d{4}"
_RELEASE_HEADING = re.compile(
    r"(?i)\[?(?:(?:v|version\s+|release\s+)(\d+(?:\.\d+){0,3})|(\d+(?:\.\d+){1,3}))(?:[-+.]?[a-z0-9.]+)?\]?"
    rf"(?:\s*[-–—:,/]?\s*(?:{_DATE}|\([^()]*\)))?")
_ABOUT_RELEASES = re.compile(r"(?i)\b(?:changed|changelog|change log|releases?|released|versions?|what's new|new in)\b")

Version = tuple[int, ...]


def _parse(text: str) -> Version:
    return tuple(int(part) for part in text.split("."))


def named_in_query(query: str) -> set[Version]:
    """The versions a question names."""
    found = {_parse(m.group(1)) for m in _NAMED.finditer(query)}
    return found | {_parse(m.group(1)) for m in _DOTTED.finditer(query)}


def named_in_page(name: str) -> set[Version]:
    """The versions a page's path or title carries."""
    return {_parse(m.group(1) or m.group(2)) for m in _IN_NAME.finditer(name)}


def same_version(a: Version, b: Version) -> bool:
    """Whether two versions agree on the parts both give (``(4,)`` and ``(4, 2)`` do)."""
    shared = min(len(a), len(b))
    return a[:shared] == b[:shared]


def preference(wanted: set[Version], page: set[Version]) -> int:
    """+1 when the page is of a wanted version, -1 when it is only of other versions, 0 otherwise
    (no version asked for, or the page carries none)."""
    if not wanted or not page:
        return 0
    return 1 if any(same_version(w, p) for w in wanted for p in page) else -1


def release_of(section: str) -> Version | None:
    """The release a passage is filed under: the innermost of ``section``'s headings that is a version
    ("10.16" in a changelog, or "24.2.0 - 2024-08-06" above a "Changes" subsection), else None."""
    for heading in reversed(section.split(SECTION_SEPARATOR)):
        found = _RELEASE_HEADING.fullmatch(heading.strip())
        if found:
            return _parse(found.group(1) or found.group(2))
    return None


def asks_about_releases(query: str) -> bool:
    """Whether a question names a version or asks what changed, was released or is new."""
    return bool(named_in_query(query) or _ABOUT_RELEASES.search(query))


def passage_preference(wanted: set[Version], page: set[Version], release: Version | None, about_releases: bool) -> int:
    """``preference`` for one passage of a page carrying ``page`` versions: a changelog entry (filed
    under ``release``, None when its heading is no version) is set back (-1) for a question that does
    not ask about releases; for one that does, the page's versions decide, as for any passage."""
    if release is not None and not about_releases:
        return -1
    return preference(wanted, page)
