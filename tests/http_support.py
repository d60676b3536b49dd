"""Driving the Streamable HTTP ASGI app in-process: a registry of test tools, one request in, the reply out."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping, Sequence
from typing import Any, TypeVar

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools._transports.asgi_io import ASGISend, Receive, Scope

T = TypeVar("T")
LATEST = "2026-07-28"
LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"]
META = {
    "io.modelcontextprotocol/protocolVersion": LATEST,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def make_registry() -> ToolRegistry:
    registry = ToolRegistry("http-test")

    @registry.tool
    def echo(text: str) -> str:
        return text

    @registry.tool
    async def slow_progress(ctx: Context) -> str:
        for step in (1, 2):
            await ctx.report_progress(step, 2)
            await asyncio.sleep(0.01)
        return "progressed"

    @registry.tool
    async def reconnect(ctx: Context) -> str:
        await ctx.close_stream()
        await asyncio.sleep(0.05)
        return "after the cut"

    @registry.tool(
        input_schema={
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"],
            "additionalProperties": False,
        }
    )
    def regional(region: str) -> str:
        return region

    return registry


class Reply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> list[dict[str, str]]:
        parsed = []
        for block in self.body.decode().split("\n\n"):
            if not block.strip():
                continue
            event: dict[str, str] = {}
            for line in block.split("\n"):
                name, _, value = line.partition(": ")
                event[name] = value
            parsed.append(event)
        return parsed

    def messages(self) -> list[Any]:
        return [json.loads(e["data"]) for e in self.events() if e.get("data")]


async def call(
    app: Callable[[Scope, Receive, ASGISend], Awaitable[None]],
    method: str = "POST",
    body: Any = None,
    headers: dict[str, str] | None = None,
    path: str = "/mcp",
    raw: bytes | None = None,
    repeated: Sequence[tuple[str, str]] = (),
    peer: str = "127.0.0.1",
    hang_up: Callable[[Reply], bool] | None = None,
    query: str = "",
    root_path: str = "",
) -> Reply:
    """One request through ``app``; ``repeated`` headers are sent after ``headers`` as they are (a name already
    there appears twice). ``peer``: the client's address. ``hang_up``: the client disconnects as soon as this is
    true of what it received so far (then, as under uvicorn, whatever the app sends later goes nowhere)."""
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    base = {
        "host": "127.0.0.1:8000",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    base.update({k.lower(): v for k, v in (headers or {}).items()})
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "root_path": root_path,
        "query_string": query.encode(),
        "client": (peer, 50000),
        "headers": [(k.encode(), v.encode()) for k, v in [*base.items(), *repeated] if v is not None],
    }
    sent = False
    finished = asyncio.Event()
    reply = Reply(0, {}, b"")

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if finished.is_set():
            return
        if message["type"] == "http.response.start":
            reply.status = message["status"]
            reply.headers.update({k.decode(): v.decode() for k, v in message.get("headers", [])})
        elif message["type"] == "http.response.body":
            reply.body += message.get("body", b"")
            if not message.get("more_body", False) or (hang_up is not None and hang_up(reply)):
                finished.set()

    await asyncio.wait_for(app(scope, receive, send), 10)
    return reply


def stateless_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"mcp-protocol-version": LATEST, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    headers.update(extra)
    return headers


def request(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": META}}


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def initialize(app: StreamableHTTPApp, version: str = "2025-11-25") -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = run(call(app, body=body))
    assert reply.status == 200
    assert reply.json()["result"]["protocolVersion"] == version
    session_id = reply.headers["mcp-session-id"]
    assert session_id and all(0x21 <= ord(c) <= 0x7E for c in session_id)
    return session_id
