"""Handlers for `toolgen serve --handlers`: the benchmark tool's trivial work, nothing else.

toolgen validates the arguments and the result against the spec's schemas
itself, so the handler only builds the value (plain dicts, no pydantic).
"""

from __future__ import annotations

from typing import Any


class Handlers:
    """One method per tool; only `get_issue` is called (other tools answer isError)."""

    def get_issue(self, arguments: dict[str, Any]) -> dict[str, Any]:
        owner, repo, number = arguments["owner"], arguments["repo"], arguments["issue_number"]
        return {
            "number": number,
            "title": f"{owner}/{repo}#{number}",
            "state": "open",
            "url": f"https://github.com/{owner}/{repo}/issues/{number}",
            "labels": ["bug"],
        }
