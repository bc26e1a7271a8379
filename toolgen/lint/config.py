"""Lint configuration: `[tool.toolgen.lint]` in pyproject.toml, then the command line.

```toml
[tool.toolgen.lint]
select = ["ALL"]                 # codes, names, code prefixes ("TG1") or categories
extend-select = ["TG314"]        # add to the selection
ignore = ["TG309"]               # remove from it
fail-on = "warning"              # error (default), warning, info or never
extend-read-verbs = ["summarize"]
max-name-length = 48

[tool.toolgen.lint.severity]     # per-rule severity overrides
TG104 = "error"

[tool.toolgen.lint.per-tool-ignores]   # fnmatch patterns of tool names
"legacy_*" = ["TG107"]
```

Command-line options override the file (`--select` replaces `select`, the
others add to it). Any mistake is a `ConfigError` (a usage error, exit 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from toolgen.lint.options import INT_OPTIONS, NAME_STYLES, TARGETS, VERB_LISTS, RuleOptions
from toolgen.lint.registry import Rule, all_rules, find_rule
from toolgen.report.config import ConfigError, check_keys, load_section, one_of, strings
from toolgen.report.findings import Severity

FAIL_LEVELS = ("error", "warning", "info", "never")
ALL = "ALL"


@dataclass(frozen=True)
class LintConfig:
    """What to run and how to judge it."""

    select: tuple[str, ...] | None = None
    """Selectors; None means the default rules."""
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: Mapping[str, Severity] = field(default_factory=dict)
    """Rule code -> severity."""
    per_tool_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """fnmatch pattern of tool names -> rule codes."""
    fail_on: str = "error"
    targets: tuple[str, ...] = ()
    """Model APIs to check portability to (`openai-strict`, `anthropic`, `gemini`)."""
    options: RuleOptions = field(default_factory=RuleOptions)
    source: Path | None = None
    """The pyproject.toml it came from, if any."""

    def rules(self) -> tuple[Rule, ...]:
        """The selected rules, in code order."""
        rules = all_rules()
        if self.select is None:
            chosen = {r.code for r in rules if r.default}
        else:
            chosen = set(_expand(self.select, "select"))
        chosen |= _expand(self.extend_select, "extend-select")
        chosen |= {code for target in self.targets for code in TARGETS[target]}
        chosen -= _expand(self.ignore, "ignore")
        return tuple(r for r in rules if r.code in chosen)

    def severity_of(self, rule: Rule) -> Severity:
        return self.severity.get(rule.code, rule.severity)

    def fails(self, severity: Severity) -> bool:
        """Whether a finding of this severity makes the run fail."""
        if self.fail_on == "never":
            return False
        return severity.rank >= Severity(self.fail_on).rank


def _expand(selectors: Iterable[str], where: str) -> set[str]:
    """Rule codes named by selectors: ALL, a code or name, a code prefix, a category."""
    rules = all_rules()
    out: set[str] = set()
    for raw in selectors:
        selector = raw.strip()
        if not selector:
            continue
        if selector.upper() == ALL:
            out |= {r.code for r in rules}
            continue
        exact = find_rule(selector)
        if exact is not None:
            out.add(exact.code)
            continue
        matched = {
            r.code
            for r in rules
            if r.default and (r.code.startswith(selector.upper()) or r.category == selector.lower())
        }
        if not matched and not any(
            r.code.startswith(selector.upper()) or r.category == selector.lower() for r in rules
        ):
            raise ConfigError(
                f"{where}: unknown rule selector {selector!r}; expected ALL, a rule code or name, "
                "a code prefix or a category (see `toolgen rules`)"
            )
        out |= matched
    return out


def load_config(path: Path | None) -> LintConfig:
    """The configuration in `[tool.toolgen.lint]` of `path` (defaults when None or absent)."""
    return replace(load_section(path, "lint", parse_section), source=path)


_LIST_KEYS = ("select", "extend-select", "ignore")
_KNOWN = (
    *_LIST_KEYS,
    "severity",
    "per-tool-ignores",
    "fail-on",
    "target",
    "name-style",
    *(k.replace("_", "-") for k in INT_OPTIONS),
    *(f"{v}-verbs" for v in VERB_LISTS),
    *(f"extend-{v}-verbs" for v in VERB_LISTS),
)


def parse_section(section: Mapping[str, Any]) -> LintConfig:
    """A `LintConfig` from the `[tool.toolgen.lint]` table."""
    check_keys(section, _KNOWN)
    lists = {key: strings(key, section[key]) for key in _LIST_KEYS if key in section}
    config = LintConfig(
        select=tuple(lists["select"]) if "select" in lists else None,
        extend_select=tuple(lists.get("extend-select", ())),
        ignore=tuple(lists.get("ignore", ())),
        severity=_severities(_table(section, "severity").items()),
        per_tool_ignores={
            pattern: tuple(
                sorted(_expand(strings(f"per-tool-ignores.{pattern}", codes), "per-tool-ignores"))
            )
            for pattern, codes in _table(section, "per-tool-ignores").items()
        },
        fail_on=one_of("fail-on", section.get("fail-on", "error"), FAIL_LEVELS),
        targets=_targets(strings("target", section["target"]) if "target" in section else []),
        options=_options(section),
    )
    config = replace(config, options=replace(config.options, targets=frozenset(config.targets)))
    config.rules()  # report unknown selectors now
    return config


def _options(section: Mapping[str, Any]) -> RuleOptions:
    options = RuleOptions()
    changes: dict[str, Any] = {}
    for name in INT_OPTIONS:
        key = name.replace("_", "-")
        if key in section:
            value = section[key]
            if type(value) is not int or value < 1:
                raise ConfigError(f"{key!r} must be a positive integer, got {value!r}")
            changes[name] = value
    if "name-style" in section:
        changes["name_style"] = one_of("name-style", section["name-style"], NAME_STYLES)
    for kind in VERB_LISTS:
        attr = f"{kind}_verbs"
        verbs: frozenset[str] = getattr(options, attr)
        if f"{kind}-verbs" in section:
            verbs = frozenset(v.lower() for v in strings(f"{kind}-verbs", section[f"{kind}-verbs"]))
        if f"extend-{kind}-verbs" in section:
            key = f"extend-{kind}-verbs"
            verbs |= {v.lower() for v in strings(key, section[key])}
        changes[attr] = verbs
    return replace(options, **changes)


def _table(section: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = section.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{key!r} must be a table")
    return value


def _severities(items: Iterable[tuple[str, Any]]) -> dict[str, Severity]:
    out: dict[str, Severity] = {}
    for name, level in items:
        found = find_rule(name)
        if found is None:
            raise ConfigError(f"severity: unknown rule {name!r}")
        if level not in {s.value for s in Severity}:
            raise ConfigError(f"severity of {name}: expected error, warning or info, got {level!r}")
        out[found.code] = Severity(level)
    return out


def _targets(values: Iterable[str]) -> tuple[str, ...]:
    out: list[str] = []
    for value in values:
        if value not in TARGETS:
            raise ConfigError(f"unknown target {value!r}; expected one of: {', '.join(TARGETS)}")
        if value not in out:
            out.append(value)
    return tuple(out)


def with_overrides(
    config: LintConfig,
    *,
    select: Sequence[str] | None = None,
    extend_select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    severity: Sequence[str] = (),
    fail_on: str | None = None,
    target: Sequence[str] = (),
) -> LintConfig:
    """`config` with command-line options applied (`CODE=LEVEL` for severities)."""
    pairs = []
    for item in severity:
        code, sep, level = item.partition("=")
        if not sep:
            raise ConfigError(f"--severity expects CODE=LEVEL, got {item!r}")
        pairs.append((code.strip(), level.strip()))
    updated = replace(
        config,
        select=tuple(_split(select)) if select else config.select,
        extend_select=(*config.extend_select, *_split(extend_select)),
        ignore=(*config.ignore, *_split(ignore)),
        severity={**config.severity, **_severities(pairs)},
        fail_on=one_of("fail-on", fail_on, FAIL_LEVELS) if fail_on is not None else config.fail_on,
        targets=_targets((*config.targets, *_split(target))),
    )
    updated = replace(updated, options=replace(updated.options, targets=frozenset(updated.targets)))
    updated.rules()  # report unknown selectors now
    return updated


def _split(values: Iterable[str]) -> list[str]:
    """Selectors from repeated and comma-separated option values."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
