"""Generate the benchmark inputs from the real tool corpus.

Everything lands under `benchmarks/.work/` (git-ignored):

- `specs1000/`: a 1,000-tool spec set in the toolgen format. Input schemas are
  the 117 real ones from `tests/data/corpus/github-mcp-server/`, cycled with unique
  names; output schemas are plausible ones chosen by the tool's verb (objects
  mostly, some arrays), several of them `$ref`-ing shared defs in
  `common.yaml`; annotations are the corpus's own.
- `dcg-combined.schema.json`: the same input and output schemas in ONE JSON
  Schema document (under `$defs`), the input of the datamodel-code-generator
  baseline.
- `serve3/`, `serve500/`: spec sets for the serving benchmark: the benchmark
  tool `get_issue` (with an example, so a mock server returns the same value
  the hand-written handlers compute) plus 2 or 499 corpus tools; and
  `serve3.tools.json`, `serve500.tools.json`: their `tools/list` definitions,
  read by the non-toolgen contenders so every server lists the same tools.

Run it directly (`python benchmarks/make_specs.py [--tools N]`) or let
`benchmarks/run.py` call `generate()`.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
WORK = HERE / ".work"
CORPUS = HERE.parent / "tests" / "data" / "corpus" / "github-mcp-server"
TOOLS_PER_FILE = 25
EDIT_MARKER = re.compile(r"bench-edit-target rev \d+")
PROTOCOL = "2025-11-25"

BENCH_TOOL_NAME = "get_issue"
BENCH_ARGUMENTS = {"owner": "octo", "repo": "hello", "issue_number": 42}
"""The arguments the serving driver sends; every contender returns `bench_result(...)`."""


def bench_result(owner: str, repo: str, issue_number: int) -> dict[str, Any]:
    """The trivial work of the benchmark tool (the mock's example output equals this)."""
    return {
        "number": issue_number,
        "title": f"{owner}/{repo}#{issue_number}",
        "state": "open",
        "url": f"https://github.com/{owner}/{repo}/issues/{issue_number}",
        "labels": ["bug"],
    }


BENCH_TOOL: dict[str, Any] = {
    "name": BENCH_TOOL_NAME,
    "title": "Get an issue",
    "description": "Return one issue of a repository by its number.",
    "annotations": {"readOnly": True, "idempotent": True, "openWorld": True},
    "input": {
        "type": "object",
        "properties": {
            "owner": {"type": "string", "minLength": 1, "description": "Repository owner."},
            "repo": {"type": "string", "minLength": 1, "description": "Repository name."},
            "issue_number": {"type": "integer", "minimum": 1, "description": "Issue number."},
        },
        "required": ["owner", "repo", "issue_number"],
        "additionalProperties": False,
    },
    "output": {
        "type": "object",
        "properties": {
            "number": {"type": "integer"},
            "title": {"type": "string"},
            "state": {"type": "string", "enum": ["open", "closed"]},
            "url": {"type": "string"},
            "labels": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["number", "title", "state", "url", "labels"],
        "additionalProperties": False,
    },
    "examples": [{"input": BENCH_ARGUMENTS, "output": bench_result(**BENCH_ARGUMENTS)}],
}

COMMON_DEFS: dict[str, Any] = {
    "User": {
        "type": "object",
        "description": "A GitHub account.",
        "properties": {
            "login": {"type": "string"},
            "id": {"type": "integer"},
            "html_url": {"type": "string", "format": "uri"},
            "type": {"type": "string", "enum": ["User", "Organization", "Bot"]},
        },
        "required": ["login", "id"],
        "additionalProperties": False,
    },
    "Label": {
        "type": "object",
        "description": "An issue or pull request label.",
        "properties": {
            "name": {"type": "string"},
            "color": {"type": "string", "pattern": "^[0-9a-fA-F]{6}$"},
            "description": {"type": ["string", "null"]},
        },
        "required": ["name"],
        "additionalProperties": False,
    },
}

ANNOTATION_KEYS = {
    "readOnlyHint": "readOnly",
    "destructiveHint": "destructive",
    "idempotentHint": "idempotent",
    "openWorldHint": "openWorld",
    "title": "title",
}


def load_corpus(corpus: Path = CORPUS) -> list[dict[str, Any]]:
    """The corpus tools in name order."""
    return [json.loads(p.read_text()) for p in sorted(corpus.glob("*.json"))]


def _item_schema(name: str, index: int) -> dict[str, Any]:
    props: dict[str, Any] = {
        "id": {"type": "integer"},
        "node_id": {"type": "string"},
        "html_url": {"type": "string", "format": "uri"},
        "name": {"type": "string"},
        "created_at": {"type": "string", "format": "date-time"},
        "updated_at": {"type": ["string", "null"], "format": "date-time"},
    }
    if index % 3 == 0:
        props["user"] = {"$ref": "common.yaml#/defs/User"}
    if index % 4 == 1:
        props["labels"] = {"type": "array", "items": {"$ref": "common.yaml#/defs/Label"}}
    if index % 5 == 2:
        props["state"] = {"type": "string", "enum": ["open", "closed", "merged"]}
    return {
        "type": "object",
        "description": f"One result of {name}.",
        "properties": props,
        "required": ["id", "html_url"],
        "additionalProperties": False,
    }


def output_schema(name: str, index: int) -> dict[str, Any]:
    """A plausible output schema for a tool, by its verb: objects mostly, some arrays."""
    verb = name.split("_", 1)[0]
    if verb in {"list", "search"} or name.endswith(("_list", "_read", "_get")):
        item = _item_schema(name, index)
        if index % 3 == 0:
            return {"type": "array", "items": item, "description": f"Results of {name}."}
        return {
            "type": "object",
            "properties": {
                "total_count": {"type": "integer", "minimum": 0},
                "incomplete_results": {"type": "boolean"},
                "items": {"type": "array", "items": item},
                "next_cursor": {"type": ["string", "null"]},
            },
            "required": ["total_count", "items"],
            "additionalProperties": False,
        }
    if verb == "get":
        return _item_schema(name, index)
    if verb in {"delete", "remove", "dismiss", "unstar", "unresolve"}:
        return {
            "type": "object",
            "properties": {"deleted": {"type": "boolean"}, "id": {"type": "string"}},
            "required": ["deleted"],
            "additionalProperties": False,
        }
    return {
        "type": "object",
        "properties": {
            "id": {"type": "integer"},
            "url": {"type": "string", "format": "uri"},
            "status": {"type": "string", "enum": ["created", "updated", "unchanged"]},
            "message": {"type": "string"},
            "author": {"$ref": "common.yaml#/defs/User"},
        },
        "required": ["status"],
        "additionalProperties": False,
    }


def corpus_tool(raw: dict[str, Any], name: str, index: int) -> dict[str, Any]:
    """One spec-format tool from a corpus Tool object (icons and _meta dropped)."""
    tool: dict[str, Any] = {"name": name, "description": raw["description"]}
    annotations = {
        ANNOTATION_KEYS[k]: v for k, v in raw.get("annotations", {}).items() if k in ANNOTATION_KEYS
    }
    if annotations:
        tool["annotations"] = annotations
    tool["input"] = raw["inputSchema"]
    tool["output"] = output_schema(raw["name"], index)
    return tool


def tool_names(corpus: list[dict[str, Any]], count: int) -> list[tuple[dict[str, Any], str]]:
    """`count` (corpus tool, unique name) pairs: the real names first, then `_2`, `_3`..."""
    pairs = []
    for i in range(count):
        raw = corpus[i % len(corpus)]
        cycle = i // len(corpus)
        pairs.append((raw, raw["name"] if cycle == 0 else f"{raw['name']}_{cycle + 1}"))
    return pairs


def _dump(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
    path.write_text("toolgen: 1\n" + text, encoding="utf-8")


def write_spec_set(
    root: Path,
    tools: list[dict[str, Any]],
    server_name: str,
    per_file: int = TOOLS_PER_FILE,
) -> None:
    """Write `tools` as a spec set: `common.yaml` (server + shared defs) and tool files."""
    if root.exists():
        shutil.rmtree(root)
    server = {"name": server_name, "version": "1.0.0", "title": "Benchmark tools"}
    _dump(root / "common.yaml", {"server": server, "defs": COMMON_DEFS})
    for start in range(0, len(tools), per_file):
        chunk = tools[start : start + per_file]
        _dump(root / f"tools_{start // per_file:03d}.yaml", {"tools": chunk})


def spec_tools(count: int, corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools of the N-tool build spec set; the middle one carries the edit marker."""
    tools = [corpus_tool(raw, name, i) for i, (raw, name) in enumerate(tool_names(corpus, count))]
    target = tools[len(tools) // 2]
    target["input"] = json.loads(json.dumps(target["input"]))
    target["input"].setdefault("properties", {})["bench_note"] = {
        "type": "string",
        "description": "bench-edit-target rev 0",
    }
    return tools


def _to_combined_refs(node: Any) -> Any:
    if isinstance(node, dict):
        out = {k: _to_combined_refs(v) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("common.yaml#/defs/"):
            out["$ref"] = "#/$defs/" + ref.rsplit("/", 1)[1]
        return out
    if isinstance(node, list):
        return [_to_combined_refs(v) for v in node]
    return node


def pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[_.\-]+", name) if part)


def combined_schema(tools: list[dict[str, Any]]) -> dict[str, Any]:
    """All input and output schemas as `$defs` of one document (the DCG baseline input)."""
    defs: dict[str, Any] = dict(COMMON_DEFS)
    for tool in tools:
        defs[pascal(tool["name"]) + "Input"] = _to_combined_refs(tool["input"])
        defs[pascal(tool["name"]) + "Output"] = _to_combined_refs(tool["output"])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "BenchTools",
        "$defs": defs,
    }


def tool_definitions(spec_dir: Path) -> list[dict[str, Any]]:
    """The `tools/list` definitions of a spec set, as toolgen computes them."""
    import toolgen
    from toolgen.spec.protocol import list_tools_result

    result = list_tools_result(toolgen.load(spec_dir), PROTOCOL)
    return list(result["tools"])


def serve_tools(count: int, corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    others = [corpus_tool(raw, name, i) for i, (raw, name) in enumerate(tool_names(corpus, count))]
    return [BENCH_TOOL, *[t for t in others if t["name"] != BENCH_TOOL_NAME][: count - 1]]


def edit_one_tool(spec_dir: Path, revision: int) -> Path:
    """Change one input-property description of one tool (the build 'edit' case)."""
    for path in sorted(spec_dir.glob("tools_*.yaml")):
        text = path.read_text(encoding="utf-8")
        if EDIT_MARKER.search(text):
            path.write_text(
                EDIT_MARKER.sub(f"bench-edit-target rev {revision}", text), encoding="utf-8"
            )
            return path
    raise RuntimeError(f"no edit marker under {spec_dir}")


def generate(work: Path = WORK, build_tools: int = 1000, list_tools: int = 500) -> dict[str, Path]:
    """Write every benchmark input; return their paths by role."""
    corpus = load_corpus()
    work.mkdir(parents=True, exist_ok=True)
    paths = {
        "specs": work / f"specs{build_tools}",
        "combined": work / f"dcg-combined-{build_tools}.schema.json",
        "serve_small": work / "serve3",
        "serve_large": work / f"serve{list_tools}",
    }
    tools = spec_tools(build_tools, corpus)
    write_spec_set(paths["specs"], tools, "bench_build")
    paths["combined"].write_text(json.dumps(combined_schema(tools), indent=2), encoding="utf-8")
    for key, count in (("serve_small", 3), ("serve_large", list_tools)):
        write_spec_set(paths[key], serve_tools(count, corpus), "bench_serve")
        definitions = paths[key].with_suffix(".tools.json")
        definitions.write_text(json.dumps(tool_definitions(paths[key])), encoding="utf-8")
        paths[key + "_defs"] = definitions
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tools", type=int, default=1000, help="tools in the build spec set")
    parser.add_argument("--list-tools", type=int, default=500, help="tools in the large serve set")
    parser.add_argument("--work", type=Path, default=WORK)
    args = parser.parse_args()
    for role, path in generate(args.work, args.tools, args.list_tools).items():
        print(f"{role}: {path}")


if __name__ == "__main__":
    main()
