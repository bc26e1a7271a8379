"""What every contender shares: the benchmark tool's models and work, and the tool list.

Each contender is started as `python contenders/<name>.py TOOLS_JSON`, where
TOOLS_JSON holds the `tools/list` definitions (made by `make_specs.py` from
the toolgen spec set, so every contender lists the same tools). Only
`get_issue` is ever called; it does the same trivial work everywhere.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

BENCH_TOOL = "get_issue"


class GetIssueInput(BaseModel):
    """Arguments of `get_issue` (mirrors its input schema)."""

    model_config = ConfigDict(extra="forbid")

    owner: Annotated[str, Field(min_length=1, description="Repository owner.")]
    repo: Annotated[str, Field(min_length=1, description="Repository name.")]
    issue_number: Annotated[int, Field(ge=1, description="Issue number.")]


class GetIssueOutput(BaseModel):
    """Result of `get_issue` (mirrors its output schema)."""

    model_config = ConfigDict(extra="forbid")

    number: int
    title: str
    state: Literal["open", "closed"]
    url: str
    labels: list[str]


def get_issue_result(owner: str, repo: str, issue_number: int) -> GetIssueOutput:
    """The trivial work: build the issue (same values as `make_specs.bench_result`)."""
    return GetIssueOutput(
        number=issue_number,
        title=f"{owner}/{repo}#{issue_number}",
        state="open",
        url=f"https://github.com/{owner}/{repo}/issues/{issue_number}",
        labels=["bug"],
    )


def http_port(argv: list[str] | None = None) -> int | None:
    """The port of `--http PORT` after TOOLS_JSON (serve Streamable HTTP on 127.0.0.1), or None
    for stdio."""
    args = sys.argv if argv is None else argv
    return int(args[3]) if len(args) >= 4 and args[2] == "--http" else None


def tool_definitions(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """The definitions named on the command line (argv[1])."""
    args = sys.argv if argv is None else argv
    if len(args) < 2:
        raise SystemExit(f"usage: {Path(args[0]).name} TOOLS_JSON")
    definitions: list[dict[str, Any]] = json.loads(Path(args[1]).read_text(encoding="utf-8"))
    return definitions
