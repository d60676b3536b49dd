"""Streamable HTTP as a plain ASGI application, for any ASGI server (``mcptools serve --http`` uses uvicorn).

One endpoint (``/mcp`` by default) serves both protocol generations:

* 2026-07-28: every POST stands alone. The headers must agree with the body (``MCP-Protocol-Version`` with
  ``_meta``, ``Mcp-Method`` with the method, ``Mcp-Name`` with the tool, ``Mcp-Param-*`` with arguments a tool
  marks ``x-mcp-header``; an encoded ``=?base64?...?=`` value is decoded first, ``Mcp-Name`` included), nothing
  is remembered between requests (an ``Mcp-Session-Id`` on such a request is ignored), and so any number of
  worker processes can serve one client behind a load balancer.
* 2025-03-26 to 2025-11-25: ``initialize`` opens a session (``Mcp-Session-Id``); later POSTs answer on an SSE
  stream that also carries the server's requests to the client; GET resumes a stream (``Last-Event-ID``) or
  opens a standalone one; DELETE ends the session. A 2025-03-26 session also takes JSON-RPC batches (a body
  holding an array): 202 when the batch owes no response, else the responses as SSE events or one JSON array.
  Every other revision removed batching and answers an array with 400 and a single -32600 error.

Bodies are decoded by ``_protocol.wire``: invalid JSON, NaN/Infinity and nesting past 512 levels are 400 with
-32700; nothing a client sends reaches the application as a ``RecursionError``.

Every request first passes the DNS-rebinding guard: ``Host`` and ``Origin`` must name an allowed host
(localhost by default), otherwise a web page could reach a local server through a hostile DNS name.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Hashable, Iterable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Final, final

from .._call import Call, Mode
from .._errors import InsufficientScope
from .._jsonrpc import INVALID_REQUEST, PARSE_ERROR, SERVER_BUSY, SESSION_NOT_FOUND, classify, echo_id
from .._protocol.engine import Engine
from .._protocol.listen import LISTEN_METHOD
from .._protocol.request_rules import http_status_for, names_revision, refuse_batch
from .._protocol.revisions import SUPPORTED, UNSUPPORTED_PROTOCOL_VERSION, supported_versions
from .._protocol.session import QUESTION_TIMEOUT, Session
from .._protocol.wire import ParseFailure, decode_message, encode_message
from ..auth import AuthSettings, Principal
from .asgi_answers import (
    RECONNECT_TIMEOUT,
    EventSink,
    answer_at_once,
    answer_in_session,
    answer_stateless,
    can_stream,
    follow,
    supports_priming,
)
from .asgi_auth import HTTPAuth
from .asgi_headers import ParamHeaders, check_stateless_headers
from .asgi_io import (
    DEFAULT_MAX_BODY,
    SSE_HEADERS,
    Answer,
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
    until_expiry,
)
from .asgi_lifespan import host_lifespan, serve_lifespan
from .asgi_sessions import (
    MAX_GET_STREAMS,
    MAX_SESSIONS,
    MAX_SESSIONS_PER_CLIENT,
    HTTPSession,
    SessionTable,
    owner_of,
)
from .cutoff import Cutoff, cut_error, owed_by
from .http_rules import DEFAULT_ALLOWED_HOSTS, HostRules, accepts, check_app_settings, is_json_content_type
from .streams import parse_event_id, sse_event

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["DEFAULT_ALLOWED_HOSTS", "StreamableHTTPApp"]

logger = logging.getLogger("mcptools.http")

# subscriptions/listen streams one client (a token's owner, else an address) may hold open at once.
MAX_LISTEN_STREAMS: Final = 16


@final
class StreamableHTTPApp:
    """The ASGI application serving one registry at ``path``."""

    __slots__ = (
        "_cutoff",
        "_header_params",
        "_listening",
        "_registry",
        "_sessions",
        "_stopping",
        "auth",
        "engine",
        "host_rules",
        "json_response",
        "max_body_bytes",
        "max_sessions",
        "max_sessions_per_client",
        "path",
        "retry_ms",
        "session_idle_seconds",
        "stateless_only",
        "timeout_question",
        "timeout_reconnect",
    )

    def __init__(
        self,
        registry: Served,
        *,
        path: str = "/mcp",
        allowed_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] | None = None,
        max_body_bytes: int = DEFAULT_MAX_BODY,
        stateless_only: bool = False,
        retry_ms: int = 1000,
        max_sessions: int = MAX_SESSIONS,
        max_sessions_per_client: int = MAX_SESSIONS_PER_CLIENT,
        session_idle_seconds: float = 3600.0,
        timeout_question: float = QUESTION_TIMEOUT,
        timeout_reconnect: float = RECONNECT_TIMEOUT,
        engine: Engine | None = None,
        auth: AuthSettings | None = None,
        json_response: bool = False,
    ) -> None:
        check_app_settings(
            "StreamableHTTPApp",
            {"path": path},
            max_body_bytes=max_body_bytes,
            retry_ms=retry_ms,
            max_sessions=max_sessions,
            max_sessions_per_client=max_sessions_per_client,
            session_idle_seconds=session_idle_seconds,
            timeout_question=timeout_question,
            timeout_reconnect=timeout_reconnect,
        )
        self.engine = engine if engine is not None else registry.engine
        # Every POST answered with one JSON body (the peers' json_response=True): no event stream, so a tool's
        # progress and logs are not sent, and it cannot ask the client anything.
        self.json_response = json_response
        self.path = path
        hosts = tuple(allowed_hosts) if allowed_hosts is not None else DEFAULT_ALLOWED_HOSTS
        # ``*`` switches the guard off, for servers behind a proxy that checks hosts itself.
        self.host_rules = HostRules(hosts, allowed_origins)
        self.max_body_bytes = max_body_bytes
        self.stateless_only = stateless_only
        self.retry_ms = retry_ms
        # Set when the server starts stopping: long-lived GET streams end then (see ``stopping``).
        self._stopping = False
        self._cutoff = Cutoff()
        self.max_sessions = max_sessions
        self.max_sessions_per_client = max_sessions_per_client
        self.session_idle_seconds = session_idle_seconds
        # A question to the client waits at most timeout_question seconds for its answer, and no more than
        # timeout_reconnect once the stream that carried it has nobody reading it.
        self.timeout_question = timeout_question
        self.timeout_reconnect = timeout_reconnect
        self._sessions = SessionTable()
        self._listening: dict[Hashable, int] = {}
        self.auth = HTTPAuth(auth, self.engine.registry, path) if auth is not None else None
        self._registry = registry
        self._header_params = ParamHeaders()

    # -- ASGI entry ------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: ASGISend) -> None:
        if scope["type"] == "lifespan":
            await serve_lifespan(self._registry, receive, send, self.close_sessions)
            return
        if scope["type"] != "http":
            return
        headers = Headers(scope.get("headers") or [])
        try:
            path = local_path(scope)
            method = scope.get("method", "GET")
            # The metadata lives at the host's root (RFC 9728), whether this app is there or the outer app
            # mounts it at the well-known prefix too: what counts is the request's whole path.
            if self.auth is not None and self.auth.is_metadata_path((scope.get("root_path") or "") + path):
                self._check_host(headers, scope)
                await self.auth.metadata(scope, headers, method, send)
                return
            if path != self.path and not (path in ("", "/") and scope.get("root_path")):
                raise Reject(404, INVALID_REQUEST, f"Not Found: the MCP endpoint is {self.path}")
            self._check_host(headers, scope)
            principal = await self.auth.authorize(scope, headers) if self.auth is not None else None
            if method == "POST":
                await self._post(scope, headers, principal, receive, send)
            elif method == "GET":
                await self._get(headers, principal, receive, send)
            elif method == "DELETE":
                await self._delete(headers, principal, send)
            else:
                raise Reject(405, INVALID_REQUEST, f"Method Not Allowed: {method}")
        except Reject as reject:
            extra = [(b"allow", b"GET, POST, DELETE")] if reject.status == 405 else []
            await send_json(send, reject.status, reject.body, extra + reject.headers)

    def stopping(self, within: float | None = None) -> None:
        """The server is stopping (uvicorn's graceful shutdown, before it waits for open responses; a host app
        mounting this one calls it, on its event loop, as its own shutdown begins): open ``subscriptions/listen``
        streams end now, with their graceful final result, and the 2025 sessions stop: their GET streams end,
        questions waiting for a client fail (the tool sees ``ClientRequestError``), and their ids are no longer
        served. Calls in flight may finish; ``within``: the seconds the host gives them (uvicorn's
        ``timeout_graceful_shutdown``, set by ``mcptools serve --timeout-shutdown``), and shortly before those
        are up, the calls still running are cancelled and each answered with a JSON-RPC error, so no response is
        cut off mid-stream."""
        self._stopping = True
        self._cutoff.begin(within)
        self.engine.listeners.close()
        self._sessions.stop_all()

    def close_sessions(self) -> None:
        """End every open session (their streams close, calls still running are cancelled). Called on lifespan
        shutdown; an app mounted where lifespan events do not reach it needs no call: idle sessions expire on
        their own."""
        self._sessions.close_all()
        # The server is done: a later start of this app (another server run in this process) starts afresh.
        self._stopping = False
        self._cutoff.reset()

    def lifespan(self, host: object = None) -> AbstractAsyncContextManager[None]:
        """fastmcp's ``FastAPI(lifespan=mcp_app.lifespan)``, for an app mounted in another: the registry's
        lifespan around the host's serving, and this app's sessions closed on the way out."""
        return host_lifespan(self._registry, lambda: (self,))

    # -- guards ----------------------------------------------------------------------------------------

    def _check_host(self, headers: Headers, scope: Scope) -> None:
        check_host(self.host_rules, headers, scope)

    async def _read_body(self, headers: Headers, receive: Receive) -> bytes:
        return await read_body(headers, receive, self.max_body_bytes)

    def _session_for(self, headers: Headers, principal: Principal | None, request_id: Any = None) -> HTTPSession | None:
        """The session the request names, if it belongs to this caller and is still alive; 404 otherwise (another
        caller's session is answered exactly as an unknown one)."""
        session_id = headers.get("mcp-session-id")
        if session_id is None:
            return None
        entry = self._sessions.find(session_id.strip(), owner_of(principal), self.session_idle_seconds)
        if entry is None:
            raise Reject(404, SESSION_NOT_FOUND, "Not Found: unknown or terminated session", request_id)
        return entry

    def _new_session(self, scope: Scope, principal: Principal | None, request_id: Any) -> HTTPSession:
        """O(1) amortised admission, at most ``max_sessions_per_client`` for one client (see ``asgi_sessions``)."""
        owner = owner_of(principal)
        peer = peer_of(scope)
        admitted = self._sessions.admit(
            owner,
            owner if owner is not None else peer,
            self.max_sessions,
            self.max_sessions_per_client,
            self.session_idle_seconds,
        )
        if admitted == "client":
            raise Reject(
                429, SERVER_BUSY, "Too Many Requests: this client's sessions all have requests in flight", request_id
            )
        if admitted == "full":
            raise Reject(503, SERVER_BUSY, "Service Unavailable: too many sessions with requests in flight", request_id)
        assert type(admitted) is HTTPSession
        admitted.session.peer = peer
        admitted.session.question_timeout = self.timeout_question
        return admitted

    # -- POST ------------------------------------------------------------------------------------------

    async def _post(
        self, scope: Scope, headers: Headers, principal: Principal | None, receive: Receive, send: ASGISend
    ) -> None:
        if not is_json_content_type(headers.get("content-type")):
            raise Reject(415, INVALID_REQUEST, "Unsupported Media Type: the body must be application/json (UTF-8)")
        accept = headers.get("accept")
        json_ok = accepts(accept, "application/json")
        sse_ok = accepts(accept, "text/event-stream") and not (self.json_response and json_ok)
        if not (sse_ok or json_ok):
            raise Reject(406, INVALID_REQUEST, "Not Acceptable: accept application/json and text/event-stream")
        body = await self._read_body(headers, receive)
        try:
            message = decode_message(body)
        except ParseFailure as failure:
            raise Reject(400, PARSE_ERROR, str(failure)) from None
        if type(message) is list:
            await self._post_batch(headers, message, sse_ok, principal, receive, send)
            return
        kind = classify(message)
        if kind == "invalid":
            raise Reject(400, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message", echo_id(message))
        params = message.get("params") if type(message.get("params")) is dict else {}
        meta = params.get("_meta")
        # A request naming its revision in _meta is a 2026-07-28 one, which has no sessions: its transport says
        # to ignore an Mcp-Session-Id rather than route (and 404) on it.
        named = names_revision(meta)
        entry = None if named else self._session_for(headers, principal, echo_id(message))
        if entry is not None:
            self._check_legacy_version(headers, message)
            await self._post_in_session(entry, message, kind, sse_ok, principal, scope, headers, receive, send)
        elif kind == "request" and message["method"] == "initialize" and not named:
            await self._initialize(scope, headers, message, params, principal, send)
        elif kind != "request":
            await send_empty(send, 202)  # without a session a notification or a response changes nothing
        else:
            await self._post_stateless(scope, headers, message, params, sse_ok, principal, receive, send)

    async def _initialize(
        self,
        scope: Scope,
        headers: Headers,
        message: dict[str, Any],
        params: dict[str, Any],
        principal: Principal | None,
        send: ASGISend,
    ) -> None:
        if self.stateless_only:
            # A legacy client has no way forward from here: the error is all it can show its user, so it names
            # the versions this server does speak (as the 2026-07-28 versioning page asks).
            raise self._no_legacy(message, params)
        self._check_legacy_version(headers, message)
        entry = self._new_session(scope, principal, message["id"])
        response = await self.engine.handle(message, entry.session)
        await send_json(send, 200, response, [(b"mcp-session-id", entry.session.id.encode("ascii"))])

    def _routed(self, scope: Scope, headers: Headers, routed: Call | dict[str, Any]) -> Call | dict[str, Any]:
        """A routed request, refused with 403 ``insufficient_scope`` when the caller lacks its tool's scopes."""
        if type(routed) is Call and isinstance(routed.refusal, InsufficientScope):
            assert self.auth is not None
            raise self.auth.insufficient(scope, headers, routed.refusal.scopes, routed.request_id)
        return routed

    async def _post_stateless(
        self,
        scope: Scope,
        headers: Headers,
        message: dict[str, Any],
        params: dict[str, Any],
        sse_ok: bool,
        principal: Principal | None,
        receive: Receive,
        send: ASGISend,
    ) -> None:
        check_stateless_headers(headers, message, params)
        if not sse_ok and message["method"] == "subscriptions/listen":
            # Its result comes only when the stream ends: as one JSON body it would wait for the server to stop.
            raise Reject(
                406,
                INVALID_REQUEST,
                "Not Acceptable: subscriptions/listen answers with an event stream; accept text/event-stream",
                message["id"],
            )
        mode = Mode.STATELESS_ONLY if self.stateless_only else Mode.STATELESS
        routed = self._routed(scope, headers, self.engine.route(message, Session(peer=peer_of(scope)), mode, principal))
        if type(routed) is Call and routed.method == "tools/call":
            self._header_params.check(headers, routed)
        if not can_stream(routed):
            work = self.engine.serve(message, routed)
            response = await self._cutoff.run(work, lambda: cut_error(message["id"]))
            await send_json(send, http_status_for(response), response)
            return
        assert type(routed) is Call
        if routed.method == LISTEN_METHOD:
            await self._listen(scope, message, routed, principal, receive, send)
            return
        await answer_stateless(self.engine, message, routed, sse_ok, send, receive, self._cutoff)

    async def _listen(
        self,
        scope: Scope,
        message: dict[str, Any],
        routed: Call,
        principal: Principal | None,
        receive: Receive,
        send: ASGISend,
    ) -> None:
        """A ``subscriptions/listen`` stream: at most ``MAX_LISTEN_STREAMS`` open per client, and ended (with its
        graceful result) when the token that opened it expires."""
        owner = owner_of(principal)
        client: Hashable = owner if owner is not None else peer_of(scope)
        open_now = self._listening.get(client, 0)
        if open_now >= MAX_LISTEN_STREAMS:
            raise Reject(
                429,
                SERVER_BUSY,
                f"Too Many Requests: this client has {open_now} subscriptions/listen streams open",
                message["id"],
            )
        self._listening[client] = open_now + 1
        expiry = _end_at_expiry(principal, routed.session)
        try:
            await answer_stateless(self.engine, message, routed, True, send, receive, self._cutoff)
        finally:
            if expiry is not None:
                expiry.cancel()
            left = self._listening[client] - 1
            if left:
                self._listening[client] = left
            else:
                del self._listening[client]

    async def _post_in_session(
        self,
        entry: HTTPSession,
        message: dict[str, Any],
        kind: str,
        sse_ok: bool,
        principal: Principal | None,
        scope: Scope,
        headers: Headers,
        receive: Receive,
        send: ASGISend,
    ) -> None:
        engine = self.engine
        if kind != "request":
            await engine.handle(message, entry.session, principal=principal)
            await send_empty(send, 202)
            return
        routed = self._routed(scope, headers, engine.route(message, entry.session, Mode.LENIENT, principal))
        if not can_stream(routed):
            await answer_at_once(engine, entry, message, routed, sse_ok, send, self.retry_ms, self._cutoff)
            return

        async def answer(sink: EventSink) -> Answer:
            response = await engine.serve(message, routed, sink)
            if response is not None and sse_ok:
                await sink.send(response)
            return response

        await answer_in_session(
            entry, answer, sse_ok, send, receive, self.retry_ms, self.timeout_reconnect, self._cutoff, message["id"]
        )

    async def _post_batch(
        self,
        headers: Headers,
        messages: list[Any],
        sse_ok: bool,
        principal: Principal | None,
        receive: Receive,
        send: ASGISend,
    ) -> None:
        entry = self._session_for(headers, principal)
        refusal = refuse_batch(messages, entry.session if entry is not None else Session())
        if refusal is not None:
            await send_json(send, 400, refusal)
            return
        assert entry is not None
        self._check_legacy_version(headers, None)
        engine = self.engine
        if not any(classify(m) in ("request", "invalid") for m in messages):
            # Only notifications and responses: nothing is owed, and 2025-03-26 says 202 with no body.
            await engine.handle_batch(messages, entry.session, principal=principal)
            await send_empty(send, 202)
            return

        async def answer(sink: EventSink) -> Answer:
            # Each response goes to the stream as it is made (in JSON mode nobody reads it there, but a shutdown
            # cut then knows which members finished: those are answered, not reported as cut).
            return await engine.handle_batch(messages, entry.session, sink, deliver=sink, principal=principal)

        await answer_in_session(
            entry, answer, sse_ok, send, receive, self.retry_ms, self.timeout_reconnect, self._cutoff, owed_by(messages)
        )

    @staticmethod
    def _no_legacy(message: dict[str, Any], params: dict[str, Any]) -> Reject:
        supported = supported_versions(modern_only=True)
        requested = params.get("protocolVersion")
        data: dict[str, Any] = {"supported": supported}
        if type(requested) is str:
            data["requested"] = requested
        return Reject(
            400,
            UNSUPPORTED_PROTOCOL_VERSION,
            f"Unsupported protocol version: this server speaks only {', '.join(supported)}, without initialize "
            f"(every request names its version in _meta); it does not open {requested or 'legacy'} sessions",
            message["id"],
            data,
        )

    def _check_legacy_version(self, headers: Headers, message: object) -> None:
        version = headers.get("mcp-protocol-version")
        if version is not None and version.strip() not in SUPPORTED:
            raise Reject(
                400,
                INVALID_REQUEST,
                f"Bad Request: unsupported MCP-Protocol-Version {version.strip()}",
                echo_id(message),
            )

    # -- GET and DELETE --------------------------------------------------------------------------------

    async def _get(self, headers: Headers, principal: Principal | None, receive: Receive, send: ASGISend) -> None:
        """A 2025 session's GET: resume one of its streams (``Last-Event-ID``) or open its standalone stream. At
        most ``MAX_GET_STREAMS`` at once per session; each ends when the token that opened it expires."""
        if self.stateless_only or headers.get("mcp-session-id") is None:
            raise Reject(405, INVALID_REQUEST, "Method Not Allowed: GET needs an Mcp-Session-Id")
        entry = self._session_for(headers, principal)
        assert entry is not None
        if headers.get("accept") is None or not accepts(headers.get("accept"), "text/event-stream"):
            raise Reject(406, INVALID_REQUEST, "Not Acceptable: GET serves text/event-stream only")
        last = headers.get("last-event-id")
        parsed = parse_event_id(last) if last is not None else None
        resumed = entry.streams.get(parsed[0]) if parsed is not None else None
        if resumed is None and entry.standalone:
            raise Reject(409, INVALID_REQUEST, "Conflict: this session already has a GET stream open")
        if entry.gets >= MAX_GET_STREAMS:
            raise Reject(409, INVALID_REQUEST, f"Conflict: this session already has {entry.gets} GET streams open")
        if resumed is not None and parsed is not None:
            if resumed.readers:
                resumed.cut()  # the client came back: whoever still follows is a connection it left
            work = follow(entry, resumed, send, parsed[1], resumed.epoch)
        else:
            entry.standalone = True
            work = self._standalone(entry, send)
        entry.gets += 1
        try:
            with entry.attach():
                await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
                with contextlib.suppress(Disconnected):
                    await until_disconnect(until_expiry(work, principal, send), receive)
        finally:
            entry.gets -= 1
            if resumed is None:
                entry.standalone = False

    async def _standalone(self, entry: HTTPSession, send: ASGISend) -> None:
        """Carry the session's server-initiated notifications on its GET stream until the session closes (or
        the server stops)."""
        if supports_priming(entry.session.protocol_version):
            priming = sse_event(None, b"", retry_ms=self.retry_ms)
            await send({"type": "http.response.body", "more_body": True, "body": priming})
        while not entry.closed.is_set() and not self._stopping:
            for message in entry.take():
                data = encode_message(message)
                if data is not None:
                    await send({"type": "http.response.body", "body": sse_event(None, data), "more_body": True})
            if entry.outbox:
                continue
            waiters = [asyncio.ensure_future(entry.outbox_changed.wait()), asyncio.ensure_future(entry.closed.wait())]
            try:
                await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiter in waiters:
                    waiter.cancel()
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _delete(self, headers: Headers, principal: Principal | None, send: ASGISend) -> None:
        if headers.get("mcp-session-id") is None:
            raise Reject(400, INVALID_REQUEST, "Bad Request: DELETE needs an Mcp-Session-Id")
        entry = self._session_for(headers, principal)
        assert entry is not None
        self._sessions.remove(entry.session.id)
        await send_empty(send, 204)


# -- small helpers ---------------------------------------------------------------------------------------


def _end_at_expiry(principal: Principal | None, session: Session) -> asyncio.TimerHandle | None:
    """Close ``session`` (a listen stream on it ends gracefully) when the token that opened it expires."""
    if principal is None or principal.expires_at is None:
        return None
    delay = max(principal.expires_at - time.time(), 0.0)
    return asyncio.get_running_loop().call_later(delay, lambda: session.close(cancel_running=False))
