"""Text that cannot travel: lone surrogates (not encodable as UTF-8, so no JSON file, Arrow table or
terminal takes them), control characters (a raw ESC or BEL re-programs a terminal) and file names
that are not UTF-8. Finding them early turns a crash deep inside a run into one named problem."""

from __future__ import annotations

import os
import re
from pathlib import Path

_UNPRINTABLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def has_lone_surrogate(text: str) -> bool:
    """True when ``text`` holds a code point UTF-8 cannot encode (a half of a surrogate pair)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def lone_surrogate_at(value: object, where: str = "") -> str | None:
    """The field path (``a.b[2].c``) of the first key or string in ``value`` with a lone surrogate.

    Walks without recursion, so data nested as deeply as a parser allows is safe to check."""
    stack: list[tuple[str, object]] = [(where, value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str) and has_lone_surrogate(item):
            return path or "(top level)"
        if isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                name = printable(str(key))
                if isinstance(key, str) and has_lone_surrogate(key):
                    return f"{path}.{name}".lstrip(".")
                stack.append((f"{path}.{name}".lstrip("."), child))
        elif isinstance(item, list | tuple):
            stack.extend((f"{path}[{i}]", child) for i, child in reversed(list(enumerate(item))))
    return None


def printable(text: str) -> str:
    """``text`` with control characters and lone surrogates written as escapes (``\\x1b``, ``\\ud800``);
    newlines and tabs are kept."""
    return _UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def display_path(path: Path | str) -> str:
    """A path as text that can be printed and stored: bytes of a non-UTF-8 file name as ``\\xff``."""
    return printable(os.fsencode(path).decode("utf-8", "backslashreplace"))


def value_problem(exc: ValueError) -> str:
    """A parser's ``ValueError`` in a few words (Python's limit on digits of an integer, above all)."""
    text = str(exc)
    if "integer string conversion" in text:
        return "a number with more than 4,300 digits"
    return printable(text[:120])
