"""The protocol tests' raw harness: whole JSON-RPC messages straight into a registry's engine and its answers
back, one ``engine.handle`` per message, usable across several event loops (each test step may ``run`` its own).
Not a transport (``mcptools._transports.memory`` is the in-memory transport, on the shared message loop): it
plays the client's side of both protocol generations to test the engine itself.

``initialize`` and session requests for 2025, requests with ``_meta`` for 2026-07-28. Server-to-client requests
(elicitation, sampling, roots) are answered by the ``on_request`` callback (a ``ProtocolError`` it raises becomes
that JSON-RPC error); notifications are collected in ``notifications``, and also in the ``sink`` of the request
whose stream carried them.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, final

from mcptools._call import Mode
from mcptools._protocol.engine import Engine
from mcptools._protocol.revisions import (
    LATEST,
    LEGACY,
)
from mcptools._protocol.session import Send, Session
from mcptools._transports.memory import OnRequest, answer_question, initialize_params, stateless_params

if TYPE_CHECKING:
    from mcptools._protocol.engine import Served

__all__ = ["MemoryClient", "Stream"]

_CLIENT_INFO: Final = {"name": "mcptools-memory-client", "version": "0"}


@final
class Stream:
    """One request's stream: its messages go to ``send``, the client's answers come back on the session."""

    __slots__ = ("_send",)
    streaming = True

    def __init__(self, send: Send) -> None:
        self._send = send

    async def send(self, message: dict[str, Any]) -> None:
        await self._send(message)

    async def close(self) -> None:
        return None


@final
class MemoryClient:
    """A client wired straight to ``registry``; every call goes through the same engine the transports use."""

    __slots__ = (
        "_ids",
        "_replies",
        "capabilities",
        "client_info",
        "engine",
        "notifications",
        "on_request",
        "session",
    )

    def __init__(
        self,
        registry: Served,
        *,
        capabilities: Mapping[str, Any] | None = None,
        on_request: OnRequest | None = None,
        engine: Engine | None = None,
        client_info: Mapping[str, Any] | None = None,
    ) -> None:
        self.engine = engine if engine is not None else registry.engine
        self.capabilities = dict(capabilities) if capabilities is not None else {}
        self.on_request = on_request
        self.client_info = dict(client_info) if client_info is not None else _CLIENT_INFO
        self.session = Session(peer="memory")
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._replies: set[asyncio.Task[Any]] = set()

    def next_id(self) -> int:
        return next(self._ids)

    def open_outlet(self) -> None:
        """Receive the server's own notifications on the session (``tools/list_changed``), as stdio does."""
        self.session.open_outlet(self._send)

    def _stream(self, sink: list[dict[str, Any]] | None) -> Stream:
        """The stream of one request: its notifications go to ``sink`` too."""
        if sink is None:
            return Stream(self._send)

        async def send(message: dict[str, Any]) -> None:
            if "id" not in message:
                sink.append(message)
            await self._send(message)

        return Stream(send)

    async def _send(self, message: dict[str, Any]) -> None:
        """The server's outgoing stream: notifications are kept, requests answered via ``on_request``."""
        if "id" not in message:
            self.notifications.append(message)
            return
        reply = await answer_question(self.on_request, message)
        # Answer after the current send returns, as a real client would over the wire.
        asyncio.get_running_loop().call_soon(self._deliver, reply)

    def _deliver(self, reply: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self.engine.handle(reply, self.session, Stream(self._send)))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    async def send_raw(self, message: object) -> dict[str, Any] | None:
        return await self.engine.handle(message, self.session, Stream(self._send))

    async def send_batch(self, messages: list[Any]) -> list[dict[str, Any]] | dict[str, Any] | None:
        """A JSON-RPC batch on the session (served only after ``initialize("2025-03-26")``)."""
        return await self.engine.handle_batch(messages, self.session, Stream(self._send))

    async def initialize(self, protocol_version: str = LEGACY[0]) -> dict[str, Any] | None:
        """The 2025 handshake: ``initialize`` then ``notifications/initialized``."""
        params = initialize_params(protocol_version, self.capabilities, self.client_info)
        response = await self.send_raw(
            {"jsonrpc": "2.0", "id": next(self._ids), "method": "initialize", "params": params}
        )
        await self.send_raw({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        request_id: int | str | None = None,
        *,
        sink: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """A request on the session (2025 style: no per-request ``_meta`` revision)."""
        message: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": request_id if request_id is not None else next(self._ids),
            "method": method,
        }
        if params is not None:
            message["params"] = dict(params)
        return await self.engine.handle(message, self.session, self._stream(sink))

    async def stateless(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        protocol_version: str = LATEST,
        capabilities: Mapping[str, Any] | None = None,
        log_level: str | None = None,
        meta: Mapping[str, Any] | None = None,
        sink: list[dict[str, Any]] | None = None,
    ) -> dict[str, Any] | None:
        """A 2026-07-28 request: ``_meta`` carries the revision and capabilities, nothing is remembered."""
        body = stateless_params(
            params,
            capabilities=capabilities if capabilities is not None else self.capabilities,
            client_info=self.client_info,
            protocol_version=protocol_version,
            log_level=log_level,
            meta=meta,
        )
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": body}
        return await self.engine.handle(message, Session(peer="memory"), self._stream(sink), Mode.STATELESS)
