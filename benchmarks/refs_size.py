"""What self-contained tool definitions cost in bytes: `tools/list` with `$ref`s inlined
(the default) and with them kept as bundled (`--refs keep`).

    python benchmarks/refs_size.py            # the markdown section of RESULTS.md on stdout
    python benchmarks/refs_size.py --write    # and replace it in RESULTS.md

Sets measured: the repository's example spec sets, the 1,000-tool benchmark spec set
(`make_specs.py`, generated when missing) and each server of the corpus of published
tools (`tests/data/corpus/`) whose definitions hold a `$ref`, then the whole corpus.
Bytes are of the compact JSON `tools/list` result of the latest revision, the form a
server sends.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:0] = [str(ROOT), str(HERE)]

from make_specs import WORK, generate  # noqa: E402

from toolgen.spec.ir import Refs, ToolSet  # noqa: E402
from toolgen.spec.pipeline import load_spec_set  # noqa: E402
from toolgen.spec.protocol import LATEST_REVISION, list_tools_result  # noqa: E402
from toolgen.spec.published import load_published  # noqa: E402

RESULTS = HERE / "RESULTS.md"
SECTION = re.compile(r"<!-- refs-size:start -->.*?<!-- refs-size:end -->", re.S)


def measure(toolset: ToolSet, refs: Refs) -> tuple[int, int]:
    """(bytes of the tools/list result, number of `$ref`s in it)."""
    body = orjson.dumps(list_tools_result(toolset.with_refs(refs), LATEST_REVISION))
    return len(body), body.count(b'"$ref"')


def sets() -> list[tuple[str, ToolSet]]:
    specs1000 = WORK / "specs1000"
    if not specs1000.exists():
        generate()
    found = [(f"`specs/{p.name}`", load_spec_set(p)) for p in sorted((ROOT / "specs").iterdir())]
    found.append(("1,000-tool benchmark set", load_spec_set(specs1000)))
    corpus = ROOT / "tests" / "data" / "corpus"
    servers = sorted([*corpus.glob("*.json"), corpus / "github-mcp-server"])
    published = [(p, load_published(p)) for p in servers]
    found += [(f"corpus: `{p.name}`", t) for p, t in published if measure(t, "keep")[1]]
    everything = [tool for _, t in published for tool in t.tools]
    found.append(
        (f"corpus: all {len(servers)} servers", replace(published[0][1], tools=tuple(everything)))
    )
    return found


def section() -> str:
    lines = [
        "<!-- refs-size:start -->",
        "## Self-contained tool definitions: the size of `tools/list`",
        "",
        "`python benchmarks/refs_size.py`: bytes of the compact `tools/list` result "
        f"({LATEST_REVISION}) with `$ref`s kept as bundled (`--refs keep`) and inlined "
        "(the default: every def that is not recursive copied in place).",
        "",
        "| spec set | tools | kept: bytes | `$ref`s | inlined: bytes | `$ref`s | change |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, toolset in sets():
        kept, kept_refs = measure(toolset, "keep")
        inlined, inlined_refs = measure(toolset, "inline")
        change = (inlined - kept) / kept
        lines.append(
            f"| {name} | {len(toolset.tools)} | {kept:,} | {kept_refs} | {inlined:,} | "
            f"{inlined_refs} | {change:+.1%} |"
        )
    lines += [
        "",
        "Inlining shrinks these lists: a bundled `$defs` carries defs a schema uses once or "
        "not at all (the Notion server sends the same 9 defs with each of its 24 tools, most "
        "of them unused), while only a def used many times in one schema would grow it. "
        "`specs/conformance` keeps its refs (`refs: keep`; its `$anchor` would be duplicated "
        "by inlining anyway), so both columns are the same.",
        "<!-- refs-size:end -->",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help="replace the section in RESULTS.md")
    args = parser.parse_args(argv)
    text = section()
    sys.stdout.write(text)
    if args.write:
        old = RESULTS.read_text(encoding="utf-8")
        new = SECTION.sub(lambda _: text.rstrip("\n"), old) if SECTION.search(old) else None
        RESULTS.write_text(new or old.rstrip("\n") + "\n\n" + text, encoding="utf-8")


if __name__ == "__main__":
    main()
