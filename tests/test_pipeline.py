"""One tools/call, one validation, whatever the entry: the call pipeline is the only road.

The tool's compiled validator is wrapped in a counter, then the same call arrives through every entry a server
has (sync ``registry.handle``, ``handle_async``, stdio, Streamable HTTP and the in-memory client), for a sync
tool, an async one and one taking a ``Context``, in both protocol generations where the entry speaks both.
"""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import pytest
from http_support import META, call, stateless_headers

from mcptools import Context, ToolRegistry
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools._transports.memory import MemoryClient
from mcptools._transports.stdio import serve_stdio_async
from mcptools._validation import Validator


class CountingValidator:
    """Stands in for a tool's validator and counts the validations (``is_valid`` is what every call runs)."""

    def __init__(self, inner: Validator) -> None:
        self.inner = inner
        self.count = 0

    def is_valid(self, instance: Any) -> bool:
        self.count += 1
        return self.inner.is_valid(instance)

    def errors(self, instance: Any) -> list[str]:
        return self.inner.errors(instance)


def build() -> tuple[ToolRegistry, dict[str, CountingValidator]]:
    registry = ToolRegistry("counted")

    @registry.tool
    def plain(city: str) -> str:
        return f"sync {city}"

    @registry.tool
    async def awaited(city: str) -> str:
        return f"async {city}"

    @registry.tool
    async def with_context(city: str, ctx: Context) -> str:
        await ctx.report_progress(1, 1)
        return f"context {city}"

    counters = {}
    for entry in registry:
        counter = CountingValidator(entry.validator)
        entry.validator = counter  # type: ignore[assignment]
        counters[entry.name] = counter
    return registry, counters


EXPECTED = {"plain": "sync Paris", "awaited": "async Paris", "with_context": "context Paris"}
TOOLS = sorted(EXPECTED)


def call_message(name: str, *, modern: bool, arguments: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": {"city": "Paris"} if arguments is None else arguments}
    if modern:
        params["_meta"] = META
    return {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}


def text_of(response: Any) -> str:
    assert response is not None and "result" in response, response
    text: str = response["result"]["content"][0]["text"]
    return text


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("name", TOOLS)
def test_registry_handle_validates_once(name: str, modern: bool) -> None:
    registry, counters = build()
    assert text_of(registry.handle(call_message(name, modern=modern))) == EXPECTED[name]
    assert counters[name].count == 1


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("name", TOOLS)
def test_handle_async_validates_once(name: str, modern: bool) -> None:
    registry, counters = build()
    response = asyncio.run(registry.handle_async(call_message(name, modern=modern)))
    assert text_of(response) == EXPECTED[name]
    assert counters[name].count == 1


def test_invalid_arguments_are_validated_once_and_the_errors_read_from_that_one_check() -> None:
    registry, counters = build()
    response = registry.handle(call_message("plain", modern=False, arguments={"city": 5}))
    assert text_of(response) == "Invalid arguments: property 'city' must be string"
    assert counters["plain"].count == 1


@pytest.mark.parametrize("name", TOOLS)
def test_stdio_validates_once(name: str) -> None:
    registry, counters = build()
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}},
    }
    lines = [json.dumps(m).encode() + b"\n" for m in (initialize, call_message(name, modern=False))]
    stdout = io.BytesIO()
    asyncio.run(asyncio.wait_for(serve_stdio_async(registry, io.BytesIO(b"".join(lines)), stdout), 10))
    responses = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert text_of(next(r for r in responses if r.get("id") == 7)) == EXPECTED[name]
    assert counters[name].count == 1


@pytest.mark.parametrize("name", TOOLS)
def test_http_stateless_validates_once(name: str) -> None:
    registry, counters = build()
    app = StreamableHTTPApp(registry)
    reply = asyncio.run(call(app, body=call_message(name, modern=True), headers=stateless_headers("tools/call", name)))
    assert reply.status == 200
    messages = (
        reply.messages() if reply.headers.get("content-type", "").startswith("text/event-stream") else [reply.json()]
    )
    assert text_of(next(m for m in messages if m.get("id") == 7)) == EXPECTED[name]
    assert counters[name].count == 1


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("name", TOOLS)
def test_memory_client_validates_once(name: str, modern: bool) -> None:
    registry, counters = build()
    client = MemoryClient(registry)

    async def run() -> Any:
        if modern:
            return await client.stateless("tools/call", {"name": name, "arguments": {"city": "Paris"}})
        return await client.send_raw(call_message(name, modern=False))

    assert text_of(asyncio.run(run())) == EXPECTED[name]
    assert counters[name].count == 1


def test_a_mutable_default_is_fresh_for_every_call() -> None:
    registry = ToolRegistry("defaults")

    @registry.tool
    def grow(n: int, tags: list[str] = [], limits: dict[str, int] = {}) -> str:  # noqa: B006 (the bug under test)
        tags.append(str(n))
        limits[str(n)] = n
        return ",".join(tags) + f"|{len(limits)}"

    texts = [
        text_of(
            registry.handle(
                {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "grow", "arguments": {"n": n}}}
            )
        )
        for n in range(3)
    ]
    assert texts == ["0|1", "1|1", "2|1"]
    # A value the client sent is the client's, and is used as given.
    response = registry.handle(
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {"name": "grow", "arguments": {"n": 5, "tags": ["a"]}},
        }
    )
    assert text_of(response) == "a,5|1"


def test_a_mutable_default_is_fresh_through_the_async_entry_too() -> None:
    registry = ToolRegistry("defaults")

    @registry.tool
    async def grow(n: int, tags: list[str] = []) -> str:  # noqa: B006 (the bug under test)
        tags.append(str(n))
        return ",".join(tags)

    async def run() -> list[str]:
        return [
            text_of(await registry.handle_async(call_message("grow", modern=False, arguments={"n": n})))
            for n in range(3)
        ]

    assert asyncio.run(run()) == ["0", "1", "2"]


def test_immutable_defaults_are_not_copied() -> None:
    registry = ToolRegistry("defaults")

    @registry.tool
    def fixed(n: int, label: str = "x", pair: tuple[int, int] = (1, 2), tags: list[str] = []) -> str:  # noqa: B006
        return label

    tool = registry.get("fixed")
    assert tool is not None
    assert [name for name, _ in tool.mutable_defaults] == ["tags"]


def test_remove_unregisters_a_tool() -> None:
    registry, _ = build()
    removed = registry.remove("plain")
    assert removed.name == "plain"
    assert "plain" not in registry and "plain" not in registry.tools
    response = registry.handle(call_message("plain", modern=False))
    assert response is not None and response["error"]["message"] == "Unknown tool: plain"
    with pytest.raises(KeyError, match="no tool named 'plain'"):
        registry.remove("plain")
