"""The protocol engine: one decoded JSON-RPC message in, its response out, for either protocol generation.

Which generation a request speaks is read from the request itself: one that names a revision in
``_meta["io.modelcontextprotocol/protocolVersion"]`` is a 2026-07-28 request and is served statelessly; an
``initialize`` (or any request on a session it opened) is a 2025 one. Transports create the ``Session`` and
the ``send`` function that puts messages on the request's stream; nothing here knows about stdio or HTTP.

The engine owns the protocol's messages (classifying, routing, sessions, revisions, tools/list, the
lifecycle); a routed ``tools/call`` goes to ``calls.ToolCaller`` (input-required rounds, Context,
cancellation), and what happens to its arguments and value (preparing, running, building the result) is
``mcptools._pipeline``'s. The
registry owns one engine (``registry.engine``) and is seen here only through ``ToolSource``.
"""

from __future__ import annotations

import json
import logging
import weakref
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, Protocol, final

from .._errors import ProtocolError
from .._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RequestId,
    classify,
    echo_id,
    error_response,
    result_response,
)
from .._middleware import RequestInfo, client_key, run_request_chain
from .._pipeline import prepare_call, run_coroutine, run_inline
from ..auth import auth_enforced, visible
from .calls import Routed, ToolCaller, ToolSource
from .listen import LISTEN_METHOD, Listeners
from .request_rules import (
    INVALID_REQUEST_TEXT,
    LEGACY_METHODS,
    LENIENT_METHODS,
    STATELESS_METHODS,
    check_request_meta,
    plain_meta,
    refuse_batch,
)
from .results import downgrade_for_oldest
from .revisions import (
    LOG_LEVELS,
    META_CLIENT_CAPABILITIES,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
    META_SERVER_INFO,
    STATELESS_VERSIONS,
    UNSUPPORTED_PROTOCOL_VERSION,
    negotiate,
    supported_versions,
)
from .session import Send, Session, discard
from .state import StateSealer

__all__ = ["Engine", "Served", "internal_error"]

logger = logging.getLogger("mcptools")

Response = dict[str, Any]
_CURSOR_PURPOSE: Final = "tools/list"
_OLDEST: Final = "2025-03-26"


class Served(Protocol):
    """What a transport needs from a registry: its name, its engine, and its lifespan to enter around serving.
    A protocol, so the transports never import the registry (``registry.run()`` imports them)."""

    @property
    def name(self) -> str: ...
    @property
    def engine(self) -> Engine: ...
    def running(self) -> AbstractAsyncContextManager[Any]: ...


def internal_error(message: object) -> Response:
    """The one answer to a bug of ours while handling ``message``: logged with its traceback, never sent."""
    logger.exception("mcptools: internal error while handling a message")
    return error_response(echo_id(message), INTERNAL_ERROR, "Internal error")


