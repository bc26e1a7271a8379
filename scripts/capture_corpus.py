"""Capture the tools/list of published MCP servers into tests/data/corpus/ (dev script).

    python scripts/capture_corpus.py npm:@modelcontextprotocol/server-memory pypi:mcp-server-git ...
    python scripts/capture_corpus.py --out tests/data/corpus/heldout npm:PACKAGE ...

Each server is installed from its registry (npm into .tools/corpus/, PyPI into
.tools/corpus-venv/), started over stdio with the official MCP SDK client, and
its complete `tools/list` result (all pages) is written to
`tests/data/corpus/<name>.json` (or `--out DIR`) with the package and version in `_meta`. Only
tools/list is sent: no tool is ever called. Servers that need an account get a
placeholder key in their environment (they list their tools without using it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

ROOT = Path(__file__).resolve().parent.parent
TOOLS = ROOT / ".tools"
OUT = ROOT / "tests" / "data" / "corpus"
PLACEHOLDER_ENV = {
    key: "placeholder-not-a-key"
    for key in (
        "FIRECRAWL_API_KEY", "TAVILY_API_KEY", "BRAVE_API_KEY", "EXA_API_KEY", "GITHUB_PERSONAL_ACCESS_TOKEN",
        "GITLAB_PERSONAL_ACCESS_TOKEN", "SLACK_BOT_TOKEN", "SLACK_TEAM_ID", "NOTION_TOKEN",
        "OPENAPI_MCP_HEADERS", "GOOGLE_MAPS_API_KEY", "PERPLEXITY_API_KEY", "STRIPE_SECRET_KEY",
        "EVERART_API_KEY", "MAPBOX_ACCESS_TOKEN", "PRIVATE_APP_ACCESS_TOKEN", "APIFY_TOKEN",
        "CIRCLECI_TOKEN", "HEROKU_API_KEY", "NETLIFY_PERSONAL_ACCESS_TOKEN", "RAILWAY_TOKEN",
        "TODOIST_API_TOKEN", "ZOTERO_API_KEY", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY",
        "NCBI_API_KEY", "MOTHERDUCK_TOKEN", "SUPABASE_ACCESS_TOKEN", "SENTRY_ACCESS_TOKEN",
        "FIGMA_API_KEY", "GITLAB_API_URL", "CHANNEL_ACCESS_TOKEN", "DESTINATION_USER_ID",
        "ES_URL", "ES_API_KEY", "BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID", "API_KEY",
        "JIRA_HOST", "JIRA_API_TOKEN",
    )
}  # fmt: skip


def install(spec: str) -> tuple[list[str], str]:
    """Install `npm:PKG[@v] [ARGS]` or `pypi:PKG[==v] [ARGS]`; return (command, version)."""
    kind, _, rest = spec.partition(":")
    package, *args = rest.split()
    if kind == "npm":  # a prefix per package: packages that share one replace each other's deps
        prefix = TOOLS / "corpus" / re.sub(r"[^A-Za-z0-9._-]+", "_", package)
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--silent", "--prefix", str(prefix), package], check=True)
        name = re.sub(r"(?<=.)@[^/]*$", "", package)
        meta = json.loads((prefix / "node_modules" / name / "package.json").read_text())
        bin_field = meta.get("bin")
        entry = bin_field if isinstance(bin_field, str) else next(iter((bin_field or {}).values()))
        return [
            "node",
            str(prefix / "node_modules" / name / entry),
            *args,
        ], f"npm {name}@{meta['version']}"
    venv = TOOLS / "corpus-venv"
    if not venv.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = venv / "bin" / "pip"
    subprocess.run([str(pip), "install", "--quiet", package], check=True)
    name = re.split(r"[=<>]", package)[0]
    shown = subprocess.run(
        [str(pip), "show", name], capture_output=True, text=True, check=True
    ).stdout
    version = re.search(r"^Version: (.+)$", shown, re.M)
    script = name if not args or args[0].startswith("-") else args.pop(0)
    return [
        str(venv / "bin" / script),
        *args,
    ], f"pypi {name}=={version.group(1) if version else '?'}"


async def list_tools(command: list[str]) -> list[dict[str, Any]]:
    env = {**os.environ, **PLACEHOLDER_ENV}
    server = StdioServerParameters(command=command[0], args=command[1:], env=env)
    tools: list[dict[str, Any]] = []
    async with asyncio.timeout(120):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            cursor = None
            while True:
                params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
                page = await session.list_tools(params=params)
                tools += [t.model_dump(by_alias=True, exclude_none=True) for t in page.tools]
                cursor = page.next_cursor
                if not cursor:
                    return tools


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "specs", nargs="+", help="npm:PACKAGE[@VERSION] or pypi:PACKAGE[==VERSION], then ARGS"
    )
    parser.add_argument("--name", help="output file name (one server only)")
    parser.add_argument("--out", type=Path, default=OUT, help=f"output directory (default {OUT})")
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    for spec in options.specs:
        try:
            command, version = install(spec)
            tools = asyncio.run(list_tools(command))
        except Exception as exc:  # one server failing must not stop the others
            print(f"{spec}: failed: {exc!r}"[:300], file=sys.stderr)
            continue
        package = re.sub(r"(?<=.)@[^/]*$|==.*$", "", version.split(" ", 1)[1])
        name = options.name or re.sub(r"[^a-z0-9]+", "-", package.lower()).strip("-")
        body = {
            "_meta": {
                "dev.toolgen/source": f"{version}: tools/list over stdio (scripts/capture_corpus.py)"
            },
            "tools": tools,
        }
        (options.out / f"{name}.json").write_text(
            json.dumps(body, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        print(f"{name}: {len(tools)} tools from {version}", file=sys.stderr)


if __name__ == "__main__":
    main()
