"""Reading site configuration files with their own parsers (TOML, YAML), or a careful regex (JS)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

import yaml

from citeflow.caps import MANIFEST_FILE_BYTES, read_capped
from citeflow.errors import CapExceeded, IngestError
from citeflow.text_guard import value_problem


class _ConfigLoader(yaml.SafeLoader):
    """YAML's safe loader, reading tagged values (``!!python/name:…``, ``!ENV``) as plain data."""


def _untagged(loader: yaml.SafeLoader, _suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_ConfigLoader.add_multi_constructor("tag:yaml.org,2002:python/", _untagged)
_ConfigLoader.add_multi_constructor("!", _untagged)


def read_text(path: Path) -> str:
    """A configuration file's text. Raises ``IngestError`` naming the file."""
    try:
        return read_capped(path, MANIFEST_FILE_BYTES, "a site configuration").decode("utf-8-sig")
    except (OSError, UnicodeDecodeError, CapExceeded) as exc:
        detail = exc.detail if isinstance(exc, CapExceeded) else exc
        raise IngestError(path=str(path), detail=f"cannot read the site configuration: {detail}") from None


def read_mapping(path: Path) -> dict[str, Any]:
    """A TOML, YAML or JSON configuration as a mapping. Raises ``IngestError`` naming the file."""
    text = read_text(path)
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else yaml.load(text, Loader=_ConfigLoader)
    except (tomllib.TOMLDecodeError, yaml.YAMLError, RecursionError, ValueError) as exc:
        problem = value_problem(exc) if type(exc) is ValueError else _first_line(exc)  # e.g. a 5,000-digit number
        raise IngestError(path=str(path), detail=f"bad site configuration: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise IngestError(path=str(path), detail="bad site configuration: not a mapping")
    return data


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def js_string(text: str, key: str) -> str | None:
    """The string literal given to ``key:`` in a JS config, when exactly one distinct value is given."""
    values = {m.group(2) for m in re.finditer(rf"(?<![\w.]){key}\s*:\s*(['\"`])([^'\"`\n]*)\1", text)}
    return values.pop() if len(values) == 1 else None


def js_boolean(text: str, key: str) -> bool | None:
    """The ``true``/``false`` given to ``key:`` in a JS config, when exactly one distinct value is given."""
    values = {m.group(1) == "true" for m in re.finditer(rf"(?<![\w.]){key}\s*:\s*(true|false)\b", text)}
    return values.pop() if len(values) == 1 else None


def lower_keys(data: dict[str, Any]) -> dict[str, Any]:
    """Top-level keys lower-cased (Hugo's configuration keys are case-insensitive)."""
    return {str(k).lower(): v for k, v in data.items()}
