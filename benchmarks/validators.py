"""Which JSON Schema 2020-12 validator should the runtime use? Measure the candidates.

    python benchmarks/validators.py            # the notes and shop specs, valid and invalid values

For every tool input of the repo's specs (bundled 2020-12 schemas with
`$defs`, patterns, bounds), times compiling once and validating a valid and
an invalid value, per candidate that is installed:

- jsonschema-rs (Rust; `Draft202012Validator`, `is_valid` then `iter_errors`): the runtime's
  choice;
- jsonschema (pure Python, the reference implementation; `Draft202012Validator`);
- fastjsonschema (code generation) does not support 2020-12 (`$defs`, `prefixItems`,
  `unevaluated*`), so it is no candidate; neither is pydantic, which validates models, not
  schemas.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import toolgen  # noqa: E402
from toolgen.schema.sample import sample  # noqa: E402


def timed(fn: Callable[[], Any], repeat: int) -> float:
    """Median seconds per call over 5 batches of `repeat` calls."""
    rounds = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        rounds.append((time.perf_counter() - start) / repeat)
    return statistics.median(rounds)


def candidates() -> dict[str, Callable[[dict[str, Any]], Callable[[Any], bool]]]:
    found: dict[str, Callable[[dict[str, Any]], Callable[[Any], bool]]] = {}
    try:
        import jsonschema_rs

        found["jsonschema-rs"] = lambda s: jsonschema_rs.Draft202012Validator(s).is_valid
    except ImportError:
        pass
    try:
        import jsonschema

        found["jsonschema (Python)"] = lambda s: jsonschema.Draft202012Validator(s).is_valid
    except ImportError:
        pass
    return found


def main() -> None:
    cases = []
    for spec in ("notes", "shop"):
        for tool in toolgen.load(ROOT / "specs" / spec):
            schema = dict(tool.input_schema)
            valid = sample(schema)
            invalid = {**valid, "unexpected": object.__name__} if isinstance(valid, dict) else None
            cases.append((f"{spec}/{tool.name}", schema, valid, invalid))
    print(f"{'validator':22} {'compile µs':>11} {'valid µs':>9} {'invalid µs':>11}")
    for name, make in candidates().items():
        compile_times, valid_times, invalid_times = [], [], []
        for _, schema, valid, invalid in cases:
            compile_times.append(timed(lambda s=schema, m=make: m(s), 20))
            check = make(schema)
            assert check(valid), (name, schema, valid)
            valid_times.append(timed(lambda c=check, v=valid: c(v), 2000))
            invalid_times.append(timed(lambda c=check, v=invalid: c(v), 2000))
        print(
            f"{name:22} {statistics.median(compile_times) * 1e6:11.1f} "
            f"{statistics.median(valid_times) * 1e6:9.2f} "
            f"{statistics.median(invalid_times) * 1e6:11.2f}"
        )


if __name__ == "__main__":
    main()
