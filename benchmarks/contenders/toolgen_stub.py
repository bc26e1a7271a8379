"""The server stub that `toolgen build` generates, run with the benchmark's handlers.

Usage: `toolgen_stub.py PACKAGE_DIR` serves; `toolgen_stub.py --check PACKAGE_DIR`
exits 0 only when the generated package has a runnable server module.

Written as a user would: subclass the generated `Handlers`, take the typed
`GetIssueInput` model, return the generated `GetIssueOutput` model, and call
the generated `serve`. The other tools of the large spec set get methods that
raise `ToolError` (they are listed, never called).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any


def handlers_class(server: Any, package: str) -> type:
    """A concrete subclass of the generated `Handlers`.

    As a user would write it for a fast start: `get_issue` overrides the generated
    method (whose annotation, `args: GetIssueInput`, makes the runtime pass the typed
    model) and imports the output model where it is used, so that the models module
    is imported on the first call, not when the server starts (`from PACKAGE.models
    import GetIssueOutput` under `if TYPE_CHECKING:` in a user's module).
    """
    found: dict[str, Any] = {}

    def get_issue(self: Any, args: Any) -> Any:
        output = found.get("output")
        if output is None:
            output = found["output"] = importlib.import_module(f"{package}.models").GetIssueOutput
        owner, repo, number = args.owner, args.repo, args.issue_number
        return output(
            number=number,
            title=f"{owner}/{repo}#{number}",
            state="open",
            url=f"https://github.com/{owner}/{repo}/issues/{number}",
            labels=["bug"],
        )

    # Written in a user's module as `def get_issue(self, args: GetIssueInput) -> GetIssueOutput`
    # with the models imported under `if TYPE_CHECKING:`; here the package name is only known
    # at run time, so the method has no annotations and inherits the generated method's.
    get_issue.__annotations__ = {}

    def not_called(self: Any, args: Any) -> Any:
        raise server.ToolError("only get_issue is called in the benchmark")

    methods: dict[str, Any] = dict.fromkeys(server.Handlers.__abstractmethods__, not_called)
    methods["get_issue"] = get_issue
    return type("BenchHandlers", (server.Handlers,), methods)


def main(argv: list[str]) -> int:
    check = argv[:1] == ["--check"]
    package = Path(argv[-1]).resolve()
    if not (package / "server.py").is_file():
        print(f"`toolgen build` emits no server stub yet (no {package.name}/server.py)")
        return 1
    sys.path.insert(0, str(package.parent))
    try:
        server = importlib.import_module(f"{package.name}.server")
        handlers = handlers_class(server, package.name)()
    except Exception as exc:
        print(f"the generated stub does not load: {type(exc).__name__}: {exc}")
        return 1
    if check:
        return 0
    server.serve(handlers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
