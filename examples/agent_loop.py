"""An agent loop: a model API calls MCP tools through toolgen's provider views.

    python examples/agent_loop.py --provider gemini            # scripted model, offline
    OPENAI_API_KEY=... python examples/agent_loop.py --provider openai --live gpt-4.1-mini
    OPENAI_API_KEY=... python examples/agent_loop.py --provider openai-responses --live gpt-4.1-mini

The loop, for any provider:

1. give the model `view.payload()` (the tools in its API's format);
2. for each tool call the model makes, `mcp_call(view, call)` restores the MCP
   name and drops the `null`s strict mode sends for optional fields;
3. call the tool on the MCP server (here the notes server, `examples/notes_handlers.py`,
   through the official MCP SDK client);
4. `result_messages(view, ...)` turns the MCP results into the provider's
   tool-result message(s) (Responses API: `function_call_output` items); append them
   and ask the model again, until it answers without tool calls.

Without `--live`, a scripted model stands in for the API (no network, no key):
it makes the calls a model would (in the provider's wire format), which is what
the tests run.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

import toolgen
from toolgen.providers import Provider, View, toolset_view
from toolgen.providers.calls import McpCall, mcp_call, result_messages

HERE = Path(__file__).resolve().parent
Model = Callable[[list[dict[str, Any]], View], tuple[list[dict[str, Any]], list[Any]]]
"""messages, view -> (what the model said, to append: one assistant message, or the
Responses API's output items; its tool calls)."""


async def agent_loop(
    session: ClientSession, view: View, model: Model, prompt: str, max_turns: int = 8
) -> list[dict[str, Any]]:
    """Run the conversation to its end; return every message."""
    messages: list[dict[str, Any]] = [_user(view.provider, prompt)]
    for _ in range(max_turns):
        said, calls = model(messages, view)
        messages.extend(said)
        if not calls:
            break
        results: list[tuple[McpCall, dict[str, Any]]] = []
        for raw in calls:
            call = mcp_call(view, raw)
            result = await session.call_tool(call.name, call.arguments)
            results.append((call, result.model_dump(by_alias=True, exclude_none=True)))
        messages.extend(result_messages(view, results))
    return messages


def _user(provider: Provider, text: str) -> dict[str, Any]:
    if provider == "gemini":
        return {"role": "user", "parts": [{"text": text}]}
    return {"role": "user", "content": text}


# -- a scripted model: what a model would send, in each provider's wire format ----------

PLAN: list[list[tuple[str, dict[str, Any]]]] = [
    [("create_note", {"title": "Groceries", "body": "milk, eggs"})],
    [("list_notes", {})],
]
"""Turn by turn, the MCP tools the scripted model calls and the arguments it means."""


def scripted_model(
    messages: list[dict[str, Any]], view: View
) -> tuple[list[dict[str, Any]], list[Any]]:
    """Calls the tools of `PLAN` turn by turn (optional fields as `null`, the way OpenAI
    strict mode sends them), then answers in text."""
    turn = sum(1 for m in messages if m.get("role") in ("assistant", "model")) + len(
        {m["call_id"].rsplit("_", 1)[0] for m in messages if m.get("type") == "function_call"}
    )
    if turn >= len(PLAN):
        return [_text_answer(view.provider, "Done: the note is saved and listed.")], []
    calls = []
    for index, (mcp_name, args) in enumerate(PLAN[turn]):
        tool = next(t for t in view.tools if t.mcp_name == mcp_name)
        sent = dict(args)
        if tool.strict:  # strict mode: every property present, null when left out
            function = tool.definition.get("function", tool.definition)  # Chat or Responses
            for name in function["parameters"]["properties"]:
                sent.setdefault(name, None)
        calls.append(_wire_call(view.provider, tool.name, sent, f"call_{turn}_{index}"))
    if view.provider == "openai-responses":  # the calls are output items of their own
        return calls, calls
    return [_assistant_with_calls(view.provider, calls)], calls


def _wire_call(provider: Provider, name: str, args: dict[str, Any], call_id: str) -> dict[str, Any]:
    if provider == "openai-responses":
        return {
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": json.dumps(args),
        }
    if provider == "openai":
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
    if provider == "anthropic":
        return {"type": "tool_use", "id": call_id, "name": name, "input": args}
    return {"functionCall": {"id": call_id, "name": name, "args": args}}


def _assistant_with_calls(provider: Provider, calls: list[dict[str, Any]]) -> dict[str, Any]:
    if provider == "openai":
        return {"role": "assistant", "content": None, "tool_calls": calls}
    if provider == "anthropic":
        return {"role": "assistant", "content": calls}
    return {"role": "model", "parts": calls}


def _text_answer(provider: Provider, text: str) -> dict[str, Any]:
    if provider == "gemini":
        return {"role": "model", "parts": [{"text": text}]}
    if provider == "anthropic":
        return {"role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"role": "assistant", "content": text}


def openai_model(model_name: str, responses: bool = False) -> Model:
    """A live OpenAI model through Chat Completions, or the Responses API with `responses`
    (needs `pip install openai` and OPENAI_API_KEY)."""
    from openai import OpenAI

    client = OpenAI()

    def step(messages: list[dict[str, Any]], view: View) -> tuple[list[dict[str, Any]], list[Any]]:
        if responses:
            response = client.responses.create(
                model=model_name,
                input=messages,  # type: ignore[arg-type]
                tools=view.payload(),  # type: ignore[arg-type]
            )
            items = [item.model_dump(exclude_none=True) for item in response.output]
            return items, [item for item in items if item.get("type") == "function_call"]
        reply = client.chat.completions.create(
            model=model_name,
            messages=messages,  # type: ignore[arg-type]
            tools=view.payload(),  # type: ignore[arg-type]
        )
        message = reply.choices[0].message
        return [message.model_dump(exclude_none=True)], list(message.tool_calls or [])

    return step


# -- running it --------------------------------------------------------------------------


async def run(provider: Provider, model: Model, db: Path) -> list[dict[str, Any]]:
    """Serve the notes spec set with its SQLite handlers and run the loop against it."""
    view = toolset_view(toolgen.load_toolset(HERE.parent / "specs" / "notes"), provider)
    server = StdioServerParameters(
        command=sys.executable, args=[str(HERE / "notes_handlers.py"), "--db", str(db)]
    )
    with anyio.fail_after(60):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await agent_loop(
                session, view, model, "Save a grocery note, then list my notes."
            )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--provider",
        choices=["openai", "openai-responses", "anthropic", "gemini"],
        default="openai",
    )
    parser.add_argument(
        "--live", metavar="MODEL", help="call this OpenAI model instead of the script"
    )
    args = parser.parse_args(argv)
    responses = args.provider == "openai-responses"
    model = openai_model(args.live, responses) if args.live else scripted_model
    with tempfile.TemporaryDirectory() as tmp:
        messages = anyio.run(run, args.provider, model, Path(tmp) / "notes.sqlite3")
    print(json.dumps(messages, indent=2, default=str))


if __name__ == "__main__":
    main()
