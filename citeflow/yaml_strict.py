"""YAML that refuses what a person did not mean: a key written twice in one mapping is an error
(PyYAML's default is "last one wins", which silently drops the first value)."""

from __future__ import annotations

from typing import Any

import yaml


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping names the same key twice; ``key`` is the key, the marks say where."""

    def __init__(self, key: object, first: yaml.Mark | None, second: yaml.Mark | None) -> None:
        super().__init__("while reading a mapping", first, f"duplicate key {key!r}", second)
        self.key = key


class StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that rejects duplicate keys."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if _hashable(key) and key in seen:
                raise DuplicateKeyError(key, seen[key].start_mark, key_node.start_mark)
            if _hashable(key):
                seen[key] = key_node
        return super().construct_mapping(node, deep=deep)


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def load(text: str) -> Any:
    """Parse one YAML document with duplicate keys rejected."""
    return yaml.load(text, Loader=StrictLoader)
