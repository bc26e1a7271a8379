"""The Streamable HTTP endpoint (`/mcp`), for both protocol eras, on Starlette.

Every POST carries one JSON-RPC message, which goes to the transport-
independent `Engine`; this module only adds what HTTP needs:

- Security first (see `security`): `Host` and `Origin` (403), bearer token
  (401), `Content-Type` (415), body size (413). Errors never carry internals.
- Era: a request whose `_meta` names a protocol version, or whose
  `MCP-Protocol-Version` header is not a legacy revision, is served
  statelessly (2026-07-28); otherwise `initialize` starts a legacy session,
  and anything else belongs to one.
- Legacy era: `Mcp-Session-Id` is issued by a successful `initialize` and
  required afterwards (400 without, 404 unknown or ended); DELETE ends the
  session; GET (a server-initiated stream) answers 405.
- Modern era: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
  `Mcp-Param-*` must match the body (400, -32020); an unsupported version is
  400 with -32022; a `_meta` without `protocolVersion` or
  `clientCapabilities` is 400 with -32602; an unknown method is 404 with
  -32601. No state survives the request.
- Responses: a request gets `application/json`, unless the client accepts
  only `text/event-stream`, or its call sends notifications (progress, log
  messages) before it ends: then the answer becomes an SSE stream carrying
  those notifications and, last, the response. Notifications and client
  responses get 202. A JSON-RPC batch (array) is 400 with -32600.
- A handler of a legacy session may send requests to the client
  (`sampling/createMessage`, `elicitation/create`) on its call's SSE stream;
  the client's response arrives in a later POST and is routed back by id.
- A client that disconnects cancels its running call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from toolgen.protocol import LEGACY_REVISIONS, SUPPORTED_REVISIONS
from toolgen.runtime import jsonrpc
from toolgen.runtime.context import (
    DEFAULT_LEGACY_LOG_LEVEL,
    Ask,
    for_request,
    use_call_context,
)
from toolgen.runtime.engine import (
    ADVERTISED_VERSIONS,
    PROTOCOL_VERSION_META,
    Connection,
    Engine,
    PendingCall,
)
from toolgen.runtime.http import security
from toolgen.runtime.http.headers import (
    HEADER_MISMATCH,
    PROTOCOL_VERSION_HEADER,
    HeaderMismatchError,
    ParamHeaders,
    check_standard_headers,
)
from toolgen.runtime.http.security import SecurityPolicy
from toolgen.runtime.http.sessions import Session, SessionStore
from toolgen.runtime.results import ToolError

log = logging.getLogger("toolgen.runtime.http")

SESSION_HEADER: Final = "mcp-session-id"
CLIENT_CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
MODERN_ERROR_STATUS: Final = {
    jsonrpc.PARSE_ERROR: 400,
    jsonrpc.INVALID_REQUEST: 400,
    jsonrpc.METHOD_NOT_FOUND: 404,
    HEADER_MISMATCH: 400,
    -32021: 400,  # MissingRequiredClientCapability
    jsonrpc.UNSUPPORTED_PROTOCOL_VERSION: 400,
}
"""HTTP status of a 2026-07-28 error response, by JSON-RPC code (others: 200)."""
SSE_HEADERS: Final = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
JSON_TYPE: Final = "application/json"
SSE_TYPE: Final = "text/event-stream"

Receive = Callable[[], Awaitable[Mapping[str, Any]]]


@dataclass(frozen=True, slots=True)
class _Accept:
    json: bool
    sse: bool


def _accepts(header: str | None) -> _Accept:
    """What the `Accept` header allows (missing: JSON only, like any plain HTTP client)."""
    if header is None:
        return _Accept(json=True, sse=False)
    types = {part.split(";", 1)[0].strip().lower() for part in header.split(",")}
    any_type = "*/*" in types
    return _Accept(
        json=any_type or JSON_TYPE in types or "application/*" in types,
        sse=SSE_TYPE in types or "text/*" in types,
    )


def _error_body(code: int, message: str, request_id: Any = None, data: Any = None) -> bytes:
    """A JSON-RPC error; without a known request id the `id` member is left out."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    body: dict[str, Any] = {"jsonrpc": "2.0"}
    if jsonrpc.is_request_id(request_id):
        body["id"] = request_id
    body["error"] = error
    return jsonrpc.dumps(body)


