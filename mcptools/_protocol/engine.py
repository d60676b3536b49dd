"""The protocol engine: one decoded JSON-RPC message in, its response out, for either protocol generation.

    handle(message, session, stream, mode, principal)
      classify ONCE -> a response to one of our questions (session.resolve), a notification, or a request
      route: params, the request's generation and method table, a ``Call`` record; for tools/call the pipeline's
             route and authorize stages (the tool is looked up once, its scopes checked once)
      serve: request middleware -> the method: tools/call -> the pipeline's async driver; the rest here
      respond: the result shaped for the request's revision

``handle_sync`` (``registry.handle``) is the same road with the pipeline's sync driver: no event loop unless the
tool or the middleware needs one. A transport that must see a request before answering it (HTTP picks JSON or
an event stream, checks ``Mcp-Param-*`` headers, answers an authorization refusal with 403) calls ``route`` and
``serve`` itself; every other transport calls ``handle`` (see ``mcptools._transports.loop``).

Which generation a request speaks is read from the request itself: one that names a revision in
``_meta["io.modelcontextprotocol/protocolVersion"]`` is a 2026-07-28 request and is served statelessly; an
``initialize`` (or any request on a session it opened) is a 2025 one. The transport says how it serves requests
with one ``Mode``. The registry owns one engine (``registry.engine``) and is seen here only as a ``ToolSource``.
"""

from __future__ import annotations

import json
import logging
import weakref
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from .._call import NO_STREAM, Call, Mode, ProviderCall, Stream, TaskAccess, ToolSource
from .._errors import ProtocolError
from .._jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    classify,
    echo_id,
    error_response,
)
from .._middleware import RequestInfo, client_of, run_request_chain
from .._pipeline import authorize, drive, drive_sync
from .._pipeline import route as route_tool
from .._running import run_on_loop
from .._scopes import visible
from .listen import LISTEN_METHOD, Listeners
from .request_rules import (
    INVALID_REQUEST_TEXT,
    LEGACY_METHODS,
    LENIENT_METHODS,
    STATELESS_METHODS,
    TASK_METHODS,
    BatchBudget,
    check_request_meta,
    names_revision,
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
    TASKS_EXTENSION,
    TASKS_REVISION,
    UNSUPPORTED_PROTOCOL_VERSION,
    negotiate,
    supported_versions,
)
from .session import Session
from .state import StateSealer

if TYPE_CHECKING:
    from ..auth import Principal

__all__ = ["Engine", "Served", "internal_error"]

logger = logging.getLogger("mcptools")

Response = dict[str, Any]
_CURSOR_PURPOSE: Final = "tools/list"
_OLDEST: Final = "2025-03-26"
_NO_META: Final[dict[str, Any]] = {}
_LENIENT: Final = Mode.LENIENT  # a module constant: read on every request, cheaper than the enum's attribute


class Served(Protocol):
    """What a transport needs from a registry: its name, its engine, and its lifespan to enter around serving.
    A protocol, so the transports never import the registry (``registry.run()`` imports them)."""

    @property
    def name(self) -> str: ...
    @property
    def engine(self) -> Engine: ...
    def running(self) -> AbstractAsyncContextManager[Any]: ...
    @property
    def offers_tasks(self) -> bool: ...
    @property
    def task_service(self) -> TaskAccess: ...


def internal_error(message: object) -> Response:
    """The one answer to a bug of ours while handling ``message``: logged with its traceback, never sent."""
    logger.exception("mcptools: internal error while handling a message")
    return error_response(echo_id(message), INTERNAL_ERROR, "Internal error")


