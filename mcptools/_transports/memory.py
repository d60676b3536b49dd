"""The in-memory transport: a client connected to a registry without bytes, pipes or sockets.

The server's end is a ``Transport`` served by the shared message loop (``serve_connection``), exactly as stdio is;
the client's end, ``MemoryConnection``, sends whole JSON-RPC messages and matches the answers to its requests.
``mcptools.testing.Client`` is built on it.

It plays the client's side of both protocol generations: ``initialize`` and session requests for 2025,
requests with ``_meta`` for 2026-07-28 (over the same connection, as a stdio client may). Server-to-client
requests (elicitation, sampling, roots) are answered by the ``on_request`` callback (a ``ProtocolError`` it raises
becomes that JSON-RPC error); notifications are collected in ``notifications``, and also in the ``sink`` of the
request they were sent for.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from .._errors import ProtocolError, UsageError
from .._jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND, RequestId, is_request_id
from .._protocol.revisions import (
    LATEST,
    LEGACY,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
)
from .loop import Outgoing, serve_connection

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["MemoryConnection", "OnRequest", "answer_question", "initialize_params", "stateless_params"]

OnRequest = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
_CLIENT_INFO: Final = {"name": "mcptools-memory-client", "version": "0"}


@final
@dataclass(slots=True, eq=False)
class _Mark:
    """Put in the inbox after a message that is not a request: reached once the loop is done with that message."""

    handled: asyncio.Future[None]


@final
@dataclass(slots=True, eq=False)
class _ServerEnd:
    """The server's end of the connection: what the shared message loop receives from and sends to."""

    client: MemoryConnection
    peer: ClassVar[str] = "memory"
    can_stream: ClassVar[bool] = True

    async def receive(self) -> dict[str, Any] | list[Any] | None:
        inbox = self.client._inbox
        while True:
            item = await inbox.get()
            if not isinstance(item, _Mark):
                return item
            # The loop asks for the next message only once it handled the last one that was not a request: tell
            # whoever sent that one (``MemoryConnection.send`` waits, so a test sees its effect at once).
            if not item.handled.done():
                item.handled.set_result(None)

    async def send(self, message: Outgoing, related: RequestId | None = None) -> None:
        self.client._arrived(message, related)

    async def close(self) -> None:
        self.client._ended()


