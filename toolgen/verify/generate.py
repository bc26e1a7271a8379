"""Property-based inputs: hypothesis-jsonschema generates, hypothesis shrinks.

`explore` runs a hypothesis search outside any test framework: the body calls
the server with each generated input and raises on the first broken rule;
hypothesis then shrinks to the smallest input that still breaks one, and replays
it last, so the last failure seen is the minimal one. Settings keep it quiet
and contained: no example database written to disk, no printing, no deadline
(servers are slow on purpose sometimes), no health checks (a filtered schema is
not a reason to stop), a fixed seed for reproducible runs.

Shrinking is bounded: after the first failure at most `shrink_calls` further
server calls are made (a crash costs a server restart per attempt). Past that,
inputs never tried count as passing and inputs known to fail fail again from
a cache, so hypothesis ends with the smallest failure found so far.

hypothesis-jsonschema 0.23.1 breaks with hypothesis >= 6.170.10 (objects with
optional properties fail to generate): the `verify` extra pins `hypothesis<6.170.10`.
"""

from __future__ import annotations

import copy
import os
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from toolgen.extras import install_hint
from toolgen.schema.walk import walk_schemas
from toolgen.verify.transport import dumps

_OPENING: Final = (
    "additionalProperties", "patternProperties", "unevaluatedProperties",
    "allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas",
)  # fmt: skip
"""An object with these keywords is left as written (closing it could change its meaning)."""
SHRINK_CALLS: Final = 60
SHRINK_SECONDS: Final = 20.0


class GeneratorMissing(RuntimeError):
    """hypothesis-jsonschema is not installed."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A broken rule: which check, and what happened."""

    check: str
    message: str


class _CaseFailed(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.message)
        self.failure = failure


@dataclass(slots=True)
class Exploration:
    """What a search found: how many inputs were tried, and the smallest failure."""

    tried: int = 0
    failure: Failure | None = None
    input: Any = None
    unavailable: str | None = None
    """Why no input could be generated (a schema the generator cannot handle)."""
    crash: Exception | None = None
    """An exception `check` raised: an error of verify itself, for the caller to report."""


def load_generator() -> Any:
    """The `from_schema` function; `GeneratorMissing` with the install hint when absent.

    hypothesis caches data (unicode tables, constants) under `./.hypothesis` by default,
    some of it while hypothesis-jsonschema is imported: the cache is pointed at a
    temporary directory first, so a run leaves the user's working directory clean
    (`HYPOTHESIS_STORAGE_DIRECTORY` still wins)."""
    try:
        from hypothesis.configuration import set_hypothesis_home_dir

        if "HYPOTHESIS_STORAGE_DIRECTORY" not in os.environ:
            set_hypothesis_home_dir(Path(tempfile.gettempdir()) / "toolgen-verify-hypothesis")
        from hypothesis_jsonschema import from_schema
    except ImportError:
        raise GeneratorMissing(
            "toolgen verify generates inputs with hypothesis-jsonschema (the verify extra); "
            "add it with: " + install_hint("verify")
        ) from None
    return from_schema


def strategy_for(schema: Mapping[str, Any], is_valid: Callable[[Any], bool]) -> Any:
    """A strategy of inputs `schema` accepts, or a string saying why there is none.

    Generated values are filtered through our own 2020-12 validator: the generator
    knows draft-07 best, and a value it thinks valid must really be. Objects are
    generated with their declared properties only (`declared_only`)."""
    from_schema = load_generator()
    try:
        strategy = from_schema(declared_only(schema), allow_x00=False, codec="utf-8")
    except Exception as exc:  # the generator's errors have no common base class
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
    return strategy.filter(is_valid)


def declared_only(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `schema` whose open objects with `properties` are closed, for generation only.

    Clients send the properties a tool declares; random undeclared keys (the generator's
    way with open objects) say nothing about the contract and cost most of the generation
    time on real schemas (3-10x on the GitHub server's). Undeclared properties are still
    sent by the invalid-input phase, to objects that forbid them."""
    closed = copy.deepcopy(dict(schema))
    for _, sub in walk_schemas(closed):
        if (
            isinstance(sub, dict)
            and isinstance(sub.get("properties"), dict)
            and not any(k in sub for k in _OPENING)
        ):
            sub["additionalProperties"] = False
    return closed


def explore(
    strategy: Any,
    check: Callable[[Any], Failure | None],
    *,
    cases: int,
    seed: int,
    shrink_calls: int = SHRINK_CALLS,
    shrink_seconds: float = SHRINK_SECONDS,
) -> Exploration:
    """Try up to `cases` generated inputs with `check`; shrink the first failure."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as fixed_seed

    found = Exploration()
    failing: dict[bytes, Failure] = {}
    budget = {"calls": 0, "deadline": 0.0}

    def body(arguments: Any) -> None:
        if found.crash is not None:
            return  # verify itself broke: stop calling, the caller reports it
        key = _key(arguments)
        if key in failing:
            _fail(found, arguments, failing[key])
        if failing and (budget["calls"] >= shrink_calls or time.monotonic() > budget["deadline"]):
            return  # out of shrinking budget: untried inputs count as passing
        if failing:
            budget["calls"] += 1
        found.tried += 1
        try:
            failure = check(arguments)
        except Exception as exc:
            found.crash = exc
            raise
        if failure is not None:
            if not failing:
                budget["deadline"] = time.monotonic() + shrink_seconds
            failing[key] = failure
            _fail(found, arguments, failure)

    runner = settings(
        max_examples=cases,
        database=None,
        deadline=None,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        phases=(Phase.generate, Phase.shrink),
        print_blob=False,
    )(fixed_seed(seed)(given(strategy)(body)))
    try:
        runner()
    except _CaseFailed:
        pass  # `found` holds the last (smallest) failure: hypothesis replays it last
    except Exception as exc:  # Unsatisfiable, a generator error at draw time, a flaky server
        if found.failure is None and found.crash is None:
            found.unavailable = (
                f"{type(exc).__name__}: {str(exc).splitlines()[0][:200] if str(exc) else ''}"
            )
    return found


def _fail(found: Exploration, arguments: Any, failure: Failure) -> None:
    found.failure = failure
    found.input = arguments
    raise _CaseFailed(failure)


def _key(value: Any) -> bytes:
    return dumps(value, sort_keys=True)