@final
class Engine:
    """Serves one registry over either protocol generation; transports hand it every message."""

    __slots__ = (
        "__weakref__",
        "_sessions",
        "cache_scope",
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
        # The open 2026-07-28 subscriptions/listen streams, told the same.
        self.listeners = Listeners()
        registry.on_tools_changed(self._tools_changed)

    def _tools_changed(self) -> None:
        """The served tools changed: every open, initialized 2025 session gets ``notifications/tools/list_changed``
        (from whatever thread made the change; see ``Session.post``)."""
        for session in list(self._sessions):
            session.post({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        self.listeners.tools_changed()

    # -- entry points ------------------------------------------------------------------------------------

    async def handle(
        self,
        message: object,
        session: Session,
        stream: Stream = NO_STREAM,
        mode: Mode = Mode.LENIENT,
        principal: Principal | None = None,
        *,
        provider: ProviderCall | None = None,
    ) -> Response | None:
        """Answer one message: its response, ``None`` for notifications and responses. Never raises.
        ``principal`` is the verified caller (HTTP with authorization, or a provider's ``run(..., principal=)``);
        ``provider`` marks a tools/call a provider's ``run`` hands in (see ``ProviderCall``)."""
        try:
            kind = classify(message)
            if kind == "request":
                assert type(message) is dict
                return await self.serve(message, self.route(message, session, mode, principal, provider), stream)
            if kind == "response":
                session.resolve(message)  # type: ignore[arg-type]
                return None
            if kind == "notification":
                self._notification(message, session)  # type: ignore[arg-type]
                return None
            return self._invalid(message, session)
        except Exception:
            return internal_error(message)

    def handle_sync(
        self, message: object, *, provider: ProviderCall | None = None, principal: Principal | None = None
    ) -> Response | None:
        """``handle`` without a transport or an event loop, for ``registry.handle``: the pipeline's sync driver
        runs a sync tool inline. No session: notifications and responses change nothing. Never raises.
        ``provider`` and ``principal``: see ``handle`` (a provider's ``run`` passes both)."""
        try:
            kind = classify(message)
            if kind != "request":
                return self._invalid(message, None) if kind == "invalid" else None
            # Only initialize writes to a session here: every other request shares one that stays empty.
            session = _SESSIONLESS if message["method"] != "initialize" else Session(peer="local")  # type: ignore[index]
            routed = self.route(message, session, _LENIENT, principal, provider)  # type: ignore[arg-type]
            if type(routed) is not Call or self.registry.request_layers or routed.method == LISTEN_METHOD:
                if type(routed) is not Call and not self.registry.request_layers:
                    return routed
                # Request middleware is async: the request takes the async road on this thread's own loop.
                return run_on_loop(self.serve(message, routed, NO_STREAM))  # type: ignore[arg-type]
            try:
                if routed.refusal is not None:
                    raise routed.refusal
                if routed.method == "tools/call":
                    result = drive_sync(routed)
                    if result is None:
                        return None  # cancelled: the protocol sends no response
                elif routed.method in TASK_METHODS:
                    result = run_on_loop(_task_method(routed))  # the store is async
                else:
                    result = self._method(routed)
            except ProtocolError as problem:
                return error_response(routed.request_id, problem.code, problem.message, problem.data)
            return self._respond(routed, result)
        except Exception:
            return internal_error(message)

    async def handle_batch(
        self,
        messages: list[Any],
        session: Session,
        stream: Stream = NO_STREAM,
        *,
        deliver: Stream | None = None,
        principal: Principal | None = None,
    ) -> list[Response] | Response | None:
        """Answer a JSON-RPC batch (2025-03-26 sessions only): the responses in the batch's order, ``None`` when
        it held only notifications and responses, or the refusal of the batch as a whole (see ``refuse_batch``:
        one error, or one per request of a batch past the entry limit). Never raises.

        The members run concurrently, as separate messages would: one call waiting on the client must not hold
        up the others. ``deliver`` gets each response as soon as it is ready, for transports that stream them.
        Their total size is bounded (``BatchBudget``).
        """
        refusal = refuse_batch(messages, session)
        if refusal is not None:
            return refusal
        budget = BatchBudget()

        async def one(message: object) -> Response | None:
            response = await self.handle(message, session, stream, principal=principal)
            if response is not None:
                response = budget.fit(response)
                if deliver is not None:
                    await deliver.send(response)
            return response

        import asyncio  # lazily: asyncio is most of mcptools' import time

        answers = await asyncio.gather(*(one(message) for message in messages))
        responses = [answer for answer in answers if answer is not None]
        return responses or None

    def _invalid(self, message: object, session: Session | None) -> Response:
        if type(message) is list and session is not None:
            refusal = refuse_batch(message, session)
            if type(refusal) is dict:
                return refusal
            # Transports hand a batch to handle_batch, so an array here is a batch's member: JSON-RPC batches
            # do not nest.
            return error_response(None, INVALID_REQUEST, "Invalid Request: a batch member cannot be a batch itself")
        return error_response(echo_id(message), INVALID_REQUEST, INVALID_REQUEST_TEXT)

    def _notification(self, message: dict[str, Any], session: Session) -> None:
        method = message["method"]
        params = message.get("params")
        if method == "notifications/initialized":
            session.initialized = True
        elif method == "notifications/cancelled" and type(params) is dict:
            session.cancel(params.get("requestId"))
        # Anything else (roots/list_changed, progress from the client, ...) needs no answer and changes
        # nothing.

    # -- route -------------------------------------------------------------------------------------------

    # Long: one function on purpose. It runs for every request, and each helper call it would make costs about a
    # twentieth of what registry.handle spends on a whole call; its branches read top-down as the spec's rules.
    def route(
        self,
        message: dict[str, Any],
        session: Session,
        mode: Mode = Mode.LENIENT,
        principal: Principal | None = None,
        provider: ProviderCall | None = None,
    ) -> Call | Response:
        """A request's ``Call``: which generation it speaks and which method table serves it; for tools/call the
        tool looked up and the caller's scopes checked. A dict return is the error response already."""
        request_id = message["id"]
        method: str = message["method"]
        params = message.get("params")
        if params is None:
            params = {}
        elif type(params) is not dict:
            return error_response(request_id, INVALID_PARAMS, "Invalid params: 'params' must be an object")
        meta = params.get("_meta")
        revision_named = names_revision(meta)
        if session.protocol_version is not None and not revision_named:  # a request on a 2025 session
            if method == "initialize":
                return error_response(
                    request_id,
                    INVALID_REQUEST,
                    f"Invalid Request: this session is already initialized (at {session.protocol_version}); "
                    "initialize comes once, first",
                )
            legacy, methods = True, LEGACY_METHODS
        elif method == "initialize" and not revision_named:
            legacy, methods = True, _INITIALIZE
        elif revision_named or mode is not _LENIENT:
            # The commonest _meta (a revision we serve, the capabilities, no log level) passes with no more checks.
            if not (
                revision_named
                and meta[META_PROTOCOL_VERSION] in STATELESS_VERSIONS  # type: ignore[index]
                and type(meta.get(META_CLIENT_CAPABILITIES)) is dict  # type: ignore[union-attr]
                and META_LOG_LEVEL not in meta  # type: ignore[operator]
            ):
                problem = self._meta_problem(request_id, params, mode)
                if problem is not None:
                    return problem
            legacy, methods = False, STATELESS_METHODS
        else:
            legacy, methods = False, LENIENT_METHODS
        if method not in methods:
            return error_response(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        call = Call()  # no __init__: the routed fields are set here, the rest are the class's defaults
        call.request_id = request_id
        call.method = method
        call.params = params
        call.meta = meta if type(meta) is dict else _NO_META
        call.legacy = legacy
        call.session = session
        call.source = self.registry
        call.sealer = self.sealer
        # Read on every call (the refusal here, the provider when arguments fail), so set on every call: Python 3.11
        # reads an instance's own field about five times cheaper than a class's default.
        call.provider = provider
        call.refusal = None
        if mode is not _LENIENT:
            call.mode = mode
        if principal is not None:
            call.principal = principal
        if method == "tools/call":
            try:
                route_tool(call)
            except ProtocolError as problem:
                return error_response(request_id, problem.code, problem.message, problem.data)
            if call.tool.scopes:
                authorize(call)
        return call

    @staticmethod
    def _meta_problem(request_id: Any, params: dict[str, Any], mode: Mode) -> Response | None:
        """The 2026-07-28 rule: ``_meta`` names a revision we serve and the client's capabilities."""
        problem = check_request_meta(params)
        if problem is not None:
            return error_response(request_id, problem.code, problem.message, problem.data)
        version = params["_meta"][META_PROTOCOL_VERSION]
        if version not in STATELESS_VERSIONS:
            return error_response(
                request_id,
                UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version: {version}",
                {"supported": supported_versions(mode is Mode.STATELESS_ONLY), "requested": version},
            )
        return None

    # -- serve -------------------------------------------------------------------------------------------

    async def serve(
        self, message: dict[str, Any], routed: Call | Response, stream: Stream = NO_STREAM
    ) -> Response | None:
        """Answer a routed request (``route``'s return, a ``Call`` or its error response) through the request
        middleware, on ``stream``."""
        layers = self.registry.request_layers
        if not layers:
            return await self._answer(routed, stream)
        params = message.get("params")
        principal = routed.principal if type(routed) is Call else None
        session = routed.session if type(routed) is Call else _SESSIONLESS
        info = RequestInfo(
            message["method"],
            params if type(params) is dict else {},
            message["id"],
            client_of(principal, session),
            principal,
        )

        async def terminal(_: RequestInfo) -> Response | None:
            return await self._answer(routed, stream)

        try:
            return await run_request_chain(layers, info, terminal)
        except ProtocolError as problem:  # a middleware refused the request
            return error_response(message["id"], problem.code, problem.message, problem.data)

    async def _answer(self, routed: Call | Response, stream: Stream) -> Response | None:
        if type(routed) is not Call:
            return routed
        call = routed
        call.stream = stream
        try:
            if call.refusal is not None:
                raise call.refusal
            if call.method == "tools/call":
                result = await drive(call)
                if result is None:
                    return None  # cancelled by the client: no response
            elif call.method in TASK_METHODS:
                result = await _task_method(call)
            elif call.method == LISTEN_METHOD and stream.streaming:
                result = await self.listeners.listen(
                    call.request_id, call.params, call.session, stream.send, await _task_feed(call)
                )
            else:
                result = self._method(call)
        except ProtocolError as problem:
            return error_response(call.request_id, problem.code, problem.message, problem.data)
        return self._respond(call, result)

    def _method(self, call: Call) -> dict[str, Any]:
        """Every method but tools/call: none of them waits on anything."""
        method = call.method
        if method == "tools/list":
            return self._tools_list(call)
        if method == "initialize":
            return self._initialize(call)
        if method == "server/discover":
            return self._discover(call)
        if method == "logging/setLevel":
            return self._set_level(call)
        if method == LISTEN_METHOD:
            # Answered with one message and no stream (registry.handle, a plain JSON answer): nothing to keep open.
            raise ProtocolError(
                INVALID_REQUEST, "Invalid Request: subscriptions/listen needs a streaming transport (stdio or HTTP)"
            )
        return {}  # ping

    @staticmethod
    def _respond(call: Call, result: dict[str, Any]) -> Response:
        if call.legacy:
            result.pop("resultType", None)
            if call.session.protocol_version == _OLDEST:
                downgrade_for_oldest(result)
        elif "resultType" not in result:
            result["resultType"] = "complete"
        return {"jsonrpc": "2.0", "id": call.request_id, "result": result}

    # -- lifecycle ---------------------------------------------------------------------------------------

    def _capabilities(self, call: Call) -> dict[str, Any]:
        # The tool list is live (tools added, removed, enabled or disabled at runtime): 2025 sessions are told,
        # and 2026-07-28 clients on a subscriptions/listen stream (see listen.py).
        capabilities: dict[str, Any] = {"tools": {"listChanged": True}, "logging": {}}
        if self.registry.offers_tasks:
            # Tasks: the extension over 2026-07-28; 2025-11-25's own capability, with tasks/list only for a
            # verified caller (it lists that caller's tasks, and a server that cannot tell callers apart must not).
            if not call.legacy:
                capabilities["extensions"] = {TASKS_EXTENSION: {}}
            elif call.session.protocol_version == TASKS_REVISION:
                tasks: dict[str, Any] = {"cancel": {}, "requests": {"tools": {"call": {}}}}
                if call.principal is not None:
                    tasks["list"] = {}
                capabilities["tasks"] = tasks
        return capabilities

    def _server_info(self) -> dict[str, Any]:
        return self.registry.server_info

    def _initialize(self, call: Call) -> dict[str, Any]:
        params, session = call.params, call.session
        capabilities = params.get("capabilities")
        client_info = params.get("clientInfo")
        session.protocol_version = negotiate(params.get("protocolVersion"))
        session.client_capabilities = capabilities if type(capabilities) is dict else {}
        session.client_info = client_info if type(client_info) is dict else {}
        self._sessions.add(session)
        result: dict[str, Any] = {
            "protocolVersion": session.protocol_version,
            "capabilities": self._capabilities(call),
            "serverInfo": self._server_info(),
        }
        if self.registry.instructions is not None:
            result["instructions"] = self.registry.instructions
        return result

    def _discover(self, call: Call) -> dict[str, Any]:
        result: dict[str, Any] = {
            "ttlMs": self.list_ttl_ms,
            "cacheScope": self.cache_scope,
            "supportedVersions": supported_versions(call.mode is Mode.STATELESS_ONLY),
            "capabilities": self._capabilities(call),
            "_meta": {META_SERVER_INFO: self._server_info()},
        }
        if self.registry.instructions is not None:
            result["instructions"] = self.registry.instructions
        return result

    def _set_level(self, call: Call) -> dict[str, Any]:
        level = call.params.get("level")
        if level not in LOG_LEVELS:
            raise ProtocolError(INVALID_PARAMS, f"Invalid params: 'level' must be one of {list(LOG_LEVELS)}")
        call.session.log_level = level
        return {}

    # -- tools/list --------------------------------------------------------------------------------------

    def _tools_list(self, call: Call) -> dict[str, Any]:
        listing = self.registry.list_tools()
        cache_scope = self.cache_scope
        if call.principal is not None:
            # A tool whose scopes the caller lacks is not shown to it (and refused if called anyway). Then the
            # list differs per caller as soon as one tool has scopes: no shared cache may hand one caller's list
            # to another ("public" would let a gateway show admin tools to everyone).
            listing, scoped = visible(self.registry, listing, call.principal)
            if scoped:
                cache_scope = "private"
        offset = 0
        cursor = call.params.get("cursor")
        if cursor is not None:
            opened = self.sealer.open(cursor, purpose=_CURSOR_PURPOSE)
            position = opened.get("o") if opened is not None else None
            if type(position) is not int or not 0 <= position <= len(listing):
                raise ProtocolError(INVALID_PARAMS, "Invalid params: 'cursor' is not one this server issued")
            offset = position
        end = offset + self.page_size
        # A deep copy, so a caller who edits the response cannot edit the registry's published schemas.
        result: dict[str, Any] = {"tools": json.loads(json.dumps(listing[offset:end]))}
        if call.legacy and call.session.protocol_version == TASKS_REVISION:
            _task_support(result["tools"], self.registry)
        if end < len(listing):
            result["nextCursor"] = self.sealer.seal({"o": end}, purpose=_CURSOR_PURPOSE)
        if not call.legacy:
            result["ttlMs"] = self.list_ttl_ms
            result["cacheScope"] = cache_scope
        return result


def _task_support(entries: list[dict[str, Any]], registry: ToolSource) -> None:
    """2025-11-25 lists each task tool's ``execution.taskSupport`` (2026-07-28 has no such field: the server
    decides per request there)."""
    for entry in entries:
        tool = registry.get(entry["name"])
        if tool is not None and tool.task is not None:
            entry["execution"] = {"taskSupport": tool.task}


async def _task_method(call: Call) -> dict[str, Any]:
    from .._tasks.methods import serve_task_method  # only a server asked about tasks loads them

    return await serve_task_method(call)


async def _task_feed(call: Call) -> Any:
    """The tasks a listen request follows (``notifications.taskIds``), or ``None`` when it asks for none."""
    wanted = call.params.get("notifications")
    if type(wanted) is not dict or "taskIds" not in wanted:
        return None
    from .._tasks.methods import task_feed

    return await task_feed(call, wanted["taskIds"])


# The method table of a request without a session that opens one.
_INITIALIZE: Final = frozenset({"initialize"})
# The session of requests that have none (``registry.handle``); never initialized, so never written to.
_SESSIONLESS: Final = Session(peer="local", remembers=False)
