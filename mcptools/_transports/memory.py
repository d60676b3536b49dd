"""An in-process client for tests: talks to a registry's engine without bytes, pipes or sockets.

It plays the client's side of both protocol generations: ``initialize`` and session requests for 2025,
requests with ``_meta`` for 2026-07-28. Server-to-client requests (elicitation, sampling, roots) are answered
by the ``on_request`` callback; notifications are collected in ``notifications``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, final

from .._jsonrpc import INTERNAL_ERROR, METHOD_NOT_FOUND
from .._protocol.engine import Engine
from .._protocol.revisions import (
    LATEST,
    LEGACY,
    META_CLIENT_CAPABILITIES,
    META_CLIENT_INFO,
    META_LOG_LEVEL,
    META_PROTOCOL_VERSION,
)
from .._protocol.session import Session

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["MemoryClient"]

OnRequest = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]


@final
class MemoryClient:
    """A client wired straight to ``registry``; every call goes through the same engine the transports use."""

    __slots__ = ("_ids", "_replies", "capabilities", "engine", "notifications", "on_request", "session")

    def __init__(
        self,
        registry: Served,
        *,
        capabilities: Mapping[str, Any] | None = None,
        on_request: OnRequest | None = None,
        engine: Engine | None = None,
    ) -> None:
        self.engine = engine if engine is not None else registry.engine
        self.capabilities = dict(capabilities) if capabilities is not None else {}
        self.on_request = on_request
        self.session = Session(peer="memory")
        self.notifications: list[dict[str, Any]] = []
        self._ids = itertools.count(1)
        self._replies: set[asyncio.Task[Any]] = set()

    async def _send(self, message: dict[str, Any]) -> None:
        """The server's outgoing stream: notifications are kept, requests answered via ``on_request``."""
        if "id" not in message:
            self.notifications.append(message)
            return
        if self.on_request is None:
            reply: dict[str, Any] = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": METHOD_NOT_FOUND, "message": "no handler"},
            }
        else:
            try:
                result = await self.on_request(message["method"], message.get("params", {}))
                reply = {"jsonrpc": "2.0", "id": message["id"], "result": result}
            except Exception as exc:
                reply = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "error": {"code": INTERNAL_ERROR, "message": str(exc)},
                }
        # Answer after the current send returns, as a real client would over the wire.
        asyncio.get_running_loop().call_soon(self._deliver, reply)

    def _deliver(self, reply: dict[str, Any]) -> None:
        task = asyncio.ensure_future(self.engine.handle(reply, self.session, self._send))
        self._replies.add(task)
        task.add_done_callback(self._replies.discard)

    async def send_raw(self, message: object) -> dict[str, Any] | None:
        return await self.engine.handle(message, self.session, self._send)

    async def send_batch(self, messages: list[Any]) -> list[dict[str, Any]] | dict[str, Any] | None:
        """A JSON-RPC batch on the session (served only after ``initialize("2025-03-26")``)."""
        return await self.engine.handle_batch(messages, self.session, self._send)

    async def initialize(self, protocol_version: str = LEGACY[0]) -> dict[str, Any] | None:
        """The 2025 handshake: ``initialize`` then ``notifications/initialized``."""
        response = await self.send_raw(
            {
                "jsonrpc": "2.0",
                "id": next(self._ids),
                "method": "initialize",
                "params": {
                    "protocolVersion": protocol_version,
                    "capabilities": self.capabilities,
                    "clientInfo": {"name": "mcptools-memory-client", "version": "0"},
                },
            }
        )
        await self.send_raw({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return response

    async def request(
        self, method: str, params: Mapping[str, Any] | None = None, request_id: int | str | None = None
    ) -> dict[str, Any] | None:
        """A request on the session (2025 style: no per-request ``_meta`` revision)."""
        message: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": request_id if request_id is not None else next(self._ids),
            "method": method,
        }
        if params is not None:
            message["params"] = dict(params)
        return await self.send_raw(message)

    async def stateless(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        protocol_version: str = LATEST,
        capabilities: Mapping[str, Any] | None = None,
        log_level: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> dict[str, Any] | None:
        """A 2026-07-28 request: ``_meta`` carries the revision and capabilities, nothing is remembered."""
        full_meta: dict[str, Any] = {
            META_PROTOCOL_VERSION: protocol_version,
            META_CLIENT_CAPABILITIES: dict(capabilities if capabilities is not None else self.capabilities),
            META_CLIENT_INFO: {"name": "mcptools-memory-client", "version": "0"},
        }
        if log_level is not None:
            full_meta[META_LOG_LEVEL] = log_level
        if meta is not None:
            full_meta.update(meta)
        body = dict(params) if params is not None else {}
        body["_meta"] = full_meta
        message = {"jsonrpc": "2.0", "id": next(self._ids), "method": method, "params": body}
        return await self.engine.handle(message, Session(peer="memory"), self._send, strict=True)