@final
class Engine:
    """Serves one registry over either protocol generation; transports call ``handle`` for every message."""

    __slots__ = (
        "__weakref__",
        "_sessions",
        "cache_scope",
        "calls",
        "list_ttl_ms",
        "listeners",
        "page_size",
        "registry",
        "sealer",
    )

    def __init__(
        self,
        registry: ToolSource,
        *,
        sealer: StateSealer | None = None,
        page_size: int = 100,
        list_ttl_ms: int = 0,
        cache_scope: str = "public",
    ) -> None:
        self.registry = registry
        self.sealer = sealer if sealer is not None else StateSealer()
        self.page_size = page_size
        # The tool list is the same for every client of this server, so shared caches may keep it; how long is
        # the server's call (0: revalidate every time, the safe default for registries that change at
        # runtime).
        self.list_ttl_ms = list_ttl_ms
        self.cache_scope = cache_scope
        # The 2025 sessions this engine opened, told when the registry's tools change; weak, so a session nobody
        # serves any more is forgotten.
        self._sessions: weakref.WeakSet[Session] = weakref.WeakSet()
        # The protocol's part of tools/call (rounds, repair and profile hooks, middleware, Context, cancellation).
        self.calls = ToolCaller(registry, self.sealer)
        # The open 2026-07-28 subscriptions/listen streams, told the same.
        self.listeners = Listeners()
        registry.on_tools_changed(self._tools_changed)

    def _tools_changed(self) -> None:
        """The served tools changed: every open, initialized 2025 session gets ``notifications/tools/list_changed``
        (from whatever thread made the change; see ``Session.post``)."""
        for session in list(self._sessions):
            session.post({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        self.listeners.tools_changed()

    # -- entry point -------------------------------------------------------------------------------------

    async def handle(
        self,
        message: object,
        session: Session,
        send: Send,
        *,
        strict: bool = False,
        close_stream: Callable[[], Awaitable[None]] | None = None,
        modern_only: bool = False,
        meta_checked: bool = False,
    ) -> Response | None:
        """Answer one message. ``None`` for notifications and responses. Never raises.

        ``strict`` refuses requests that lack the 2026-07-28 ``_meta`` (the HTTP transport's stateless mode);
        otherwise such a request without a session is served leniently as the current revision.
        ``modern_only`` says the transport opens no 2025 sessions, so the versions this server names (in
        ``server/discover`` and in -32022 errors) are the stateless ones alone. ``meta_checked`` says the front
        end already held a request's ``_meta`` to ``check_request_meta`` (HTTP must, to compare its headers), so
        the engine does not do it twice.
        """
        try:
            kind = classify(message)
            if kind == "invalid":
                if type(message) is list:
                    refusal = refuse_batch(message, session)
                    if refusal is not None:
                        return refusal
                    return error_response(None, INVALID_REQUEST, "Invalid Request: batches go to handle_batch")
                return error_response(echo_id(message), INVALID_REQUEST, INVALID_REQUEST_TEXT)
            assert isinstance(message, dict)
            if kind == "response":
                session.resolve(message)
                return None
            if kind == "notification":
                self._notification(message, session)
                return None
            if self.registry.request_layers:
                return await self._request_through_middleware(
                    message, session, send, strict, close_stream, modern_only, meta_checked
                )
            return await self._request(message, session, send, strict, close_stream, modern_only, meta_checked)
        except Exception:
            return internal_error(message)

    async def _request_through_middleware(
        self,
        message: dict[str, Any],
        session: Session,
        send: Send,
        strict: bool,
        close_stream: Callable[[], Awaitable[None]] | None,
        modern_only: bool,
        meta_checked: bool,
    ) -> Response | None:
        params = message.get("params")
        info = RequestInfo(
            message["method"],
            params if type(params) is dict else {},
            message["id"],
            client_key(session.peer, lambda: session.id),
        )

        async def terminal(_: RequestInfo) -> Response | None:
            return await self._request(message, session, send, strict, close_stream, modern_only, meta_checked)

        try:
            return await run_request_chain(self.registry.request_layers, info, terminal)
        except ProtocolError as problem:  # a middleware refused the request
            return error_response(message["id"], problem.code, problem.message, problem.data)

    async def handle_batch(
        self,
        messages: list[Any],
        session: Session,
        send: Send,
        *,
        close_stream: Callable[[], Awaitable[None]] | None = None,
        deliver: Callable[[Response], Awaitable[None]] | None = None,
    ) -> list[Response] | Response | None:
        """Answer a JSON-RPC batch (2025-03-26 sessions only): the responses in the batch's order, ``None`` when
        it held only notifications and responses, or one error response when the batch is refused as a whole
        (see ``refuse_batch``). Never raises.

        The members run concurrently, as separate messages would: one call waiting on the client must not hold
        up the others. ``deliver`` gets each response as soon as it is ready, for transports that stream them.
        """
        refusal = refuse_batch(messages, session)
        if refusal is not None:
            return refusal

        async def one(message: object) -> Response | None:
            response = await self.handle(message, session, send, close_stream=close_stream)
            if response is not None and deliver is not None:
                await deliver(response)
            return response

        import asyncio  # lazily: asyncio is most of mcptools' import time

        answers = await asyncio.gather(*(one(message) for message in messages))
        responses = [answer for answer in answers if answer is not None]
        return responses or None

    def _notification(self, message: dict[str, Any], session: Session) -> None:
        method = message["method"]
        params = message.get("params")
        if method == "notifications/initialized":
            session.initialized = True
        elif method == "notifications/cancelled" and type(params) is dict:
            session.cancel(params.get("requestId"))
        # Anything else (roots/list_changed, progress from the client, ...) needs no answer and changes
        # nothing.

    def _route(
        self,
        message: dict[str, Any],
        session: Session,
        strict: bool,
        modern_only: bool = False,
        meta_checked: bool = False,
    ) -> tuple[Routed, str, dict[str, Any]] | Response:
        """Which generation and method table a request belongs to; a dict return is the answer already."""
        request_id: RequestId = message["id"]
        method: str = message["method"]
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
        meta = params.get("_meta")
        names_revision = type(meta) is dict and META_PROTOCOL_VERSION in meta
        if session.protocol_version is not None and not names_revision:  # a 2025 session (is_legacy, inlined)
            if method == "initialize":
                return error_response(
                    request_id,
                    INVALID_REQUEST,
                    f"Invalid Request: this session is already initialized (at {session.protocol_version}); "
                    "initialize comes once, first",
                )
            call = Routed(
                request_id,
                meta if type(meta) is dict else {},
                True,
                session.client_capabilities,
                session.log_level,
            )
            methods = LEGACY_METHODS
        elif method == "initialize" and not names_revision:
            return self._initialize(request_id, params, session)
        elif names_revision or strict:
            problem = None if meta_checked else check_request_meta(params)
            if problem is not None:
                return error_response(request_id, problem.code, problem.message, problem.data)
            assert type(meta) is dict
            version = meta[META_PROTOCOL_VERSION]
            if version not in STATELESS_VERSIONS:
                return error_response(
                    request_id,
                    UNSUPPORTED_PROTOCOL_VERSION,
                    f"Unsupported protocol version: {version}",
                    {"supported": supported_versions(modern_only), "requested": version},
                )
            call = Routed(request_id, meta, False, meta[META_CLIENT_CAPABILITIES], meta.get(META_LOG_LEVEL))
            methods = STATELESS_METHODS
        else:
            call = Routed(request_id, meta if type(meta) is dict else {}, False, {}, None)
            methods = LENIENT_METHODS
        if method not in methods:
            return error_response(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        return call, method, params

    def _other_method(
        self, call: Routed, method: str, params: dict[str, Any], session: Session, modern_only: bool = False
    ) -> dict[str, Any]:
        if method == "tools/list":
            return self._tools_list(call, params)
        if method == "server/discover":
            return self._discover(modern_only)
        if method == "logging/setLevel":
            return self._set_level(params, session)
        if method == LISTEN_METHOD:
            # registry.handle answers one message and returns: it has no stream to keep open.
            raise ProtocolError(
                INVALID_REQUEST, "Invalid Request: subscriptions/listen needs a streaming transport (stdio or HTTP)"
            )
        return {}  # ping

    @staticmethod
    def _respond(call: Routed, result: dict[str, Any], session: Session) -> Response:
        if call.legacy:
            result.pop("resultType", None)
            if session.protocol_version == _OLDEST:
                downgrade_for_oldest(result)
        else:
            result.setdefault("resultType", "complete")
        return result_response(call.request_id, result)

    async def _request(
        self,
        message: dict[str, Any],
        session: Session,
        send: Send,
        strict: bool,
        close_stream: Callable[[], Awaitable[None]] | None,
        modern_only: bool = False,
        meta_checked: bool = False,
    ) -> Response | None:
        routed = self._route(message, session, strict, modern_only, meta_checked)
        if isinstance(routed, dict):
            return routed
        call, method, params = routed
        try:
            if method == "tools/call":
                result = await self.calls.call(call, params, session, send, close_stream)
                if result is None:
                    return None
            elif method == LISTEN_METHOD and send is not discard:
                result = await self.listeners.listen(call.request_id, params, session, send)
            else:
                result = self._other_method(call, method, params, session, modern_only)
        except ProtocolError as problem:
            return error_response(call.request_id, problem.code, problem.message, problem.data)
        return self._respond(call, result, session)

    def handle_sync(self, message: object) -> Response | None:
        """``handle`` without a transport or an event loop, for ``registry.handle``. Never raises.

        The message is classified and the call prepared here, once; a sync tool then runs inline, and only a
        tool that is async or takes a ``Context`` gets an event loop of its own for ``_run``. No session:
        notifications and responses change nothing.
        """
        try:
            kind = classify(message)
            if kind == "invalid":
                return error_response(echo_id(message), INVALID_REQUEST, INVALID_REQUEST_TEXT)
            if kind != "request":
                return None
            assert isinstance(message, dict)
            if self.registry.middleware:
                if not self._loop_free(message):
                    # Middleware is async: the request takes the engine's async road on a loop of its own.
                    return run_coroutine(self.handle(message, Session(peer="local"), discard))
                routed = self._route(message, _SESSIONLESS, False)
                if isinstance(routed, dict):
                    return routed
                call, _, call_params = routed
                try:
                    answered = self.calls.call_without_loop(call, call_params, _SESSIONLESS)
                except ProtocolError as problem:
                    return error_response(call.request_id, problem.code, problem.message, problem.data)
                return self._respond(call, answered, _SESSIONLESS) if answered is not None else None
            params = message.get("params")
            if (
                type(params) is dict
                and message["method"] == "tools/call"
                and "requestState" not in params
                and "inputResponses" not in params
                and ("_meta" not in params or plain_meta(params["_meta"]))
            ):
                # The shorter road for the commonest message: a call with no earlier rounds that names no
                # revision, or names one we serve in a well-formed _meta, would only be routed to a method
                # table that has tools/call. Same preparation and run as below.
                request_id = message["id"]
                expose_errors = self.registry.expose_errors
                calls = self.calls
                try:
                    prepared = prepare_call(
                        params,
                        self.registry.get,
                        expose_errors=expose_errors,
                        repair=calls.repair_hook,
                        adapt=calls.adapt_hook(),
                    )
                except ProtocolError as problem:
                    return error_response(request_id, problem.code, problem.message, problem.data)
                if isinstance(prepared, dict):
                    return result_response(request_id, prepared)
                tool = prepared[0]
                if tool.needs_loop:
                    meta = params.get("_meta")
                    call = (
                        Routed(request_id, meta, False, meta[META_CLIENT_CAPABILITIES], None)
                        if type(meta) is dict
                        else Routed(request_id, {}, False, {}, None)
                    )
                    result = self.calls.run_sync(call, prepared)
                    return result_response(request_id, result) if result is not None else None
                return result_response(request_id, run_inline(prepared, expose_errors=expose_errors))
            # Only initialize writes to a session here (logging/setLevel needs one it opened): every other
            # request may share one that stays empty, which saves building a session per call.
            session = Session() if message["method"] == "initialize" else _SESSIONLESS
            routed = self._route(message, session, False)
            if isinstance(routed, dict):
                return routed
            call, method, params = routed
            try:
                if method == "tools/call":
                    prepared = self.calls.prepare(call, params)
                    if isinstance(prepared, dict):
                        result = prepared
                    else:
                        ran = self.calls.run_sync(call, prepared)
                        if ran is None:
                            return None  # cancelled: the protocol sends no response
                        result = ran
                else:
                    result = self._other_method(call, method, params, session)
            except ProtocolError as problem:
                return error_response(call.request_id, problem.code, problem.message, problem.data)
            return self._respond(call, result, session)
        except Exception:
            return internal_error(message)

    def _loop_free(self, message: dict[str, Any]) -> bool:
        """Whether ``registry.handle`` may serve this request with middleware and no event loop: a ``tools/call``
        when no middleware wraps requests and ``ToolCaller.loop_free`` says the call needs none. Anything else
        takes the async road (an unknown tool is refused there)."""
        params = message.get("params")
        return (
            message["method"] == "tools/call"
            and not self.registry.request_layers
            and type(params) is dict
            and self.calls.loop_free(params)
        )

    # -- lifecycle ---------------------------------------------------------------------------------------

    def _capabilities(self) -> dict[str, Any]:
        # The tool list is live (tools added, removed, enabled or disabled at runtime): 2025 sessions are told,
        # and 2026-07-28 clients on a subscriptions/listen stream (see listen.py).
        return {"tools": {"listChanged": True}, "logging": {}}

    def _server_info(self) -> dict[str, Any]:
        return {"name": self.registry.name, "version": self.registry.version}

    def _initialize(self, request_id: RequestId, params: dict[str, Any], session: Session) -> Response:
        capabilities = params.get("capabilities")
        client_info = params.get("clientInfo")
        session.protocol_version = negotiate(params.get("protocolVersion"))
        session.client_capabilities = capabilities if type(capabilities) is dict else {}
        session.client_info = client_info if type(client_info) is dict else {}
        if session is not _SESSIONLESS:
            self._sessions.add(session)
        result: dict[str, Any] = {
            "protocolVersion": session.protocol_version,
            "capabilities": self._capabilities(),
            "serverInfo": self._server_info(),
        }
        if self.registry.instructions is not None:
            result["instructions"] = self.registry.instructions
        return result_response(request_id, result)

    def _discover(self, modern_only: bool = False) -> dict[str, Any]:
        result: dict[str, Any] = {
            "resultType": "complete",
            "ttlMs": self.list_ttl_ms,
            "cacheScope": self.cache_scope,
            "supportedVersions": supported_versions(modern_only),
            "capabilities": self._capabilities(),
            "_meta": {META_SERVER_INFO: self._server_info()},
        }
        if self.registry.instructions is not None:
            result["instructions"] = self.registry.instructions
        return result

    def _set_level(self, params: dict[str, Any], session: Session) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: 'level' must be one of {list(LOG_LEVELS)}")
        session.log_level = level
        return {}

    # -- tools/list --------------------------------------------------------------------------------------

    def _tools_list(self, call: Routed, params: dict[str, Any]) -> dict[str, Any]:
        listing = self.registry.list_tools()
        cache_scope = self.cache_scope
        if auth_enforced():
            # A tool whose scopes the caller lacks is not shown to it (and refused if called anyway). Then the
            # list differs per caller as soon as one tool has scopes: no shared cache may hand one caller's list
            # to another ("public" would let a gateway show admin tools to everyone).
            tools = [self.registry.get(entry["name"]) for entry in listing]
            if any(tool is not None and tool.scopes for tool in tools):
                cache_scope = "private"
            listing = [entry for entry, tool in zip(listing, tools, strict=True) if visible(tool)]
        offset = 0
        cursor = params.get("cursor")
        if cursor is not None:
            opened = self.sealer.open(cursor, purpose=_CURSOR_PURPOSE)
            position = opened.get("o") if opened is not None else None
            if type(position) is not int or not 0 <= position <= len(listing):
                raise ProtocolError(INVALID_PARAMS, "Invalid params: 'cursor' is not one this server issued")
            offset = position
        end = offset + self.page_size
        # A deep copy, so a caller who edits the response cannot edit the registry's published schemas.
        result: dict[str, Any] = {"tools": json.loads(json.dumps(listing[offset:end]))}
        if end < len(listing):
            result["nextCursor"] = self.sealer.seal({"o": end}, purpose=_CURSOR_PURPOSE)
        if not call.legacy:
            result["resultType"] = "complete"
            result["ttlMs"] = self.list_ttl_ms
            result["cacheScope"] = cache_scope
        return result


# The session of requests that have none (``registry.handle``); never initialized, so never written to.
_SESSIONLESS: Final = Session(peer="local")
