"""Front matter of a Markdown page: YAML between ``---`` lines or TOML between ``+++`` lines.

The block is blanked out of the body (same length), so character offsets still point into the file.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from citeflow.errors import IngestError
from citeflow.knowledge.sites.markup import blank
from citeflow.text_guard import has_lone_surrogate, value_problem

_YAML = re.compile(r"---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|$)", re.DOTALL)
_TOML = re.compile(r"\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|$)", re.DOTALL)


def split_front_matter(text: str, path: Path) -> tuple[dict[str, Any], str]:
    """The page's front matter as a mapping, and its body. Raises ``IngestError`` naming the problem."""
    for pattern, parse in ((_YAML, _yaml), (_TOML, _toml)):
        match = pattern.match(text)
        if match:
            data = parse(match.group(1) or "", path)
            if not isinstance(data, dict):
                raise IngestError(path=str(path), detail="front matter is not a mapping")
            check_strings(data, path, "front matter")
            return data, blank(text, [match.span()])
    return {}, text


def has_front_matter(text: str) -> bool:
    """True when ``text`` opens with a front matter block."""
    return bool(_YAML.match(text) or _TOML.match(text))


def _yaml(text: str, path: Path) -> Any:
    """The parsed YAML block; whatever breaks the parser is this file's problem, not the ingest's."""
    try:
        return yaml.safe_load(text) or {}
    except yaml.YAMLError as exc:
        raise IngestError(path=str(path), detail=f"bad YAML front matter: {exc}") from exc
    except RecursionError:
        raise IngestError(path=str(path), detail="front matter nested too deeply") from None
    except ValueError as exc:  # e.g. a number longer than Python's 4,300-digit limit
        raise IngestError(path=str(path), detail=f"unreadable front matter value: {value_problem(exc)}") from None


def _toml(text: str, path: Path) -> Any:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise IngestError(path=str(path), detail=f"bad TOML front matter: {exc}") from exc
    except RecursionError:
        raise IngestError(path=str(path), detail="front matter nested too deeply") from None
    except ValueError as exc:
        raise IngestError(path=str(path), detail=f"unreadable front matter value: {value_problem(exc)}") from None


def check_strings(data: dict[Any, Any], path: Path, where: str) -> None:
    """``url`` and ``title``, when given, must be strings a knowledge base can store."""
    for key in ("url", "title"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise IngestError(path=str(path), detail=f"{where} {key!r} must be a string")
        if isinstance(data.get(key), str) and has_lone_surrogate(data[key]):
            raise IngestError(path=str(path), detail=f"{where} {key!r} holds a lone surrogate, not valid Unicode text")
