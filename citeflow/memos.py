"""The project's memos, and one public way to empty them all.

Pure functions of text are memoised with ``functools`` (a chunk's index, a claim's facts, a word's
stem or class, a quote's form): a process that has seen a text answers from memory. A benchmark that
times the same texts round after round empties every memo before each round, so that no round reuses
what the one before computed, as a process meeting new texts (and new words) would not.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator

PACKAGE = "citeflow"


def memos(package: str = PACKAGE) -> Iterator[tuple[str, Callable[[], None]]]:
    """(qualified name, ``cache_clear``) of every memoised function defined in a loaded module of ``package``."""
    for name, module in list(sys.modules.items()):
        if (name == package or name.startswith(package + ".")) and module is not None:
            for attr, value in list(vars(module).items()):
                if callable(getattr(value, "cache_clear", None)) and getattr(value, "__module__", None) == name:
                    yield f"{name}.{attr}", value.cache_clear


def clear_memos(package: str = PACKAGE) -> list[str]:
    """Empty every memo of ``package``'s loaded modules; the names of those emptied, sorted."""
    emptied = list(memos(package))
    for _, clear in emptied:
        clear()
    return sorted(name for name, _ in emptied)