def _error(
    status: int,
    code: int,
    message: str,
    request_id: Any = None,
    data: Any = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    return Response(
        _error_body(code, message, request_id, data), status, headers, media_type=JSON_TYPE
    )


def _headers(request: Request) -> dict[str, str]:
    """The request's headers as a dict, built once per request (Starlette's `Headers`
    scans the raw list on every lookup). A repeated header's values are joined with
    ", " as HTTP allows, so a second `Origin`, `Host` or token never goes unseen."""
    found: dict[str, str] | None = request.scope.get("toolgen.headers")
    if found is None:
        found = {}
        for raw_name, raw_value in request.scope["headers"]:
            name = raw_name.decode("latin-1").lower()
            value = raw_value.decode("latin-1")
            found[name] = f"{found[name]}, {value}" if name in found else value
        request.scope["toolgen.headers"] = found
    return found


def _sse_event(message: Mapping[str, Any]) -> bytes:
    return b"event: message\ndata: " + jsonrpc.dumps(message) + b"\n\n"


class McpEndpoint:
    """The `/mcp` endpoint: `await endpoint.handle(request)` answers any HTTP method."""

    def __init__(
        self,
        engine: Engine,
        policy: SecurityPolicy | None = None,
        sessions: SessionStore | None = None,
    ) -> None:
        self.engine = engine
        self.policy = policy or SecurityPolicy()
        self.sessions = sessions or SessionStore()
        self.param_headers = ParamHeaders(engine.tools.toolset)

    # -- entry ------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        refused = self._refuse(request)
        if refused is not None:
            return refused
        try:
            if request.method == "POST":
                return await self._post(request)
            if request.method == "DELETE":
                return self._delete(request)
        except Exception:  # never a traceback on the wire
            log.exception("internal error while answering %s %s", request.method, request.url.path)
            return _error(500, jsonrpc.INTERNAL_ERROR, "Internal error")
        return _error(
            405,
            jsonrpc.INVALID_REQUEST,
            "Method not allowed: this server sends no server-initiated stream; POST messages",
            headers={"Allow": "POST, DELETE"},
        )

    def _refuse(self, request: Request) -> Response | None:
        """The security rules, in order: Host, Origin (403), then the bearer token (401)."""
        headers = _headers(request)
        if not security.host_allowed(headers.get("host"), self.policy):
            return _error(403, jsonrpc.INVALID_REQUEST, "Forbidden: Host not allowed")
        if not security.origin_allowed(headers.get("origin"), self.policy):
            return _error(403, jsonrpc.INVALID_REQUEST, "Forbidden: Origin not allowed")
        if not security.token_accepted(headers.get("authorization"), self.policy):
            return _error(
                401,
                jsonrpc.INVALID_REQUEST,
                "Unauthorized: send Authorization: Bearer <token>",
                headers={"WWW-Authenticate": 'Bearer realm="mcp"'},
            )
        return None

    # -- POST -------------------------------------------------------------------------

    async def _post(self, request: Request) -> Response:
        headers = _headers(request)
        content_type = headers.get("content-type", "")
        if content_type.split(";", 1)[0].strip().lower() != JSON_TYPE:
            return _error(
                415, jsonrpc.INVALID_REQUEST, "Unsupported Media Type: send application/json"
            )
        accept = _accepts(headers.get("accept"))
        if not (accept.json or accept.sse):
            return _error(
                406,
                jsonrpc.INVALID_REQUEST,
                "Not Acceptable: accept application/json and text/event-stream",
            )
        body = await self._read_body(request)
        if isinstance(body, Response):
            return body
        try:
            message = jsonrpc.loads(body)
        except jsonrpc.JSONDecodeError:
            return Response(
                jsonrpc.dumps(
                    jsonrpc.error(None, jsonrpc.PARSE_ERROR, "Parse error: not valid JSON")
                ),
                400,
                media_type=JSON_TYPE,
            )
        if type(message) is not dict:
            reason = (
                "JSON-RPC batches are not supported by MCP: POST one message per request"
                if isinstance(message, list)
                else "A message must be a JSON-RPC object"
            )
            return _error(400, jsonrpc.INVALID_REQUEST, reason)
        params = message.get("params")
        meta = params.get("_meta") if type(params) is dict else None
        version_header = headers.get(PROTOCOL_VERSION_HEADER)
        if (type(meta) is dict and PROTOCOL_VERSION_META in meta) or (
            version_header is not None and version_header.strip() not in LEGACY_REVISIONS
        ):
            return await self._modern(request, message, accept)
        if message.get("method") == "initialize" and "id" in message:
            return await self._initialize(request, message, accept)
        return await self._legacy(request, message, accept)

    async def _read_body(self, request: Request) -> bytes | Response:
        limit = self.policy.max_body
        too_large = _error(
            413, jsonrpc.INVALID_REQUEST, f"Payload Too Large: the limit is {limit} bytes"
        )
        declared = _headers(request).get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return _error(400, jsonrpc.INVALID_REQUEST, "Bad Content-Length")
            if int(declared) > limit:
                return too_large
        chunks = bytearray()
        async for chunk in request.stream():
            chunks += chunk
            if len(chunks) > limit:
                return too_large
        return bytes(chunks)

    # -- eras -------------------------------------------------------------------------

    async def _initialize(
        self, request: Request, message: dict[str, Any], accept: _Accept
    ) -> Response:
        """`initialize` (legacy era): a successful handshake creates the session."""
        connection = Connection()
        reply = self.engine.dispatch(message, connection)
        assert not isinstance(reply, PendingCall)
        headers: dict[str, str] = {}
        if reply is not None and "result" in reply:
            params = message.get("params")
            capabilities = params.get("capabilities") if type(params) is dict else None
            headers["Mcp-Session-Id"] = self.sessions.create(connection, capabilities).id
        return self._reply(reply, accept, modern=False, headers=headers)

    async def _legacy(self, request: Request, message: dict[str, Any], accept: _Accept) -> Response:
        request_id = message.get("id")
        session_id = _headers(request).get(SESSION_HEADER)
        if session_id is None:
            return _error(
                400,
                jsonrpc.INVALID_REQUEST,
                "Bad Request: missing Mcp-Session-Id header (send initialize first, or name "
                f"the protocol version in params._meta[{PROTOCOL_VERSION_META!r}])",
                request_id,
            )
        session = self.sessions.get(session_id.strip())
        if session is None:
            return _error(
                404,
                jsonrpc.INVALID_REQUEST,
                "Session not found: it ended or never existed; send initialize to start a new one",
                request_id,
            )
        if "method" not in message and ("result" in message or "error" in message):
            waiting = session.waiting.pop(request_id, None) if type(request_id) is str else None
            if waiting is not None and not waiting.done():
                waiting.set_result(message)  # the client's answer to a handler's request
            return Response(status_code=202)
        connection = session.connection
        level = connection.log_level or DEFAULT_LEGACY_LOG_LEVEL
        return await self._answer(
            request, message, connection, accept, modern=False, level=level, session=session
        )

    async def _modern(self, request: Request, message: dict[str, Any], accept: _Accept) -> Response:
        headers = _headers(request)
        request_id = message.get("id")
        if "id" not in message:
            if "method" in message:  # a notification: nothing in 2026-07-28 needs an answer
                self.engine.dispatch(message, Connection())
                return Response(status_code=202)
            return _error(
                400, jsonrpc.INVALID_REQUEST, "Clients send requests and notifications only"
            )
        params = message.get("params")
        meta = params.get("_meta") if type(params) is dict else None
        body_version = meta.get(PROTOCOL_VERSION_META) if type(meta) is dict else None
        version = headers.get(PROTOCOL_VERSION_HEADER)
        if (
            version is not None
            and version.strip() not in SUPPORTED_REVISIONS
            and body_version in (None, version.strip())
        ):  # a version we do not speak, not a header that contradicts the body
            return _error(
                400,
                jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                request_id,
                {"supported": list(ADVERTISED_VERSIONS), "requested": version.strip()},
            )
        try:
            check_standard_headers(headers, message)
        except HeaderMismatchError as exc:
            return _error(400, HEADER_MISMATCH, str(exc), request_id)
        if (
            type(meta) is not dict
            or PROTOCOL_VERSION_META not in meta
            or type(meta.get(CLIENT_CAPABILITIES_META)) is not dict
        ):
            return _error(
                400,
                jsonrpc.INVALID_PARAMS,
                f"params._meta needs {PROTOCOL_VERSION_META!r} and {CLIENT_CAPABILITIES_META!r}",
                request_id,
            )
        if self.param_headers and message.get("method") == "tools/call":
            assert type(params) is dict
            try:
                self.param_headers.check(headers, params.get("name"), params.get("arguments"))
            except HeaderMismatchError as exc:
                return _error(400, HEADER_MISMATCH, str(exc), request_id)
        return await self._answer(request, message, Connection(), accept, modern=True, level=None)

    # -- answering --------------------------------------------------------------------

    async def _answer(
        self,
        request: Request,
        message: dict[str, Any],
        connection: Connection,
        accept: _Accept,
        *,
        modern: bool,
        level: str | None,
        session: Session | None = None,
    ) -> Response:
        """Run one message through the engine and shape the HTTP response."""
        reply = self.engine.dispatch(message, connection)
        if isinstance(reply, PendingCall):
            return await self._run_call(
                request, message, reply, connection, accept, modern, level, session
            )
        if reply is None:
            return Response(status_code=202)
        return self._reply(reply, accept, modern)

    async def _run_call(
        self,
        request: Request,
        message: dict[str, Any],
        call: PendingCall,
        connection: Connection,
        accept: _Accept,
        modern: bool,
        level: str | None,
        session: Session | None,
    ) -> Response:
        """Run a `tools/call`; switch to SSE if it sends notifications before it ends."""
        loop = asyncio.get_running_loop()
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

        def send(notification: dict[str, Any]) -> None:  # any thread
            loop.call_soon_threadsafe(outbox.put_nowait, notification)

        ask = _asker(session, send) if session is not None and accept.sse else None
        context = for_request(
            message.get("params"),
            send,
            legacy_log_level=level,
            ask=ask,
            client_capabilities=session.client_capabilities if session is not None else None,
        )
        with use_call_context(context):
            task = asyncio.ensure_future(call.coroutine)
        connection.track(call.request_id, task)
        disconnect = asyncio.ensure_future(_disconnected(request.receive))
        first: asyncio.Future[dict[str, Any]] | None = None
        try:
            if accept.sse:
                first = asyncio.ensure_future(outbox.get())
                await asyncio.wait({task, first, disconnect}, return_when=asyncio.FIRST_COMPLETED)
            else:
                await asyncio.wait({task, disconnect}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            task.cancel()
            disconnect.cancel()
            if first is not None:
                first.cancel()
            raise
        if disconnect.done() and not task.done():
            task.cancel()
            if first is not None:
                first.cancel()
            return Response(status_code=204)  # nobody is listening any more
        pending: list[dict[str, Any]] = []
        if first is not None:
            if first.done():
                pending.append(first.result())
            else:
                first.cancel()
            while not outbox.empty():
                pending.append(outbox.get_nowait())
        if task.done() and (not pending or not accept.sse) and accept.json:
            disconnect.cancel()
            reply = self._call_reply(task)
            if reply is None:
                return Response(status_code=204)
            return self._reply(reply, accept, modern)
        stream = self._stream(task, outbox, pending, disconnect)
        return StreamingResponse(stream, media_type=SSE_TYPE, headers=SSE_HEADERS)

    async def _stream(
        self,
        task: asyncio.Future[dict[str, Any] | None],
        outbox: asyncio.Queue[dict[str, Any]],
        pending: list[dict[str, Any]],
        disconnect: asyncio.Future[None],
    ) -> AsyncIterator[bytes]:
        """SSE events: queued notifications as they come, then the response; the stream
        closing early (client gone) cancels the call."""
        try:
            for notification in pending:
                yield _sse_event(notification)
            while not task.done():
                getter = asyncio.ensure_future(outbox.get())
                waiting: set[asyncio.Future[Any]] = {task, getter, disconnect}
                await asyncio.wait(waiting, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield _sse_event(getter.result())
                else:
                    getter.cancel()
                if disconnect.done() and not task.done():
                    return
            while not outbox.empty():
                yield _sse_event(outbox.get_nowait())
            reply = self._call_reply(task)
            if reply is not None:
                yield _sse_event(reply)
        finally:
            disconnect.cancel()
            if not task.done():
                task.cancel()

    @staticmethod
    def _call_reply(task: asyncio.Future[dict[str, Any] | None]) -> dict[str, Any] | None:
        """The response of a finished call task (None: cancelled by the client)."""
        if task.cancelled():
            return None
        exc = task.exception()
        if exc is not None:
            log.error("a call failed unexpectedly", exc_info=exc)
            return None
        return task.result()

    def _reply(
        self,
        reply: dict[str, Any] | None,
        accept: _Accept,
        modern: bool,
        headers: dict[str, str] | None = None,
    ) -> Response:
        if reply is None:
            return Response(status_code=202, headers=headers)
        status = 200
        error = reply.get("error")
        if error is not None:
            if modern:
                status = MODERN_ERROR_STATUS.get(error.get("code"), 200)
            elif reply.get("id") is None:
                status = 400  # could not even read the request
        if not accept.json:
            return Response(
                _sse_event(reply), status, {**SSE_HEADERS, **(headers or {})}, media_type=SSE_TYPE
            )
        return Response(jsonrpc.dumps(reply), status, headers, media_type=JSON_TYPE)

    # -- DELETE -----------------------------------------------------------------------

    def _delete(self, request: Request) -> Response:
        """End a legacy session (its running calls are cancelled)."""
        session_id = _headers(request).get(SESSION_HEADER)
        if session_id is None:
            return _error(
                400, jsonrpc.INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header"
            )
        if not self.sessions.end(session_id.strip()):
            return _error(404, jsonrpc.INVALID_REQUEST, "Session not found")
        return Response(status_code=204)


def _asker(session: Session, send: Callable[[dict[str, Any]], None]) -> Ask:
    """Requests from a handler to the client of a legacy session: sent on the call's SSE
    stream, answered by the client in a later POST (routed by id in `_legacy`)."""

    async def ask(method: str, params: dict[str, Any]) -> Any:
        request_id = session.next_request_id()
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        session.waiting[request_id] = answer
        try:
            send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            reply = await answer
        finally:
            session.waiting.pop(request_id, None)
        error = reply.get("error")
        if error is not None:
            reason = error.get("message") if isinstance(error, dict) else None
            raise ToolError(f"The client refused {method}: {str(reason)[:300]}")
        return reply.get("result")

    return ask


async def _disconnected(receive: Receive) -> None:
    """Return once the client has closed the connection."""
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
