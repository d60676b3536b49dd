"""One tools/call, one validation and one conversion, whatever the entry: the call pipeline is the only road.

The tool's compiled validator and its argument converter are wrapped in counters, then the same call arrives
through every entry a server has (sync ``registry.handle``, ``handle_async``, stdio, Streamable HTTP stateless
and in a 2025 session, the in-memory client, ``mcptools.testing.Client`` and the providers' ``run``), for a sync
tool, an async one and one taking a ``Context``, in both protocol generations where the entry speaks both. The
bare ``call_tool`` validates once too (its contract converts nothing).
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Callable
from datetime import date
from typing import Any

import pytest
from http_support import META, call, initialize, stateless_headers
from memory_support import MemoryClient
from typing_extensions import NotRequired, TypedDict

import mcptools._contract
import mcptools._validation
from mcptools import Context, Middleware, RequestInfo, ToolRegistry, call_tool
from mcptools._middleware import RequestNext, Response
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools._transports.stdio import serve_stdio_async
from mcptools._validation import Validator, validate
from mcptools.middleware import LogCalls, Timing
from mcptools.providers import anthropic as p_anthropic
from mcptools.providers import gemini as p_gemini
from mcptools.providers import openai as p_openai
from mcptools.testing import Client


class CountingValidator:
    """Stands in for a tool's validator and counts the validations: ``is_valid`` (what every call runs) and
    ``errors`` (the error path, which only a failed ``is_valid`` may take), apart and together."""

    def __init__(self, inner: Validator) -> None:
        self.inner = inner
        self.checks = 0
        self.error_runs = 0

    @property
    def count(self) -> int:
        """Every pass over the arguments: a valid call makes one, an invalid one two (the check, then its errors)."""
        return self.checks + self.error_runs

    def is_valid(self, instance: Any) -> bool:
        self.checks += 1
        return self.inner.is_valid(instance)

    def errors(self, instance: Any) -> list[str]:
        self.error_runs += 1
        return self.inner.errors(instance)


class CountingConverter:
    """Stands in for a tool's argument converter (JSON arguments -> keyword arguments) and counts its runs."""

    def __init__(self, inner: Callable[[dict[str, Any]], dict[str, Any]]) -> None:
        self.inner = inner
        self.count = 0

    def __call__(self, arguments: dict[str, Any]) -> dict[str, Any]:
        self.count += 1
        return self.inner(arguments)


class Counters:
    def __init__(self, validator: CountingValidator, converter: CountingConverter) -> None:
        self.validator = validator
        self.converter = converter

    def counts(self) -> tuple[int, int]:
        """(validations, conversions) so far."""
        return self.validator.count, self.converter.count


def build(middleware: tuple[Middleware, ...] = ()) -> tuple[ToolRegistry, dict[str, Counters]]:
    # ``on: date`` needs converting (the tool reads ``on.year``), so every call also runs the converter.
    registry = ToolRegistry("counted", middleware=middleware)

    @registry.tool
    def plain(city: str, on: date = date(2000, 1, 1)) -> str:
        return f"sync {city} {on.year}"

    @registry.tool
    async def awaited(city: str, on: date = date(2000, 1, 1)) -> str:
        return f"async {city} {on.year}"

    @registry.tool
    async def with_context(city: str, ctx: Context, on: date = date(2000, 1, 1)) -> str:
        await ctx.report_progress(1, 1)
        return f"context {city} {on.year}"

    return registry, counted(registry)


def counted(registry: ToolRegistry) -> dict[str, Counters]:
    """Each tool's validator and converter swapped for counting ones."""
    counters = {}
    for entry in registry:
        assert entry.convert is not None
        validator = CountingValidator(entry.validator)
        converter = CountingConverter(entry.convert)
        object.__setattr__(entry, "validator", validator)  # the tool is immutable: swapped in for counting
        object.__setattr__(entry, "convert", converter)
        counters[entry.name] = Counters(validator, converter)
    return counters


