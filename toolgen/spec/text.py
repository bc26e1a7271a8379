"""Text from outside (a server, a spec) made safe for where it is written: visible escapes
for the characters a terminal would act on or an XML or YAML file cannot hold."""

from __future__ import annotations

import re

_HIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def visible(text: str, keep: str = "\n\t") -> str:
    """`text` with each control character (C0, DEL, C1) not in `keep`, lone surrogate and
    non-character U+FFFE/U+FFFF written as a `\\uXXXX` escape: no escape sequence (OSC,
    clear screen, cursor moves) reaches a terminal, and the result is valid in XML 1.0 and
    as one line of a comment (`keep=""`). Within a JSON string the escape is JSON's own."""
    return _HIDDEN.sub(lambda m: m[0] if m[0] in keep else f"\\u{ord(m[0]):04x}", text)
