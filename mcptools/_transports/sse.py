"""The deprecated HTTP+SSE transport (revision 2024-11-05's), for clients that still connect that way.

    GET  /sse                          an event stream: first an ``endpoint`` event naming where to POST
                                       (``/messages/?session_id=...``), then every message the server sends, as
                                       ``message`` events, and a comment every 15 s so proxies keep it open
    POST /messages/?session_id=ID      one JSON-RPC message (or a batch) from the client: 202 at once, and its
                                       answer comes on the stream

One GET is one connection in ``loop.serve_connection``'s sense: ``SSEConnection`` implements ``Transport``
(``receive``: what the client POSTs; ``send``: an event on its stream), so the engine serves it exactly as it serves
stdio, and no engine code knows this transport exists. The session (``initialize``, the client's capabilities,
questions to the client) is the one ``serve_connection`` keeps for the connection; the stream's end (the client
leaving) ends it.

Every request passes the guards Streamable HTTP's do: Host and Origin first (DNS rebinding), then the bearer token
(the same ``AuthSettings``; a POST must come from the caller who opened the stream, or the session is unknown to
it; the stream ends when that token expires), the body limit, the caps on open streams (in all and per client),
and the deadline on a question to the client. Messages a client POSTs faster than they are read wait in a
bounded inbox (503 past it). Stateless deployments (several workers) cannot serve it: a POST must reach the
process that holds its stream.

``SSEApp`` serves the transport alone (to mount beside another app); ``HTTPApps`` serves it beside Streamable
HTTP on one app, which is what ``registry.run("http")`` and ``run("sse")`` serve; the lifespan runs once, through
``asgi_lifespan.serve_lifespan``, either way.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Hashable, Iterable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, final
from urllib.parse import parse_qs

from .._jsonrpc import INVALID_REQUEST, PARSE_ERROR, SERVER_BUSY, SESSION_NOT_FOUND, RequestId
from .._protocol.session import QUESTION_TIMEOUT, Session
from .._protocol.wire import ParseFailure, decode_message, encode_message
from ..auth import WELL_KNOWN, AuthSettings, Principal
from .asgi_auth import HTTPAuth
from .asgi_io import (
    DEFAULT_MAX_BODY,
    SSE_HEADERS,
    ASGISend,
    Disconnected,
    Headers,
    Receive,
    Reject,
    Scope,
    check_host,
    local_path,
    peer_of,
    read_body,
    send_empty,
    send_json,
    until_disconnect,
)
from .asgi_lifespan import host_lifespan, serve_lifespan
from .asgi_sessions import MAX_SESSIONS, MAX_SESSIONS_PER_CLIENT, owner_of
from .cutoff import Cutoff
from .http_rules import DEFAULT_ALLOWED_HOSTS, HostRules, check_app_settings, is_json_content_type
from .loop import Outgoing, serve_connection

if TYPE_CHECKING:
    from .._protocol.engine import Engine, Served
    from .asgi import StreamableHTTPApp

__all__ = ["HTTPApps", "SSEApp", "SSEConnection"]


# Messages a client may have POSTed that the connection has not read yet; past it a POST is answered 503.
_INBOX: Final = 256
_PING: Final = b": ping\n\n"


def _event(name: bytes, data: bytes) -> bytes:
    """One named SSE event (``data`` holds no newline: a path, or UTF-8 JSON from ``encode_message``)."""
    return b"event: " + name + b"\ndata: " + data + b"\n\n"


@final
class SSEConnection:
    """One client's event stream, as ``serve_connection`` drives it (``loop.Transport``)."""

    __slots__ = ("_inbox", "_lock", "_send", "client", "closed", "id", "owner", "peer", "principal")

    can_stream: Final = True

    def __init__(self, send: ASGISend, peer: str | None, principal: Principal | None) -> None:
        self.id = secrets.token_hex(16)
        self.peer = peer
        self.principal = principal
        # Who the stream belongs to (the token's issuer, subject and client id), as a Streamable HTTP session
        # does; and the client its per-client cap counts against (that owner, else the address).
        self.owner = owner_of(principal)
        self.client: Hashable = self.owner if self.owner is not None else peer
        self.closed = False
        self._send = send
        self._inbox: asyncio.Queue[Any] = asyncio.Queue()
        # One event at a time on the stream: responses, notifications and keep-alive comments come from many tasks.
        self._lock = asyncio.Lock()

    def deliver(self, message: Any) -> bool:
        """A message the client POSTed; ``False`` when the inbox is full (or the stream is over)."""
        if self.closed or self._inbox.qsize() >= _INBOX:
            return False
        self._inbox.put_nowait(message)
        return True

    def end(self) -> None:
        """No more input (the server is stopping): running calls finish and answer, then the stream ends."""
        self._inbox.put_nowait(None)

    async def receive(self) -> Any:
        message = await self._inbox.get()
        if message is None:
            self._inbox.put_nowait(None)  # the end stays the end for any later read
        return message

    async def send(self, message: Outgoing, related: RequestId | None = None) -> None:
        data = encode_message(message)
        if data is not None:
            await self.write(_event(b"message", data))

    async def write(self, chunk: bytes) -> None:
        async with self._lock:
            if not self.closed:
                await self._send({"type": "http.response.body", "body": chunk, "more_body": True})

    async def close(self) -> None:
        async with self._lock:
            if not self.closed:
                self.closed = True
                await self._send({"type": "http.response.body", "body": b"", "more_body": False})


