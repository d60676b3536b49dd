"""HTTP 2025 sessions carry tool-list changes on their GET stream: a change made while no GET stream is open
waits for one (once, however many changes), and a change made while it is open arrives at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

from http_support import call

from mcptools import ToolRegistry
from mcptools._transports import StreamableHTTPApp

LIST_CHANGED = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}


def test_changes_wait_for_the_get_stream_and_arrive_on_it() -> None:
    registry = ToolRegistry("http-live")
    registry.add(lambda: "a", name="first")
    app = StreamableHTTPApp(registry)

    async def run() -> list[Any]:
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        reply = await call(app, body=init)
        sid = {"mcp-session-id": reply.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
        await call(app, body={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=sid)
        registry.add(lambda: "b", name="second")  # no GET stream yet: kept for it, and only once
        registry.disable("first")
        events: list[Any] = []
        got_two = asyncio.Event()
        leave = asyncio.Event()

        async def receive() -> dict[str, Any]:
            await leave.wait()
            return {"type": "http.disconnect"}

        async def send(message: MutableMapping[str, Any]) -> None:
            body = message.get("body", b"").decode()
            for line in body.splitlines():
                if line.startswith("data: ") and line[6:]:
                    events.append(json.loads(line[6:]))
            if events == [LIST_CHANGED]:
                events.append("enabled")
                registry.enable("first")  # the stream is open now: this one is sent at once
            elif len(events) >= 3:
                got_two.set()

        scope = {
            "type": "http",
            "method": "GET",
            "path": "/mcp",
            "headers": [
                (b"host", b"127.0.0.1:8000"),
                (b"accept", b"text/event-stream"),
                *((k.encode(), v.encode()) for k, v in sid.items()),
            ],
        }
        stream = asyncio.ensure_future(app(scope, receive, send))
        await asyncio.wait_for(got_two.wait(), 10)
        await asyncio.sleep(0.05)  # room for a (wrong) extra event to arrive
        leave.set()
        await asyncio.wait_for(stream, 10)
        return events

    assert asyncio.run(run()) == [LIST_CHANGED, "enabled", LIST_CHANGED]


def test_a_listen_request_from_a_client_that_takes_only_json_is_refused_at_once() -> None:
    # The listen result comes only when the stream ends: answered as one JSON body, the request hung until the
    # server stopped (no headers, the acknowledgment and every change lost). 406 names the fix instead.
    from http_support import request, stateless_headers

    app = StreamableHTTPApp(ToolRegistry("listen-json"))
    body = request("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, request_id=5)
    headers = {**stateless_headers("subscriptions/listen"), "accept": "application/json"}
    reply = asyncio.run(asyncio.wait_for(call(app, body=body, headers=headers), 5))
    assert reply.status == 406
    assert reply.json()["id"] == 5
    assert reply.json()["error"]["message"] == (
        "Not Acceptable: subscriptions/listen answers with an event stream; accept text/event-stream"
    )
    assert not app.engine.listeners._open
