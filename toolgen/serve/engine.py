"""The MCP engine: JSON-RPC messages in, responses out, for both protocol eras.

Transport-independent. A transport decodes one JSON message, calls
`Engine.dispatch(message, connection)` and gets back one of:

- a response dict to send (serialize it with `toolgen.serve.jsonrpc.dumps`;
  it may embed `orjson.Fragment`s),
- `None`: send nothing (notifications, responses from the client), or
- a `PendingCall` (`toolgen.serve.calls`): a `tools/call` whose handler still
  has to run, already among `connection.inflight` (so `notifications/cancelled`
  finds it). The transport hands it to `calls.start`, which decides where the
  handler runs, and sends what the call's `reply` gets unless that is None;
- an awaitable of the response, for a request that needs the store (the tasks
  extension's methods): `Engine.reply` dispatches and awaits it, on the event loop.

`await Engine.handle(message, connection)` does all of that in one step (batches,
tests, hosts that answer one request at a time).

JSON-RPC batches (arrays): only a 2025-03-26 session must accept them
(`takes_batch`); `await Engine.handle_batch(...)` answers one with an array.
Every other array gets -32600, as MCP before 2025-03-26 and since 2025-06-18 says.

Eras. A request whose `params._meta` carries
`io.modelcontextprotocol/protocolVersion` is served statelessly at exactly
that version (2026-07-28: `server/discover`, `tools/list`, `tools/call`, and
`tasks/get`, `tasks/update`, `tasks/cancel` when a tool supports tasks, see
`toolgen.serve.tasks`; `resultType: "complete"` on every result but a task's
handle), or refused with -32022 and the supported versions. Other requests are the legacy era: `initialize` (which
negotiates the version of this connection), `ping`, `tools/list`,
`tools/call`, only after `initialize`. A `Connection` holds that per-
connection state (stdio: the process; HTTP: the session).

`dispatch` needs no event loop, except for the tasks extension's methods: a
transport may call it on any one thread (stdio: the thread that read the
message), or on the loop when `task_support` is not empty.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Final

from toolgen.schema.validation import invalid_arguments
from toolgen.serve import jsonrpc
from toolgen.serve.calls import Calls, PendingCall, answer
from toolgen.serve.connection import Connection, Response, kept_capabilities
from toolgen.serve.context import (
    CLIENT_CAPABILITIES_META,
    LOG_LEVELS,
    CallContext,
    use_call_context,
)
from toolgen.serve.handlers import BoundHandler, bind_handlers
from toolgen.serve.inputs import (
    InputRound,
    InvalidInput,
    StateSigner,
    arguments_digest,
    check_responses,
)
from toolgen.serve.jsonrpc import RequestId
from toolgen.serve.listing import DEFAULT_PAGE_SIZE, InvalidCursor, ToolListing
from toolgen.serve.needs import missing
from toolgen.serve.results import error_result
from toolgen.serve.store import Record, Store
from toolgen.serve.tasks import (
    TASK_SUPPORT,
    TASKS_EXTENSION,
    TaskStore,
    declares_tasks,
    detailed,
    required_capability,
)
from toolgen.serve.tools import Tools
from toolgen.spec.protocol import (
    LATEST_LEGACY_REVISION,
    LEGACY_REVISIONS,
    SUPPORTED_REVISIONS,
    TOOLS_CACHE_SCOPE,
    TOOLS_TTL_MS,
    accepts_batches,
    has_structured_output,
    is_modern,
)

PROTOCOL_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_META: Final = "io.modelcontextprotocol/serverInfo"
ADVERTISED_VERSIONS: Final = tuple(reversed(SUPPORTED_REVISIONS))
"""Every version a request may name, newest first (in `server/discover` and -32022)."""

Reply = Response | PendingCall | Awaitable[Response] | None
"""What `Engine.dispatch` gives (see the module docs)."""

log = logging.getLogger("toolgen.runtime")


class Engine:
    """Answers MCP requests for one spec set with one set of handlers."""

    def __init__(
        self,
        tools: Tools,
        handlers: Any = None,
        *,
        timeout: float | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
        inline_sync: bool = False,
        signer: StateSigner | None = None,
        store: Store | None = None,
    ) -> None:
        """`handlers`: see `toolgen.serve.handlers`; `timeout`: seconds per call (None: none);
        `inline_sync`: treat every sync handler as `@inline` (it never blocks);
        `signer`: seals `requestState` (engines answering one endpoint must share one);
        `store`: where what outlives a request is kept (None: this process's memory)."""
        self.tools = tools
        names = [tool.name for tool in tools.tools]
        self.handlers: dict[str, BoundHandler] = (
            bind_handlers(names, handlers) if handlers is not None else {}
        )
        self._info: dict[str, dict[str, Any]] = {}
        self._modern_meta = {SERVER_INFO_META: self.server_info(ADVERTISED_VERSIONS[0])}
        self.calls = Calls(
            tools,
            self.handlers,
            timeout=timeout,
            inline_sync=inline_sync,
            meta=self._modern_meta,
            signer=signer,
        )
        self.listing = ToolListing(tools, page_size, self._modern_meta)
        self.needs = tools.client_needs
        self.task_support: dict[str, str] = _task_support(tools)
        """Tools whose calls may run as tasks: name → `optional` or `required`."""
        self.task_store = TaskStore(store)
        """Tasks: their records in `store` (`toolgen.serve.store`), their handlers here."""
        self._discover: dict[str, Any] = {}
        self._requests = {
            "ping": self._ping,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
        }
        self._modern_requests: dict[
            str, Callable[..., Response | PendingCall | Awaitable[Response]]
        ] = {
            "server/discover": self._server_discover,
            "tools/list": self._tools_list,
            "tools/call": self._tools_call,
        }
        if self.task_support:
            self._modern_requests.update(
                {
                    "tasks/get": self._tasks_get,
                    "tasks/update": self._tasks_update,
                    "tasks/cancel": self._tasks_cancel,
                }
            )

    @property
    def missing_handlers(self) -> list[str]:
        """Tools without a handler (their calls answer `isError`)."""
        return [tool.name for tool in self.tools.tools if tool.name not in self.handlers]

    # -- entry points -----------------------------------------------------------------

    async def handle(self, message: Any, connection: Connection) -> Response | None:
        """Answer one decoded message completely, a call's handler run by `calls.answer`
        (cancelling the awaiting task cancels the call)."""
        reply = await self.reply(message, connection)
        if not isinstance(reply, PendingCall):
            return reply
        return await answer(reply)

    async def reply(self, message: Any, connection: Connection) -> Response | PendingCall | None:
        """`dispatch`, and the answer of a request that needs the store (the tasks
        extension's methods) awaited."""
        reply = self.dispatch(message, connection)
        return await reply if isinstance(reply, Awaitable) else reply

    @staticmethod
    def takes_batch(message: Any, connection: Connection) -> bool:
        """Whether `message` is a batch this connection must answer (2025-03-26 sessions);
        `dispatch` refuses every other array with -32600."""
        return (
            type(message) is list and bool(message) and accepts_batches(connection.legacy_version)
        )

    async def handle_batch(
        self,
        messages: list[Any],
        connection: Connection,
        context_for: Callable[[Any], CallContext] | None = None,
    ) -> list[Response] | None:
        """Answer a JSON-RPC batch (see `takes_batch`): its members run concurrently, and the
        responses come back as one array once all are done (None: only notifications).

        `context_for(params)` gives each call its `CallContext` (progress, log messages).
        """
        replies = await asyncio.gather(
            *(self._batch_member(item, connection, context_for) for item in messages)
        )
        answered = [reply for reply in replies if reply is not None]
        return answered or None

    async def _batch_member(
        self,
        message: Any,
        connection: Connection,
        context_for: Callable[[Any], CallContext] | None,
    ) -> Response | None:
        if type(message) is dict and message.get("method") == "initialize" and "id" in message:
            request_id = message["id"] if jsonrpc.is_request_id(message["id"]) else None
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_REQUEST, "initialize must not be part of a batch"
            )
        if type(message) is not dict:
            return jsonrpc.error(
                None, jsonrpc.INVALID_REQUEST, "A batch member must be a JSON-RPC object"
            )
        if context_for is None:
            return await self.handle(message, connection)
        with use_call_context(context_for(message.get("params"))):
            return await self.handle(message, connection)

    def dispatch(self, message: Any, connection: Connection) -> Reply:
        """Route one decoded message (see the module docs for what comes back)."""
        if type(message) is not dict:
            if isinstance(message, list):
                return jsonrpc.error(
                    None,
                    jsonrpc.INVALID_REQUEST,
                    "JSON-RPC batches are only accepted in 2025-03-26 sessions: "
                    "send one message at a time",
                )
            return jsonrpc.error(
                None, jsonrpc.INVALID_REQUEST, "A message must be a JSON-RPC object"
            )
        method = message.get("method")
        if "id" not in message:
            if type(method) is str and message.get("jsonrpc") == "2.0":
                self._notification(method, message.get("params"), connection)
            elif "result" not in message and "error" not in message:
                log.warning("ignored a malformed notification: %.200r", message)
            return None  # notifications (and stray responses) never get a response
        request_id = message["id"]
        if not jsonrpc.is_request_id(request_id):
            if _is_response(message):
                return None  # a response from the client; we never send requests
            return jsonrpc.error(
                None, jsonrpc.INVALID_REQUEST, "The request id must be a string or an integer"
            )
        if type(method) is not str or message.get("jsonrpc") != "2.0":
            if _is_response(message):
                return None
            return jsonrpc.error(
                request_id,
                jsonrpc.INVALID_REQUEST,
                'A request needs "jsonrpc": "2.0" and a string "method"',
            )
        if request_id in connection.inflight:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_REQUEST, "This id is in use by a request in flight"
            )
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "params must be an object")
        meta = params.get("_meta")
        if type(meta) is dict and PROTOCOL_VERSION_META in meta:
            return self._modern(request_id, method, params, meta[PROTOCOL_VERSION_META], connection)
        if method == "initialize":
            return self._initialize(request_id, params, connection)
        return self._legacy(request_id, method, params, connection)

    # -- eras -------------------------------------------------------------------------

    def _modern(
        self,
        request_id: RequestId,
        method: str,
        params: dict[str, Any],
        version: Any,
        connection: Connection,
    ) -> Response | PendingCall | Awaitable[Response]:
        if type(version) is not str:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, f"{PROTOCOL_VERSION_META} must be a string"
            )
        if version not in SUPPORTED_REVISIONS:
            return jsonrpc.error(
                request_id,
                jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                {"supported": list(ADVERTISED_VERSIONS), "requested": version},
            )
        handler = self._modern_requests.get(method)
        if handler is None and not is_modern(version):
            handler = self._requests.get(method)
        if handler is None:
            return self._unknown_method(request_id, method)
        return handler(request_id, params, version, connection)

    def _legacy(
        self, request_id: RequestId, method: str, params: dict[str, Any], connection: Connection
    ) -> Response | PendingCall:
        if method == "logging/setLevel" and connection.legacy_version is not None:
            return self._set_log_level(request_id, params, connection)
        handler = self._requests.get(method)
        if handler is None:
            if method in self._modern_requests and not method.startswith("tasks/"):
                return jsonrpc.error(
                    request_id,
                    jsonrpc.INVALID_PARAMS,
                    f"{method} needs params._meta[{PROTOCOL_VERSION_META!r}]",
                )
            return self._unknown_method(request_id, method)
        version = connection.legacy_version
        if version is None:
            if method != "ping":
                return jsonrpc.error(
                    request_id,
                    jsonrpc.INVALID_REQUEST,
                    "Not initialized: send initialize first, or name the protocol version "
                    f"in params._meta[{PROTOCOL_VERSION_META!r}]",
                )
            version = LATEST_LEGACY_REVISION
        return handler(request_id, params, version, connection)

    @staticmethod
    def _unknown_method(request_id: RequestId, method: str) -> Response:
        return jsonrpc.error(
            request_id, jsonrpc.METHOD_NOT_FOUND, f"Method not found: {method[:100]}"
        )

    def _notification(self, method: str, params: Any, connection: Connection) -> None:
        if (
            method == "notifications/cancelled"
            and type(params) is dict
            and connection.cancel(params.get("requestId"))
        ):
            log.info("cancelled request %r (%s)", params["requestId"], params.get("reason", ""))
        # notifications/initialized and anything else: nothing to do

    # -- methods ----------------------------------------------------------------------

    def server_info(self, revision: str) -> dict[str, Any]:
        """The MCP `Implementation` of this server, with the fields `revision` knows."""
        found = self._info.get(revision)
        if found is None:
            server = self.tools.server
            found = {"name": server.name, "version": server.version}
            if server.title is not None and has_structured_output(revision):
                found["title"] = server.title
            if server.description is not None and revision >= "2025-11-25":
                found["description"] = server.description
            self._info[revision] = found
        return found

    def _initialize(
        self, request_id: RequestId, params: dict[str, Any], connection: Connection
    ) -> Response:
        requested = params.get("protocolVersion")
        if type(requested) is not str:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, "initialize needs a string protocolVersion"
            )
        version = requested if requested in LEGACY_REVISIONS else LATEST_LEGACY_REVISION
        connection.legacy_version = version
        connection.client_capabilities = kept_capabilities(params.get("capabilities"))
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": False}, "logging": {}},
            "serverInfo": self.server_info(version),
        }
        if self.tools.server.instructions is not None:
            result["instructions"] = self.tools.server.instructions
        return jsonrpc.response(request_id, result)

    @staticmethod
    def _set_log_level(
        request_id: RequestId, params: dict[str, Any], connection: Connection
    ) -> Response:
        """Legacy `logging/setLevel`: handlers' log messages below `level` are not sent."""
        level = params.get("level")
        if level not in LOG_LEVELS:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, f"level must be one of: {', '.join(LOG_LEVELS)}"
            )
        connection.log_level = level
        return jsonrpc.response(request_id, {})

    def _ping(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        return jsonrpc.response(request_id, {})

    def _server_discover(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        result = self._discover.get(version)
        if result is None:
            result = {
                "resultType": "complete",
                "supportedVersions": list(ADVERTISED_VERSIONS),
                "capabilities": self._modern_capabilities(),
                "ttlMs": TOOLS_TTL_MS,
                "cacheScope": TOOLS_CACHE_SCOPE,
                "_meta": {SERVER_INFO_META: self.server_info(version)},
            }
            if self.tools.server.instructions is not None:
                result["instructions"] = self.tools.server.instructions
            self._discover[version] = result
        return jsonrpc.response(request_id, result)

    def _modern_capabilities(self) -> dict[str, Any]:
        capabilities: dict[str, Any] = {"tools": {"listChanged": False}}
        if self.task_support:
            capabilities["extensions"] = {TASKS_EXTENSION: {}}
        return capabilities

    def _tools_list(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        cursor = params.get("cursor")
        if cursor is not None and type(cursor) is not str:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "cursor must be a string")
        try:
            page = self.listing.page(version, cursor)
        except InvalidCursor:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "Invalid cursor")
        return jsonrpc.response(request_id, page)

    def _tools_call(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response | PendingCall:
        name = params.get("name")
        if type(name) is not str:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, "tools/call needs a name")
        if name not in self.tools:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, f"Unknown tool: {name[:128]!r}"
            )
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        elif type(arguments) is not dict:
            return jsonrpc.error(
                request_id, jsonrpc.INVALID_PARAMS, "tools/call arguments must be an object"
            )
        needed = self.needs.get(name)
        modern = is_modern(version)
        declared = _declared_capabilities(params) if modern else None  # (legacy: `initialize`)
        support = self.task_support.get(name) if modern else None
        as_task = support is not None and declares_tasks(declared)
        if modern and (needed or (support == "required" and not as_task)):
            lacking = missing(needed or (), declared)
            if support == "required" and not as_task:
                lacking["extensions"] = {TASKS_EXTENSION: {}}
            if lacking:
                names = [TASKS_EXTENSION if key == "extensions" else key for key in lacking]
                return jsonrpc.error(
                    request_id,
                    jsonrpc.MISSING_CLIENT_CAPABILITY,
                    f"Tool {name!r} needs the client capabilities: {', '.join(names)}",
                    {"requiredCapabilities": lacking},
                )
        issues = self.tools.validate_input(name, arguments)
        if issues:
            message = invalid_arguments(name, issues)
            return self.calls.response(request_id, error_result(message), version)
        if needed and not modern:
            lacking = missing(needed, connection.client_capabilities)
            if lacking:
                message = f"Tool {name!r} needs the client capabilities: {', '.join(lacking)}"
                return self.calls.response(request_id, error_result(message), version)
        inputs = None
        if modern:
            try:
                inputs = _input_round(name, arguments, params, self.calls.signer)
            except InvalidInput as exc:
                return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, str(exc))
        store = self.task_store if as_task else None
        call = PendingCall(
            self.calls,
            connection,
            request_id,
            name,
            arguments,
            version,
            inputs,
            store,
            declared,
            params,
        )
        connection.inflight[request_id] = call
        return call

    # -- tasks (io.modelcontextprotocol/tasks, see toolgen.serve.tasks) --------------

    async def _task_of(
        self, request_id: RequestId, method: str, params: dict[str, Any], version: str
    ) -> tuple[str, Record] | Response:
        """The id and record of the task a `tasks/*` request names, or the error response
        that refuses it."""
        if not is_modern(version):
            return self._unknown_method(request_id, method)
        if not declares_tasks(_declared_capabilities(params)):
            return jsonrpc.error(
                request_id,
                jsonrpc.MISSING_CLIENT_CAPABILITY,
                f"{method} needs the client capability {TASKS_EXTENSION}",
                required_capability(),
            )
        task_id = params.get("taskId")
        if type(task_id) is not str:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, f"{method} needs a taskId")
        record = await self.task_store.get(task_id)
        if record is None:
            return jsonrpc.error(
                request_id,
                jsonrpc.INVALID_PARAMS,
                "Task not found: unknown, or expired (tasks are kept ttlMs after creation)",
            )
        return task_id, record

    async def _tasks_get(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        found = await self._task_of(request_id, "tasks/get", params, version)
        if not isinstance(found, tuple):
            return found
        result = {"resultType": "complete", **detailed(found[1]), "_meta": self._modern_meta}
        return jsonrpc.response(request_id, result)

    async def _tasks_update(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        found = await self._task_of(request_id, "tasks/update", params, version)
        if not isinstance(found, tuple):
            return found
        try:
            await self.task_store.answer(found[0], params.get("inputResponses"))
        except InvalidInput as exc:
            return jsonrpc.error(request_id, jsonrpc.INVALID_PARAMS, str(exc))
        return self._acknowledged(request_id)

    async def _tasks_cancel(
        self, request_id: RequestId, params: dict[str, Any], version: str, connection: Connection
    ) -> Response:
        found = await self._task_of(request_id, "tasks/cancel", params, version)
        if not isinstance(found, tuple):
            return found
        await self.task_store.cancel(found[0])
        return self._acknowledged(request_id)

    def _acknowledged(self, request_id: RequestId) -> Response:
        """The empty acknowledgement of `tasks/update` and `tasks/cancel`."""
        return jsonrpc.response(request_id, {"resultType": "complete", "_meta": self._modern_meta})


def _task_support(tools: Tools) -> dict[str, str]:
    """Each tool's `execution.taskSupport` that lets its calls run as tasks."""
    found: dict[str, str] = {}
    for tool in tools.tools:
        support = (tool.execution or {}).get("taskSupport")
        if support in TASK_SUPPORT:
            found[tool.name] = support
    return found


def _declared_capabilities(params: dict[str, Any]) -> Any:
    meta = params.get("_meta")
    return meta.get(CLIENT_CAPABILITIES_META) if type(meta) is dict else None


def _input_round(
    name: str, arguments: dict[str, Any], params: dict[str, Any], signer: StateSigner
) -> InputRound:
    """The answers a stateless `tools/call` carries (`inputResponses`, and those sealed in
    its `requestState`); `InvalidInput` when either cannot be used."""
    answers: dict[str, Any] = {}
    if "requestState" in params:
        state = params["requestState"]
        if type(state) is not str:
            raise InvalidInput("requestState must be a string")
        payload = signer.open(state)
        if payload.get("call") != arguments_digest(name, arguments):
            raise InvalidInput("requestState belongs to another call (tool or arguments differ)")
        sealed = payload.get("answers")
        if type(sealed) is dict:
            answers.update(sealed)
    if "inputResponses" in params:
        answers.update(check_responses(params["inputResponses"]))
    return InputRound(answers)


def _is_response(message: dict[str, Any]) -> bool:
    """A reply from the client: no ``method`` member, a ``result`` or an ``error``.

    A message that names a method (even ``null``) is a request, and a malformed one gets an error.
    """
    return "method" not in message and ("result" in message or "error" in message)
