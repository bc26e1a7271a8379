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


def handlers_class(server: Any, models: Any) -> type:
    """A concrete subclass of the generated `Handlers`."""
    output = models.GetIssueOutput

    def get_issue(self: Any, args: Any) -> Any:
        owner, repo, number = args.owner, args.repo, args.issue_number
        return output(
            number=number,
            title=f"{owner}/{repo}#{number}",
            state="open",
            url=f"https://github.com/{owner}/{repo}/issues/{number}",
            labels=["bug"],
        )

    # Like `def get_issue(self, args: GetIssueInput) -> GetIssueOutput` in the user's module:
    # the annotation is what makes the runtime pass the typed model.
    get_issue.__annotations__ = {"args": models.GetIssueInput, "return": output}

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
        models = importlib.import_module(f"{package.name}.models")
        handlers = handlers_class(server, models)()
    except Exception as exc:
        print(f"the generated stub does not load: {type(exc).__name__}: {exc}")
        return 1
    if check:
        return 0
    server.serve(handlers)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
