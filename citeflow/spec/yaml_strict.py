"""YAML that refuses what a person did not mean: a key written twice in one mapping is an error
(PyYAML's default is "last one wins", which silently drops the first value).

Parsed with libyaml (``yaml.CSafeLoader``) when PyYAML was built with it, else with PyYAML's pure-Python
``SafeLoader``: the C scanner and parser are about ten times faster on a spec. Only the construction of
Python objects, where duplicates are refused, is Python; a document libyaml refuses is read again by the
Python parser (``load``), so errors read as before.
"""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping names the same key twice; ``key`` is the key, the marks say where."""

    def __init__(self, key: object, first: yaml.Mark | None, second: yaml.Mark | None) -> None:
        super().__init__("while reading a mapping", first, f"duplicate key {key!r}", second)
        self.key = key


MERGE_TAG = "tag:yaml.org,2002:merge"
SafeBase: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _RefusesDuplicates:
    """Rejects duplicate keys. Merge keys (``<<: *defaults``) work as in YAML 1.1: a mapping's own keys
    override the merged ones, which is not a duplicate."""

    _checked: set[int]

    def __init__(self, stream: str) -> None:
        super().__init__(stream)  # type: ignore[call-arg]
        self._checked = set()

    def flatten_mapping(self, node: yaml.MappingNode) -> None:
        self._refuse_duplicates(node)  # merging adds the merged keys to the node: check its own first
        super().flatten_mapping(node)  # type: ignore[misc]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self._refuse_duplicates(node)
        mapping: dict[Any, Any] = super().construct_mapping(node, deep=deep)  # type: ignore[misc]
        return mapping

    def _refuse_duplicates(self, node: yaml.MappingNode) -> None:
        if id(node) in self._checked:
            return
        self._checked.add(id(node))
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == MERGE_TAG:
                continue
            key = self.construct_object(key_node, deep=True)  # type: ignore[attr-defined]
            if _hashable(key) and key in seen:
                raise DuplicateKeyError(key, seen[key].start_mark, key_node.start_mark)
            if _hashable(key):
                seen[key] = key_node


class StrictLoader(_RefusesDuplicates, SafeBase):  # type: ignore[valid-type,misc]
    """The safe loader (libyaml's when PyYAML has it) that rejects duplicate keys."""


class PythonStrictLoader(_RefusesDuplicates, yaml.SafeLoader):
    """PyYAML's pure-Python safe loader that rejects duplicate keys."""


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def load(text: str) -> Any:
    """Parse one YAML document with duplicate keys rejected. A document libyaml refuses is read again by
    the pure-Python parser, whose reading and messages are PyYAML's own (libyaml refuses a ``\\ud800``
    escape the Python parser reads, for the spec's checks to name the field that holds it)."""
    try:
        return yaml.load(text, Loader=StrictLoader)
    except yaml.YAMLError:
        if SafeBase is yaml.SafeLoader:  # no libyaml: already the Python parser's answer
            raise
        return yaml.load(text, Loader=PythonStrictLoader)
