"""A spec document → readable YAML that toolgen reads back to exactly the same values.

Block style, keys in the order given, multi-line strings as literal blocks (`|`),
long lines folded only where YAML folding reads back the same. A string that
would read as something else under YAML 1.2 (`"1e3"`, `"0o17"`, `"null"`) is
quoted. libyaml emits when it is installed (PyYAML's C dumper), which matters
for hundreds of tools.
"""

from __future__ import annotations

from typing import Any

import yaml

from toolgen.spec.source import reads_as_string

_BaseDumper: type[Any] = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
WIDTH = 100


class _Dumper(_BaseDumper):  # type: ignore[misc]
    """The safe dumper with toolgen's string styles, and no anchors: a value used twice is
    written twice, as people would write it."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _represent_str(dumper: Any, text: str) -> Any:
    style = None
    if "\n" in text:
        style = "|"  # the emitter falls back to quoting when a block cannot hold the text
    elif not reads_as_string(text):
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_str)


def dump_yaml(document: Any) -> str:
    """`document` (JSON-like values) as block-style YAML, keys in their given order."""
    text: str = yaml.dump(
        document,
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        width=WIDTH,
        default_flow_style=False,
    )
    return text
