"""YAML documents read like ``yaml.safe_load``, refusing a key given twice.

Its own module so that commands reading no YAML never import PyYAML (a tenth of start-up).
"""

from __future__ import annotations

from typing import Any

import yaml


class _StrictLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` refusing a key given twice in one mapping (PyYAML lets the last win)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        first: dict[Any, int] = {}
        for key_node, _ in node.value:
            # ``<<`` merges may override keys on purpose; complex keys cannot be compared.
            if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(
                key_node, yaml.ScalarNode
            ):
                continue
            key = self.construct_object(key_node)
            line = key_node.start_mark.line + 1
            if key in first:
                where = (
                    f"twice on line {line}"
                    if first[key] == line
                    else f"on lines {first[key]} and {line}"
                )
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} {where}", key_node.start_mark
                )
            first[key] = line
        return super().construct_mapping(node, deep=deep)


def load_yaml(text: str) -> Any:
    """Parse a YAML document like ``yaml.safe_load``, but refuse a duplicate key.

    Raises:
        yaml.YAMLError: Invalid YAML, or a key given twice in one mapping (``problem`` names
            both lines, ``problem_mark`` the second).
    """
    return yaml.load(text, Loader=_StrictLoader)
