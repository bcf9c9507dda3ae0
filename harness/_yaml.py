"""The one YAML loader for what users write: experiment specs, variant front matter and the datasets' YAML files.

PyYAML's ``safe_load`` keeps the last of two equal keys in a mapping without a word (a spec with ``trials: 3`` and,
further down, ``trials: 1`` ran one trial). `load_yaml` is ``safe_load`` with a loader that refuses a duplicate key,
naming the file, the key and both lines; YAML merge keys (``<<``) still override as YAML says."""

from __future__ import annotations

from typing import Any

import yaml

from harness.errors import ConfigError


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping with the same key twice: ``key`` and the two (1-based) lines."""

    def __init__(self, key: Any, first: int, second: int, mark: yaml.Mark) -> None:
        self.key, self.first, self.second = key, first, second
        super().__init__(None, None, f"duplicate key {key!r} on lines {first} and {second}", mark)


class _UniqueKeyLoader(yaml.SafeLoader):
    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":  # `<<: *base` overrides by design
                continue
            key, line = self.construct_object(key_node, deep=True), key_node.start_mark.line + 1
            try:
                first = seen.get(key)
            except TypeError:  # an unhashable key: SafeLoader refuses it below with its own message
                continue
            if first is not None:
                raise DuplicateKeyError(key, first, line, key_node.start_mark)
            seen[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str, where: str, *, first_line: int = 1) -> Any:
    """``text`` (from ``where``, a file) parsed as YAML safely. A duplicate key is a ConfigError naming ``where``, the
    key and both lines (``first_line``: the file's line number of the text's first line, for front matter); any other
    YAML error propagates as ``yaml.YAMLError`` for the caller to word, its marks naming ``where``."""
    loader = _UniqueKeyLoader(text)
    loader.name = where  # PyYAML's own errors say where, not "<unicode string>"
    try:
        return loader.get_single_data()
    except DuplicateKeyError as exc:
        offset = first_line - 1
        raise ConfigError(
            f"{where}: duplicate key {exc.key!r} on lines {exc.first + offset} and {exc.second + offset}; "
            "YAML would keep the second silently: remove one"
        ) from None
    finally:
        loader.dispose()