EXPECTED = {"plain": "sync Paris 2026", "awaited": "async Paris 2026", "with_context": "context Paris 2026"}
TOOLS = sorted(EXPECTED)
ARGUMENTS = {"city": "Paris", "on": "2026-12-03"}


def call_message(name: str, *, modern: bool, arguments: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": dict(ARGUMENTS) if arguments is None else arguments}
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
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("name", TOOLS)
def test_handle_async_validates_once(name: str, modern: bool) -> None:
    registry, counters = build()
    response = asyncio.run(registry.handle_async(call_message(name, modern=modern)))
    assert text_of(response) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


class PassRequests(Middleware):
    """A request layer that only passes requests on."""

    async def on_request(self, request: RequestInfo, request_next: RequestNext) -> Response:
        return await request_next(request)


# Middleware wraps the call (call layers, which registry.handle drives without a loop; a request layer, which
# sends registry.handle down the engine's async road): still one check, one conversion.
def call_layers() -> tuple[Middleware, ...]:
    return Timing(), LogCalls()


def request_layer() -> tuple[Middleware, ...]:
    return PassRequests(), Timing()


MIDDLEWARE: dict[str, Callable[[], tuple[Middleware, ...]]] = {
    "call layers": call_layers,
    "request layer": request_layer,
}


@pytest.mark.parametrize("layers", sorted(MIDDLEWARE))
@pytest.mark.parametrize("name", TOOLS)
def test_handle_with_middleware_validates_once(name: str, layers: str) -> None:
    registry, counters = build(MIDDLEWARE[layers]())
    assert text_of(registry.handle(call_message(name, modern=True))) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)
    registry, counters = build(MIDDLEWARE[layers]())
    assert text_of(asyncio.run(registry.handle_async(call_message(name, modern=False)))) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


def test_invalid_arguments_are_checked_once_and_their_errors_collected_once() -> None:
    registry, counters = build()
    response = registry.handle(call_message("plain", modern=False, arguments={"city": 5}))
    assert text_of(response) == "Invalid arguments: property 'city' must be string"
    assert (counters["plain"].validator.checks, counters["plain"].validator.error_runs) == (1, 1)
    assert counters["plain"].converter.count == 0  # invalid arguments are never converted


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
    assert counters[name].counts() == (1, 1)


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
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("modern", [False, True])
@pytest.mark.parametrize("name", TOOLS)
def test_memory_client_validates_once(name: str, modern: bool) -> None:
    registry, counters = build()
    client = MemoryClient(registry)

    async def run() -> Any:
        if modern:
            return await client.stateless("tools/call", {"name": name, "arguments": dict(ARGUMENTS)})
        return await client.send_raw(call_message(name, modern=False))

    assert text_of(asyncio.run(run())) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("name", TOOLS)
def test_http_session_validates_once(name: str) -> None:
    # The 2025-11-25 revision: initialize, then the call inside the session its Mcp-Session-Id names.
    registry, counters = build()
    app = StreamableHTTPApp(registry)
    session = {"mcp-session-id": initialize(app), "mcp-protocol-version": "2025-11-25"}
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert asyncio.run(call(app, body=initialized, headers=session)).status == 202
    reply = asyncio.run(call(app, body=call_message(name, modern=False), headers=session))
    assert reply.status == 200
    assert text_of(next(m for m in reply.messages() if m.get("id") == 7)) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
@pytest.mark.parametrize("name", TOOLS)
def test_testing_client_validates_once(name: str, protocol: Any) -> None:
    registry, counters = build()

    async def run() -> str:
        async with Client(registry, protocol=protocol) as client:
            return (await client.call_tool(name, dict(ARGUMENTS))).text

    assert asyncio.run(run()) == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("repair", [None, True])
@pytest.mark.parametrize("name", TOOLS)
def test_provider_run_validates_once(name: str, repair: object) -> None:
    # repair= given to run() names the repairs for these calls; a valid call is still validated only once.
    registry, counters = build()
    calls = {"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": json.dumps(ARGUMENTS)}}
    ]}  # fmt: skip
    [message] = p_openai.run(registry, calls, strict=False, repair=repair)
    assert message["content"] == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


