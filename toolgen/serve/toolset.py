"""`RuntimeToolSet`: what `toolgen.load` returns, a spec set ready to validate, answer
calls and serve.

It is `toolgen.serve.tools.Tools` (definitions, validation, results) plus `serve()`, which
runs the stdio transport; the engine and the transports take a `Tools` and never import
this module.
"""

from __future__ import annotations

from typing import Any

from toolgen.serve.stdio import serve_stdio
from toolgen.serve.tools import Tools


class RuntimeToolSet(Tools):
    """A loaded spec set: definitions, validation, results, and serving over stdio."""

    def serve(self, handlers: Any, **options: Any) -> None:
        """Serve these tools over stdio with `handlers` until stdin closes.

        `options` are those of `toolgen.serve.stdio.serve_stdio` (`timeout`, ...).
        """
        serve_stdio(self, handlers, **options)
