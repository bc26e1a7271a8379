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
  session. Sessions live in the store (see `sessions`), so any instance
  sharing it serves them.
- Modern era: `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` and
  `Mcp-Param-*` must match the body (400, -32020); an unsupported version is
  400 with -32022; a `_meta` without `protocolVersion` or
  `clientCapabilities` is 400 with -32602; an unknown method is 404 with
  -32601. No state survives the request.
- Responses: a request gets `application/json`, unless the client accepts
  only `text/event-stream`, or its call sends notifications (progress, log
  messages) before it ends: then the answer becomes a resumable SSE stream
  carrying those notifications and, last, the response (see `calls`).
  Notifications and client responses get 202. A JSON-RPC batch (array) is
  400 with -32600 (but in a 2025-03-26 session).
- GET with `Last-Event-ID` resumes a stream after that event (404 for a
  stream this client does not own, or that is gone); any other GET answers
  405: this server sends no server-initiated stream.
- A handler of a legacy session may send requests to the client
  (`sampling/createMessage`, `elicitation/create`) on its call's SSE stream;
  the client's response arrives in a later POST and is routed back by id.
- A client that disconnects before its call answered anything cancels the call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response, StreamingResponse

from toolgen.serve import jsonrpc
from toolgen.serve.calls import PendingCall
from toolgen.serve.connection import Connection
from toolgen.serve.context import DEFAULT_LEGACY_LOG_LEVEL
from toolgen.serve.engine import ADVERTISED_VERSIONS, PROTOCOL_VERSION_META, Engine
from toolgen.serve.http import security
from toolgen.serve.http.calls import STREAM_WAIT, resume, run_call
from toolgen.serve.http.guard import BodyBudget, BodyDeadlines, Held
from toolgen.serve.http.headers import (
    HEADER_MISMATCH,
    PROTOCOL_VERSION_HEADER,
    HeaderMismatchError,
    ParamHeaders,
    check_standard_headers,
)
from toolgen.serve.http.responses import (
    JSON_TYPE,
    SSE_HEADERS,
    SSE_TYPE,
    Accept,
    accepts,
    answer,
    error,
    headers_of,
)
from toolgen.serve.http.security import SecurityPolicy
from toolgen.serve.http.sessions import Session, Sessions, SessionsFull
from toolgen.spec.protocol import LEGACY_REVISIONS, SUPPORTED_REVISIONS

log = logging.getLogger("toolgen.serve.http")

SESSION_HEADER: Final = "mcp-session-id"
LAST_EVENT_HEADER: Final = "last-event-id"
CLIENT_CAPABILITIES_META: Final = "io.modelcontextprotocol/clientCapabilities"
HOST_CACHE_SIZE: Final = 64