@final
class SSEApp:
    """The deprecated HTTP+SSE transport as an ASGI app: the event stream at ``path``, the client's messages at
    ``message_path`` (both below wherever the app is mounted)."""

    __slots__ = (
        "_connections",
        "_cutoff",
        "_per_client",
        "_registry",
        "auth",
        "engine",
        "host_rules",
        "keepalive_seconds",
        "max_body_bytes",
        "max_sessions",
        "max_sessions_per_client",
        "message_path",
        "path",
        "timeout_question",
    )

    def __init__(
        self,
        registry: Served,
        *,
        path: str = "/sse",
        message_path: str = "/messages/",
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY,
        max_sessions: int = MAX_SESSIONS,
        max_sessions_per_client: int = MAX_SESSIONS_PER_CLIENT,
        timeout_question: float = QUESTION_TIMEOUT,
        keepalive_seconds: float = 15.0,
        engine: Engine | None = None,
        auth: AuthSettings | None = None,
    ) -> None:
        check_app_settings(
            "SSEApp",
            {"path": path, "message_path": message_path},
            max_body_bytes=max_body_bytes,
            max_sessions=max_sessions,
            max_sessions_per_client=max_sessions_per_client,
            timeout_question=timeout_question,
            keepalive_seconds=keepalive_seconds,
        )
        self._registry = registry
        self.engine = engine if engine is not None else registry.engine
        self.path = path
        self.message_path = message_path
        self.host_rules = HostRules(
            tuple(allowed_hosts) if allowed_hosts is not None else DEFAULT_ALLOWED_HOSTS, allowed_origins
        )
        self.max_body_bytes = max_body_bytes
        self.max_sessions = max_sessions
        self.max_sessions_per_client = max_sessions_per_client
        self.timeout_question = timeout_question
        self.keepalive_seconds = keepalive_seconds
        self.auth = HTTPAuth(auth, self.engine.registry, path) if auth is not None else None
        self._connections: dict[str, SSEConnection] = {}
        self._per_client: dict[Hashable, int] = {}
        self._cutoff = Cutoff()

    def owns(self, scope: Scope) -> bool:
        """Whether a request is this transport's (its two paths, or its resource's metadata)."""
        path = local_path(scope)
        if path in (self.path, self.message_path, self.message_path.rstrip("/")):
            return True
        return self.auth is not None and (scope.get("root_path") or "") + path == WELL_KNOWN + self.path

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(self._registry, receive, send, self.close_sessions)
            return
        if scope["type"] != "http":
            return
        headers = Headers(scope.get("headers") or [])
        method = scope.get("method", "GET")
        try:
            path = local_path(scope)
            check_host(self.host_rules, headers, scope)
            if self.auth is not None and self.auth.is_metadata_path((scope.get("root_path") or "") + path):
                await self.auth.metadata(scope, headers, method, send)
                return
            if path == self.path:
                allowed = b"GET"
            elif path in (self.message_path, self.message_path.rstrip("/")):
                allowed = b"POST"
            else:
                raise Reject(404, INVALID_REQUEST, f"Not Found: the event stream is at {self.path}")
            if method.encode() != allowed:
                raise Reject(405, INVALID_REQUEST, f"Method Not Allowed: {method}", headers=[(b"allow", allowed)])
            principal = await self.auth.authorize(scope, headers) if self.auth is not None else None
            if method == "GET":
                await self._stream(scope, principal, receive, send)
            else:
                await self._message(scope, headers, principal, receive, send)
        except Reject as reject:
            await send_json(send, reject.status, reject.body, reject.headers)

    def stopping(self, within: float | None = None) -> None:
        """The server is stopping: every stream's input ends, its running calls answer, and it closes (instead of
        holding uvicorn's graceful shutdown until its client leaves). ``within``: the seconds the host gives them
        (see ``StreamableHTTPApp.stopping``); shortly before, calls still running are answered with an error."""
        self._cutoff.begin(within)
        for connection in list(self._connections.values()):
            connection.end()

    def close_sessions(self) -> None:
        """On lifespan shutdown: as ``stopping``; a later start of this app then starts afresh."""
        self.stopping()
        self._cutoff.reset()

    def lifespan(self, host: object = None) -> AbstractAsyncContextManager[None]:
        """As ``StreamableHTTPApp.lifespan``: fastmcp's ``FastAPI(lifespan=mcp_app.lifespan)``."""
        return host_lifespan(self._registry, lambda: (self,))

    async def _stream(self, scope: Scope, principal: Principal | None, receive: Receive, send: ASGISend) -> None:
        connection = SSEConnection(send, peer_of(scope), principal)
        if len(self._connections) >= self.max_sessions:
            raise Reject(503, SERVER_BUSY, "Service Unavailable: too many open event streams")
        open_now = self._per_client.get(connection.client, 0)
        if open_now >= self.max_sessions_per_client:
            raise Reject(429, SERVER_BUSY, f"Too Many Requests: this client has {open_now} event streams open")
        self._connections[connection.id] = connection
        self._per_client[connection.client] = open_now + 1
        expiry = _end_at_expiry(principal, connection)
        try:
            await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
            # Relative to the host, as the client resolves it against the stream's URL (same origin only).
            root = (scope.get("root_path") or "").rstrip("/")
            endpoint = f"{root}{self.message_path}?session_id={connection.id}"
            await connection.write(_event(b"endpoint", endpoint.encode()))
            with contextlib.suppress(Disconnected):
                await until_disconnect(self._serve(connection), receive)
        finally:
            if expiry is not None:
                expiry.cancel()
            self._connections.pop(connection.id, None)
            left = self._per_client.pop(connection.client, 1) - 1
            if left:
                self._per_client[connection.client] = left
            connection.closed = True

    async def _serve(self, connection: SSEConnection) -> None:
        pinging = asyncio.ensure_future(self._keepalive(connection))
        session = Session(peer=connection.peer, question_timeout=self.timeout_question)
        try:
            await serve_connection(
                self.engine, connection, session=session, principal=connection.principal, cutoff=self._cutoff
            )
        finally:
            pinging.cancel()

    async def _keepalive(self, connection: SSEConnection) -> None:
        while not connection.closed:
            await asyncio.sleep(self.keepalive_seconds)
            await connection.write(_PING)

    async def _message(
        self, scope: Scope, headers: Headers, principal: Principal | None, receive: Receive, send: ASGISend
    ) -> None:
        query = parse_qs((scope.get("query_string") or b"").decode("latin-1"))
        session_id = (query.get("session_id") or [""])[0]
        if not session_id:
            raise Reject(400, INVALID_REQUEST, "Bad Request: session_id is missing")
        connection = self._connections.get(session_id)
        # Another caller's session is no session to this one: the same answer as an unknown id, so a POST
        # learns nothing about streams it did not open.
        if connection is None or connection.closed or connection.owner != owner_of(principal):
            raise Reject(404, SESSION_NOT_FOUND, "Not Found: unknown or closed session")
        if not is_json_content_type(headers.get("content-type")):
            raise Reject(415, INVALID_REQUEST, "Unsupported Media Type: the body must be application/json (UTF-8)")
        body = await read_body(headers, receive, self.max_body_bytes)
        try:
            message = decode_message(body)
        except ParseFailure as failure:
            raise Reject(400, PARSE_ERROR, str(failure)) from None
        if not connection.deliver(message):
            raise Reject(503, SERVER_BUSY, "Service Unavailable: too many messages waiting on this session")
        await send_empty(send, 202)


def _end_at_expiry(principal: Principal | None, connection: SSEConnection) -> asyncio.TimerHandle | None:
    """End ``connection``'s input (its calls answer, then the stream closes) when the token that opened it
    expires, as Streamable HTTP ends a session's streams."""
    if principal is None or principal.expires_at is None:
        return None
    delay = max(principal.expires_at - time.time(), 0.0)
    return asyncio.get_running_loop().call_later(delay, connection.end)


@final
@dataclass(slots=True, eq=False)
class HTTPApps:
    """Streamable HTTP and the deprecated HTTP+SSE transport on one ASGI app: a request for the SSE transport's
    paths goes to it, every other one to Streamable HTTP; the registry's lifespan runs once around both."""

    registry: Served
    streamable: StreamableHTTPApp
    sse: SSEApp

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(self.registry, receive, send, self.close_sessions)
        elif scope["type"] == "http" and self.sse.owns(scope):
            await self.sse(scope, receive, send)
        else:
            await self.streamable(scope, receive, send)

    def stopping(self, within: float | None = None) -> None:
        self.streamable.stopping(within)
        self.sse.stopping(within)

    def close_sessions(self) -> None:
        self.streamable.close_sessions()
        self.sse.close_sessions()
