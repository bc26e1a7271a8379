"""The server stub that `toolgen build` generates, run with the benchmark's handlers.

Usage: `toolgen_stub.py PACKAGE_DIR` serves; `toolgen_stub.py --check PACKAGE_DIR`
exits 0 only when the generated package has a runnable server module.
"""

from __future__ import annotations

import sys
from pathlib import Path


def server_module(package: Path) -> Path | None:
    candidate = package / "server.py"
    return candidate if candidate.is_file() else None


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    package = Path(argv[-1])
    module = server_module(package)
    if module is None:
        print(f"`toolgen build` emits no server stub yet (no {package.name}/server.py)")
        return 1
    if check:
        return 0
    print("running generated stubs is not wired up yet", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