class McpEndpoint:
    """The `/mcp` endpoint: `await endpoint.handle(request)` answers any HTTP method."""

    def __init__(
        self,
        engine: Engine,
        policy: SecurityPolicy | None = None,
        sessions: Sessions | None = None,
    ) -> None:
        self.engine = engine
        self.policy = policy or SecurityPolicy()
        self.store = engine.task_store.store
        self.sessions = sessions if sessions is not None else Sessions(self.store)
        self.budget = BodyBudget(self.policy.max_buffered)
        self.deadlines = BodyDeadlines(self.policy.body_timeout)
        self.param_headers = ParamHeaders(engine.tools.toolset)
        self._hosts: dict[str | None, bool] = {}
        """The `Host` rule's answer by header value (clients send the same few)."""

    # -- entry ------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        refused = self._refuse(request)
        if refused is not None:
            return refused
        try:
            if request.method == "POST":
                with self.budget.hold() as held:
                    return await self._post(request, held)
            if request.method == "DELETE":
                return await self._delete(request)
            if request.method == "GET" and LAST_EVENT_HEADER in headers_of(request):
                return await self._resume(request)
        except ClientDisconnect:  # gone mid-body: no one to answer, and no fault of ours
            log.debug("client left during %s %s", request.method, request.url.path)
            return error(400, jsonrpc.INVALID_REQUEST, "Client disconnected")
        except Exception:  # never a traceback on the wire
            log.exception("internal error while answering %s %s", request.method, request.url.path)
            return error(500, jsonrpc.INTERNAL_ERROR, "Internal error")
        return error(
            405,
            jsonrpc.INVALID_REQUEST,
            "Method not allowed: this server sends no server-initiated stream; POST messages",
            headers={"Allow": "POST, DELETE"},
        )

    def _refuse(self, request: Request) -> Response | None:
        """The security rules, in order: Host, Origin (403), then the bearer token (401)."""
        headers = headers_of(request)
        if not self._host_allowed(headers.get("host")):
            return error(403, jsonrpc.INVALID_REQUEST, "Forbidden: Host not allowed")
        if not security.origin_allowed(headers.get("origin"), self.policy):
            return error(403, jsonrpc.INVALID_REQUEST, "Forbidden: Origin not allowed")
        if not security.token_accepted(headers.get("authorization"), self.policy):
            return error(
                401,
                jsonrpc.INVALID_REQUEST,
                "Unauthorized: send Authorization: Bearer <token>",
                headers={"WWW-Authenticate": 'Bearer realm="mcp"'},
            )
        return None

    def _host_allowed(self, host: str | None) -> bool:
        allowed = self._hosts.get(host)
        if allowed is None:
            allowed = security.host_allowed(host, self.policy)
            if len(self._hosts) < HOST_CACHE_SIZE:
                self._hosts[host] = allowed
        return allowed

    # -- POST -------------------------------------------------------------------------

    async def _post(self, request: Request, held: Held) -> Response:
        headers = headers_of(request)
        content_type = headers.get("content-type", "")
        if content_type != JSON_TYPE and content_type.split(";", 1)[0].strip().lower() != JSON_TYPE:
            return error(
                415, jsonrpc.INVALID_REQUEST, "Unsupported Media Type: send application/json"
            )
        accept = accepts(headers.get("accept"))
        if not (accept.json or accept.sse):
            return error(
                406,
                jsonrpc.INVALID_REQUEST,
                "Not Acceptable: accept application/json and text/event-stream",
            )
        body = await self._read_body(request, held)
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
            if isinstance(message, list):
                return await self._batch(request, message, accept)
            return error(400, jsonrpc.INVALID_REQUEST, "A message must be a JSON-RPC object")
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

    async def _read_body(self, request: Request, held: Held) -> bytes | Response:
        """The body, within the size limit, the time limit and the server-wide budget.
        A client that disconnects first raises `ClientDisconnect` (as Starlette's
        `Request.stream` does)."""
        limit = self.policy.max_body
        declared = headers_of(request).get("content-length")
        if declared is not None:
            if not declared.strip().isdigit():
                return error(400, jsonrpc.INVALID_REQUEST, "Bad Content-Length")
            if int(declared) > limit:
                return _too_large(limit)
        chunks: list[bytes] = []
        size = 0
        receive = request.receive
        task = asyncio.current_task()
        assert task is not None
        deadlines = self.deadlines
        deadlines.start(task)
        try:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    raise ClientDisconnect()
                chunk = message.get("body", b"")
                if chunk:
                    if size + len(chunk) > limit:
                        return _too_large(limit)
                    if not held.take(len(chunk)):
                        return error(
                            503,
                            jsonrpc.INVALID_REQUEST,
                            "Service Unavailable: too many request bodies in flight; retry",
                            headers={"Retry-After": "1"},
                        )
                    chunks.append(chunk)
                    size += len(chunk)
                if not message.get("more_body", False):
                    break
        except asyncio.CancelledError:
            if not deadlines.expired(task):
                raise
            return error(
                408,
                jsonrpc.INVALID_REQUEST,
                f"Request Timeout: the body did not arrive within {self.policy.body_timeout:g} s",
                headers={"Connection": "close"},
            )
        finally:
            deadlines.stop(task)
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)

    # -- eras -------------------------------------------------------------------------

    async def _initialize(
        self, request: Request, message: dict[str, Any], accept: Accept
    ) -> Response:
        """`initialize` (legacy era): a successful handshake creates the session."""
        connection = Connection()
        reply = await self.engine.reply(message, connection)
        assert not isinstance(reply, PendingCall)
        headers: dict[str, str] = {}
        if reply is not None and "result" in reply:
            try:
                headers["Mcp-Session-Id"] = await self.sessions.create(connection)
            except SessionsFull:
                return error(
                    503,
                    jsonrpc.INVALID_REQUEST,
                    "Service Unavailable: too many sessions in use; retry later",
                    message.get("id"),
                    headers={"Retry-After": "5"},
                )
        return answer(reply, accept, modern=False, headers=headers)

    async def _legacy(self, request: Request, message: dict[str, Any], accept: Accept) -> Response:
        request_id = message.get("id")
        session_id = headers_of(request).get(SESSION_HEADER)
        if session_id is None:
            return error(
                400,
                jsonrpc.INVALID_REQUEST,
                "Bad Request: missing Mcp-Session-Id header (send initialize first, or name "
                f"the protocol version in params._meta[{PROTOCOL_VERSION_META!r}])",
                request_id,
            )
        session = await self.sessions.get(session_id.strip())
        if session is None:
            return _session_not_found(request_id)
        try:
            method = message.get("method")
            if method is None and ("result" in message or "error" in message):
                await self.sessions.route_answer(session, message)
                return Response(status_code=202)
            if method == "notifications/cancelled" and "id" not in message:
                params = message.get("params")
                if type(params) is dict:
                    await self.sessions.cancel(session, params.get("requestId"))
                return Response(status_code=202)
            connection = session.connection
            before = connection.log_level
            level = before or DEFAULT_LEGACY_LOG_LEVEL
            response = await self._answer(
                request, message, connection, accept, modern=False, level=level, session=session
            )
            if connection.log_level != before:  # logging/setLevel
                await self.sessions.save(session)
            return response
        finally:
            self.sessions.release(session)

    async def _batch(self, request: Request, messages: list[Any], accept: Accept) -> Response:
        """A JSON-RPC batch: answered (one JSON array) only in a 2025-03-26 session."""
        session_id = headers_of(request).get(SESSION_HEADER)
        session = await self.sessions.get(session_id.strip()) if session_id is not None else None
        if session is None or not self.engine.takes_batch(messages, session.connection):
            return error(
                400,
                jsonrpc.INVALID_REQUEST,
                "JSON-RPC batches are only accepted in 2025-03-26 sessions: "
                "POST one message per request",
            )
        requests = []
        for item in messages:
            if (
                type(item) is dict
                and "method" not in item
                and ("result" in item or "error" in item)
            ):
                await self.sessions.route_answer(session, item)
            else:
                requests.append(item)
        try:
            replies = (
                await self.engine.handle_batch(requests, session.connection) if requests else None
            )
        finally:
            self.sessions.release(session)
        if replies is None:
            return Response(status_code=202)
        return Response(jsonrpc.dumps(replies), 200, media_type=JSON_TYPE)

    async def _modern(self, request: Request, message: dict[str, Any], accept: Accept) -> Response:
        headers = headers_of(request)
        request_id = message.get("id")
        if "id" not in message:
            if "method" in message:  # a notification: nothing in 2026-07-28 needs an answer
                await self.engine.reply(message, Connection())
                return Response(status_code=202)
            return error(
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
            return error(
                400,
                jsonrpc.UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                request_id,
                {"supported": list(ADVERTISED_VERSIONS), "requested": version.strip()},
            )
        try:
            check_standard_headers(headers, message)
        except HeaderMismatchError as exc:
            return error(400, HEADER_MISMATCH, str(exc), request_id)
        if (
            type(meta) is not dict
            or PROTOCOL_VERSION_META not in meta
            or type(meta.get(CLIENT_CAPABILITIES_META)) is not dict
        ):
            return error(
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
                return error(400, HEADER_MISMATCH, str(exc), request_id)
        return await self._answer(request, message, Connection(), accept, modern=True, level=None)

    # -- answering --------------------------------------------------------------------

    async def _answer(
        self,
        request: Request,
        message: dict[str, Any],
        connection: Connection,
        accept: Accept,
        *,
        modern: bool,
        level: str | None,
        session: Session | None = None,
    ) -> Response:
        """Run one message through the engine and shape the HTTP response."""
        if message.get("method") == "tools/call":
            return await run_call(
                self.engine,
                request,
                message,
                connection,
                accept,
                modern=modern,
                level=level,
                session=session,
            )
        reply = await self.engine.reply(message, connection)
        assert not isinstance(reply, PendingCall)  # only tools/call runs handlers
        if reply is None:
            return Response(status_code=202)
        return answer(reply, accept, modern)

    # -- DELETE, GET -----------------------------------------------------------------

    async def _delete(self, request: Request) -> Response:
        """End a legacy session (its running calls are cancelled)."""
        session_id = headers_of(request).get(SESSION_HEADER)
        if session_id is None:
            return error(400, jsonrpc.INVALID_REQUEST, "Bad Request: missing Mcp-Session-Id header")
        if not await self.sessions.end(session_id.strip()):
            return error(404, jsonrpc.INVALID_REQUEST, "Session not found")
        return Response(status_code=204)

    async def _resume(self, request: Request) -> Response:
        """GET with `Last-Event-ID`: the rest of a stream, after that event."""
        headers = headers_of(request)
        if not accepts(headers.get("accept")).sse:
            return error(406, jsonrpc.INVALID_REQUEST, "Not Acceptable: accept text/event-stream")
        session = None
        session_id = headers.get(SESSION_HEADER)
        if session_id is not None:
            session = await self.sessions.get(session_id.strip())
            if session is None:
                return _session_not_found(None)
        wait = (self.engine.calls.timeout or STREAM_WAIT) + STREAM_WAIT
        events = await resume(self.store, headers[LAST_EVENT_HEADER], session, wait)
        if session is not None:
            self.sessions.release(session)
        if events is None:
            return error(404, jsonrpc.INVALID_REQUEST, "Stream not found: it ended long ago")
        return StreamingResponse(events, media_type=SSE_TYPE, headers=SSE_HEADERS)


def _too_large(limit: int) -> Response:
    return error(413, jsonrpc.INVALID_REQUEST, f"Payload Too Large: the limit is {limit} bytes")


def _session_not_found(request_id: Any) -> Response:
    return error(
        404,
        jsonrpc.INVALID_REQUEST,
        "Session not found: it ended or never existed; send initialize to start a new one",
        request_id,
    )