@final
class MemoryConnection:
    """The client's end of an in-memory connection to ``registry``; ``open`` it inside a running event loop."""

    __slots__ = (
        "_ids",
        "_inbox",
        "_replies",
        "_serving",
        "_sinks",
        "_waiting",
        "capabilities",
        "client_info",
        "notifications",
        "on_request",
        "registry",
    )

    def __init__(
        self,
        registry: Served,
        *,
        capabilities: Mapping[str, Any] | None = None,
        on_request: OnRequest | None = None,
        client_info: Mapping[str, Any] | None = None,
    ) -> None:
        self.registry = registry
        self.capabilities = dict(capabilities) if capabilities is not None else {}
        self.on_request = on_request
        self.client_info = dict(client_info) if client_info is not None else _CLIENT_INFO
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._inbox: asyncio.Queue[dict[str, Any] | list[Any] | _Mark | None] = asyncio.Queue()
        self._waiting: dict[RequestId, asyncio.Future[dict[str, Any] | None]] = {}
        self._sinks: dict[RequestId, list[dict[str, Any]]] = {}
        self._replies: set[asyncio.Task[Any]] = set()
        self._serving: asyncio.Task[None] | None = None

    def next_id(self) -> int:
        return next(self._ids)

    def open(self) -> None:
        """Start serving the connection on the running event loop."""
        self._serving = asyncio.ensure_future(serve_connection(self.registry.engine, _ServerEnd(self)))

    async def close(self) -> None:
        """End the input: questions still waiting fail, calls still running finish, then the loop ends."""
        serving, self._serving = self._serving, None
        if serving is None:
            return
        self._inbox.put_nowait(None)
        await serving

    # -- what the server sends ------------------------------------------------------------------------------

    def _arrived(self, message: Outgoing, related: RequestId | None) -> None:
        items: list[dict[str, Any]] = message if isinstance(message, list) else [message]
        for item in items:
            if "method" not in item:  # the answer to one of our requests
                waiting = self._waiting.pop(item["id"], None) if is_request_id(item.get("id")) else None
                if waiting is not None and not waiting.done():
                    waiting.set_result(item)
            elif "id" in item:  # a question for us
                task = asyncio.ensure_future(self._reply(item))
                self._replies.add(task)
                task.add_done_callback(self._replies.discard)
            else:
                self.notifications.append(item)
                sink = self._sinks.get(related) if related is not None else None
                if sink is not None:
                    sink.append(item)

    def _ended(self) -> None:
        for waiting in self._waiting.values():
            if not waiting.done():
                waiting.set_result(None)  # never answered: a cancelled call, or the connection ended first
        self._waiting.clear()

    async def _reply(self, request: dict[str, Any]) -> None:
        """Answer one of the server's questions through ``on_request``."""
        self._inbox.put_nowait(await answer_question(self.on_request, request))

    # -- what the client sends ------------------------------------------------------------------------------

    async def send(self, message: dict[str, Any], *, sink: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
        """Send one message; for a request, wait for its response (``None`` when none comes: cancelled)."""
        if self._serving is None:
            raise UsageError("open the MemoryConnection first")
        if "id" not in message or "method" not in message:
            # A notification or an answer: handled in order before the loop takes the next message.
            handled: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._inbox.put_nowait(message)
            self._inbox.put_nowait(_Mark(handled))
            await handled
            return None
        request_id = message["id"]
        waiting: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self._waiting[request_id] = waiting
        if sink is not None:
            self._sinks[request_id] = sink
        self._inbox.put_nowait(message)
        try:
            return await waiting
        finally:
            self._sinks.pop(request_id, None)

    async def initialize(self, protocol_version: str = LEGACY[0]) -> dict[str, Any] | None:
        """The 2025 handshake: ``initialize`` then ``notifications/initialized``."""
        params = initialize_params(protocol_version, self.capabilities, self.client_info)
        response = await self.send({"jsonrpc": "2.0", "id": self.next_id(), "method": "initialize", "params": params})
        await self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    async def request(
        self, method: str, params: Mapping[str, Any] | None = None, *, sink: list[dict[str, Any]] | None = None
    ) -> dict[str, Any] | None:
        """A request on the session (2025 style: no per-request ``_meta`` revision)."""
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id(), "method": method}
        if params is not None:
            message["params"] = dict(params)
        return await self.send(message, sink=sink)

    async def stateless(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        capabilities: Mapping[str, Any] | None = None,
        log_level: str | None = None,
        sink: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """A 2026-07-28 request: ``_meta`` carries the revision and capabilities, nothing is remembered."""
        caps = capabilities if capabilities is not None else self.capabilities
        body = stateless_params(params, capabilities=caps, client_info=self.client_info, log_level=log_level)
        return await self.send({"jsonrpc": "2.0", "id": self.next_id(), "method": method, "params": body}, sink=sink)


# -- the client's side of the protocol, shared with the engine tests' raw harness (tests/memory_support.py) ----


async def answer_question(on_request: OnRequest | None, request: dict[str, Any]) -> dict[str, Any]:
    """The client's reply to a server's question: ``on_request``'s result, or the error it raised (a
    ``ProtocolError`` keeps its code; anything else is an internal error; no handler is method-not-found)."""
    reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request["id"]}
    if on_request is None:
        reply["error"] = {"code": METHOD_NOT_FOUND, "message": "no handler"}
        return reply
    try:
        reply["result"] = await on_request(request["method"], request.get("params") or {})
    except ProtocolError as problem:
        reply["error"] = {"code": problem.code, "message": problem.message}
    except Exception as exc:
        reply["error"] = {"code": INTERNAL_ERROR, "message": str(exc)}
    return reply


def initialize_params(
    protocol_version: str, capabilities: Mapping[str, Any], client_info: Mapping[str, Any]
) -> dict[str, Any]:
    """The 2025 handshake's ``initialize`` params."""
    return {"protocolVersion": protocol_version, "capabilities": capabilities, "clientInfo": client_info}


def stateless_params(
    params: Mapping[str, Any] | None,
    *,
    capabilities: Mapping[str, Any],
    client_info: Mapping[str, Any],
    protocol_version: str = LATEST,
    log_level: str | None = None,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """A 2026-07-28 request's params: its ``_meta`` carries the revision, the capabilities and the client."""
    full_meta: dict[str, Any] = {
        META_PROTOCOL_VERSION: protocol_version,
        META_CLIENT_CAPABILITIES: dict(capabilities),
        META_CLIENT_INFO: client_info,
    }
    if log_level is not None:
        full_meta[META_LOG_LEVEL] = log_level
    if meta is not None:
        full_meta.update(meta)
    body = dict(params) if params is not None else {}
    body["_meta"] = {**body.get("_meta", {}), **full_meta}
    return body