@pytest.mark.parametrize("repair", [None, True])
@pytest.mark.parametrize("name", TOOLS)
def test_provider_arun_validates_once(name: str, repair: object) -> None:
    registry, counters = build()
    content = [{"type": "tool_use", "id": "u1", "name": name, "input": dict(ARGUMENTS)}]
    turn = {"role": "assistant", "content": content, "stop_reason": "tool_use"}
    [block] = asyncio.run(p_anthropic.arun(registry, turn, repair=repair))
    assert block["content"] == EXPECTED[name]
    assert counters[name].counts() == (1, 1)


class Style(TypedDict):
    texture: str
    color: NotRequired[str]


# A model turn calling ``chart`` in each provider's shape, under its strict (or own) profile: OpenAI strict sends
# the optional ``color`` as null; ``style`` is an ``Optional[TypedDict]``, a union whose branches map differently.
STRICT_TURNS: dict[str, tuple[Any, dict[str, Any], Callable[[dict[str, Any]], Any]]] = {
    "openai": (
        p_openai,
        {},
        lambda arguments: {
            "role": "assistant",
            "tool_calls": [{"id": "c", "type": "function", "function": {"name": "chart", "arguments": arguments}}],
        },
    ),
    "anthropic": (
        p_anthropic,
        {"strict": True},
        lambda arguments: {"content": [{"type": "tool_use", "id": "u", "name": "chart", "input": arguments}]},
    ),
    "gemini": (p_gemini, {}, lambda arguments: [{"function_call": {"name": "chart", "args": arguments}}]),
}


@pytest.mark.parametrize("style", [{"texture": "rough", "color": None}, None])
@pytest.mark.parametrize("provider", sorted(STRICT_TURNS))
def test_provider_strict_run_validates_once(provider: str, style: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The export maps the arguments back (nulls standing for absent fields, renamed names) without a schema check
    # of its own: the one validation stays the tool's. Every schema compiled while the export runs is counted.
    module, options, turn = STRICT_TURNS[provider]
    registry = ToolRegistry("charting")

    @registry.tool
    def chart(title: str, style: Style | None = None, on: date = date(2000, 1, 1)) -> str:
        return f"{title} {style} {on.year}"

    counters = counted(registry)["chart"]
    compiled: list[CountingValidator] = []
    compile_schema = mcptools._validation.compile_schema

    def counting_compile(schema: Any, *args: Any, **kwargs: Any) -> Any:
        compiled.append(CountingValidator(compile_schema(schema, *args, **kwargs)))
        return compiled[-1]

    monkeypatch.setattr(mcptools._validation, "compile_schema", counting_compile)
    if provider != "openai" and style is not None:
        style = {"texture": "rough"}  # only OpenAI strict sends every field
    arguments = {"title": "t", "style": style, "on": "2026-12-03"}
    [answer] = module.run(registry, turn(arguments), **options)
    text = answer.get("content") or answer["function_response"]["response"]["result"]
    assert text == ("t {'texture': 'rough'} 2026" if style is not None else "t None 2026")
    assert counters.counts() == (1, 1)
    assert sum(validator.count for validator in compiled) == 0


def test_bare_call_tool_validates_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The contract's call_tool validates against the raw schema it is handed and converts nothing.
    validations: list[Any] = []

    def counting(arguments: Any, schema: Any) -> list[str]:
        validations.append(arguments)
        return validate(arguments, schema)

    monkeypatch.setattr(mcptools._contract, "validate", counting)
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    tools = {"plain": (schema, lambda city: f"sync {city}")}
    request = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": "plain", "arguments": {"city": "Paris"}},
    }
    assert text_of(call_tool(tools, request)) == "sync Paris"
    assert validations == [{"city": "Paris"}]


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
