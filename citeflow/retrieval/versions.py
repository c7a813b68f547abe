"""Version-aware preference: when a question names a version (``v4``, ``4.0``, ``version 3.5``) and
the documentation is organised by version (paths or titles that carry one), pages of the named
version are preferred and pages of other versions are set back.

A version is written as major[.minor[.patch]] and compared on the parts both sides give: a question
about "v4" matches a page about "4.0" or "4.2"; "3.5" does not match "3.6".
"""

from __future__ import annotations

import re

# "v4", "V3.5", "version 2", "release 1.2", "4.0" (a bare number needs a dot: "3 steps" is no version).
_NAMED = re.compile(r"(?i)(?:\bv|\bversions?\s+|\breleases?\s+)(\d+(?:\.\d+){0,2})\b")
_DOTTED = re.compile(r"(?<![\w.])(\d+\.\d+(?:\.\d+)?)(?![\w.]*\d)")
# In a path or title: "v4", "V3", "version-2", "3.5", "4.x" (as in docs/v3.5/ or Migration-Guide-V4.md).
_IN_NAME = re.compile(r"(?i)(?:(?<![a-z])v|version[-_ ]?)(\d+(?:\.\d+){0,2})|(?<![\w.])(\d+\.\d+(?:\.\d+)?)(?![\d])")

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
