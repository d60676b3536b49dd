"""Fuzz: arbitrary bytes on stdio and arbitrary HTTP bodies never crash the server and never reach a tool."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import MutableMapping
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import ToolRegistry
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools._transports.stdio import serve_stdio_async


def guarded_registry(calls: list[Any]) -> ToolRegistry:
    registry = ToolRegistry("fuzz")

    @registry.tool
    def count(n: int) -> int:
        calls.append(n)
        return n

    return registry


json_scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)
near_messages = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.just("2.0") | json_scalars,
        "id": st.integers() | st.text(max_size=3) | json_scalars,
        "method": st.sampled_from(["tools/call", "initialize", "server/discover", "ping", "x"]) | json_scalars,
        "params": st.fixed_dictionaries(
            {}, optional={"name": st.just("count") | json_scalars, "arguments": json_values, "_meta": json_values}
        )
        | json_values,
    },
)


def _nest(depth: int, kinds: list[bool], inner: bytes) -> bytes:
    """``inner`` wrapped ``depth`` times, in arrays or objects as ``kinds`` cycles; sometimes left unclosed."""
    opening = b"".join(b"[" if kinds[i % len(kinds)] else b'{"k":' for i in range(depth))
    closing = b"".join(b"]" if kinds[i % len(kinds)] else b"}" for i in reversed(range(depth)))
    return opening + inner + closing


# Nesting around the decoder's limit and far past it, bare or as the arguments of a real tools/call.
deep_bodies = st.builds(
    lambda depth, kinds, inner, wrap, truncate: (
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"count","arguments":{"n":' if wrap else b"")
        + _nest(depth, kinds, inner)
        + (b"}}}" if wrap else b"")
    )[: len(_nest(depth, kinds, inner)) // 2 if truncate else None],
    st.integers(1, 700) | st.integers(700, 60_000),
    st.lists(st.booleans(), min_size=1, max_size=4),
    st.sampled_from([b"", b"1", b"NaN", b'"s"', b"null"]),
    st.booleans(),
    st.booleans(),
)
lines = st.lists(
    st.binary(max_size=40) | near_messages.map(lambda m: json.dumps(m).encode()) | deep_bodies,
    max_size=8,
).map(lambda parts: b"\n".join(p.replace(b"\n", b" ") for p in parts) + b"\n")


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines)
def test_arbitrary_stdio_input(data: bytes) -> None:
    calls: list[Any] = []
    stdout = io.BytesIO()
    asyncio.run(asyncio.wait_for(serve_stdio_async(guarded_registry(calls), io.BytesIO(data), stdout), 10))
    for line in stdout.getvalue().splitlines():
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0"
        assert ("result" in message) != ("error" in message)
        if "error" in message:
            assert message["error"]["code"] in (-32700, -32600, -32601, -32602, -32022)
    # Any call that did get through had valid arguments: an int.
    assert all(type(n) is int for n in calls)


@settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deep_bodies, st.sampled_from(["2026-07-28", None]))
def test_deep_nesting_over_http_is_a_client_error(body: bytes, version: str | None) -> None:
    calls: list[Any] = []
    app = StreamableHTTPApp(guarded_registry(calls), max_body_bytes=1_000_000)
    headers = [(b"host", b"localhost"), (b"content-type", b"application/json"), (b"accept", b"application/json")]
    if version is not None:
        headers += [(b"mcp-protocol-version", version.encode()), (b"mcp-method", b"tools/call")]
        headers += [(b"mcp-name", b"count")]
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": headers}
    statuses: list[int] = []
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])

    asyncio.run(asyncio.wait_for(app(scope, receive, send), 5))
    assert len(statuses) == 1 and 400 <= statuses[0] < 500
    assert calls == []  # no nesting is an int


header_values = st.sampled_from(
    ["2026-07-28", "2025-11-25", "tools/call", "count", "", "application/json", "text/event-stream", "\u00e9"]
)
header_names = st.sampled_from(
    [
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
        "mcp-session-id",
        "accept",
        "content-type",
        "origin",
        "last-event-id",
        "mcp-param-x",
    ]
)


@settings(max_examples=scaled(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["POST", "GET", "DELETE", "PATCH"]),
    st.binary(max_size=200) | near_messages.map(lambda m: json.dumps(m).encode()),
    st.dictionaries(header_names, header_values, max_size=5),
)
def test_arbitrary_http_requests(method: str, body: bytes, headers: dict[str, str]) -> None:
    calls: list[Any] = []
    app = StreamableHTTPApp(guarded_registry(calls), max_body_bytes=150)
    raw_headers = [(b"host", b"localhost")] + [(k.encode(), v.encode("utf-8")) for k, v in headers.items()]
    scope = {"type": "http", "method": method, "path": "/mcp", "headers": raw_headers}
    statuses: list[int] = []
    done = asyncio.Event()
    delivered = False

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            statuses.append(message["status"])
        elif not message.get("more_body", False):
            done.set()

    async def scenario() -> None:
        serving = asyncio.ensure_future(app(scope, receive, send))
        try:
            await asyncio.wait_for(asyncio.shield(serving), 2)
        except asyncio.TimeoutError:
            # A GET on a live session holds its stream open until the client leaves: leave.
            done.set()
            await asyncio.wait_for(serving, 2)

    asyncio.run(scenario())
    assert len(statuses) == 1
    assert statuses[0] < 500
    assert all(type(n) is int for n in calls)


INITIALIZE_2025_03_26 = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": "init",
        "method": "initialize",
        "params": {"protocolVersion": "2025-03-26", "capabilities": {}},
    }
).encode()
batch_lines = st.lists(
    st.lists(near_messages | json_values, max_size=5).map(lambda batch: json.dumps(batch).encode()),
    min_size=1,
    max_size=5,
)


def _check_response(message: Any) -> None:
    assert message["jsonrpc"] == "2.0"
    assert ("result" in message) != ("error" in message)
    if "error" in message:
        assert message["error"]["code"] in (-32600, -32601, -32602, -32022)


@settings(max_examples=scaled(100), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(batch_lines)
def test_arbitrary_batches_on_a_2025_03_26_session(batches: list[bytes]) -> None:
    calls: list[Any] = []
    stdout = io.BytesIO()
    data = b"\n".join([INITIALIZE_2025_03_26, *batches]) + b"\n"
    asyncio.run(asyncio.wait_for(serve_stdio_async(guarded_registry(calls), io.BytesIO(data), stdout), 10))
    for line in stdout.getvalue().splitlines():
        message = json.loads(line)
        if isinstance(message, list):
            assert message, "a batch owing nothing writes no line, never an empty array"
            for member in message:
                _check_response(member)
        else:
            _check_response(message)
    assert all(type(n) is int for n in calls)
