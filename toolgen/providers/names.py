"""Tool names providers accept, mapped from MCP names deterministically and reversibly.

MCP allows `^[A-Za-z0-9_.-]{1,128}$`; OpenAI and Anthropic accept
`^[a-zA-Z0-9_-]{1,64}$`, and Gemini also wants the first character to be a
letter or an underscore. A name a provider accepts is kept as it is. Any other
name has its other characters replaced by `_`; when that result is too long,
does not start right, or collides with another tool's name, it is cut and given
a suffix from a hash of the MCP name. The mapping depends only on the set of
names, never on their order, and each view keeps it (`mcpNames`) so a call can
be traced back to the MCP tool.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

_OTHER = re.compile(r"[^A-Za-z0-9_-]")
_HASH_CHARS = 8


@dataclass(frozen=True, slots=True)
class NameRule:
    """What one provider accepts as a tool name."""

    max_length: int = 64
    letter_first: bool = False
    """Whether the first character must be a letter or `_` (Gemini)."""

    def accepts(self, name: str) -> bool:
        if not 1 <= len(name) <= self.max_length or _OTHER.search(name):
            return False
        return not self.letter_first or name[0].isalpha() or name[0] == "_"

    def describe(self) -> str:
        first = ", starting with a letter or `_`" if self.letter_first else ""
        return f"1-{self.max_length} characters of A-Z, a-z, 0-9, `_` and `-`{first}"


OPENAI_NAMES = NameRule()
ANTHROPIC_NAMES = NameRule()
GEMINI_NAMES = NameRule(letter_first=True)


def _sanitized(name: str, rule: NameRule) -> str:
    clean = _OTHER.sub("_", name) or "_"
    if rule.letter_first and not (clean[0].isalpha() or clean[0] == "_"):
        clean = "_" + clean
    return clean


def _hashed(name: str, base: str, rule: NameRule, length: int) -> str:
    digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:length]
    return f"{base[: rule.max_length - length - 1]}_{digest}"


def map_names(names: Iterable[str], rule: NameRule) -> dict[str, str]:
    """MCP name -> provider name for every name; one-to-one and order-independent."""
    unique = sorted(set(names))
    mapped = {n: n for n in unique if rule.accepts(n)}
    taken = set(mapped.values())
    pending = [n for n in unique if n not in mapped]
    candidates = {n: _sanitized(n, rule) for n in pending}
    counts: dict[str, int] = {}
    for candidate in candidates.values():
        counts[candidate] = counts.get(candidate, 0) + 1
    for name in pending:
        candidate = candidates[name]
        if rule.accepts(candidate) and counts[candidate] == 1 and candidate not in taken:
            mapped[name] = candidate
            taken.add(candidate)
    for name in pending:
        if name in mapped:
            continue
        length = _HASH_CHARS
        candidate = _hashed(name, candidates[name], rule, length)
        while candidate in taken:  # two hashes agreeing on 8 hex digits: use more
            length += 4
            candidate = _hashed(name, candidates[name], rule, length)
        mapped[name] = candidate
        taken.add(candidate)
    return mapped
