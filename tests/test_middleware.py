"""Middleware runs inside the one call pipeline, the same for every entry; the shipped ones; per-tool time limits."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from http_support import call as http_call
from http_support import request as http_request
from http_support import stateless_headers
from memory_support import MemoryClient

from mcptools import (
    Context,
    Middleware,
    ProtocolError,
    RequestInfo,
    ToolCall,
    ToolDefinitionError,
    ToolError,
    ToolRegistry,
)
from mcptools._pipeline import text_result
from mcptools._protocol.session import Session
from mcptools._transports import StreamableHTTPApp
from mcptools.auth import Principal
from mcptools.middleware import CallNext, CallResult, LogCalls, RateLimit, RequestNext, Response, Timing


def _call(name: str, arguments: Any = None, request_id: int = 1) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _text(response: dict[str, Any] | None) -> str:
    assert response is not None, "no response"
    text: str = response["result"]["content"][0]["text"]
    return text


class Record(Middleware):
    """Writes what it saw, before and after, into a shared list."""

    def __init__(self, label: str, seen: list[Any]) -> None:
        self.label = label
        self.seen = seen

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        self.seen.append((self.label, "before", call.name, dict(call.arguments), call.client))
        try:
            result = await call_next(call)
        except Exception as exc:
            self.seen.append((self.label, "error", type(exc).__name__))
            raise
        self.seen.append((self.label, "after", result.get("isError"), call.elapsed() >= 0))
        return result


def _weather_registry(*middleware: Middleware) -> ToolRegistry:
    registry = ToolRegistry("mw", middleware=list(middleware))

    @registry.tool
    def weather(location: str, days: int = 1) -> str:
        return f"{location} x{days}"

    @registry.tool
    async def greet(name: str, ctx: Context) -> str:
        await ctx.info("greeting")
        return f"hello {name}"

    return registry


Entry = Callable[[ToolRegistry, dict[str, Any]], Coroutine[Any, Any, dict[str, Any] | None]]


async def _via_handle(registry: ToolRegistry, message: dict[str, Any]) -> dict[str, Any] | None:
    return await asyncio.to_thread(registry.handle, message)


async def _via_handle_async(registry: ToolRegistry, message: dict[str, Any]) -> dict[str, Any] | None:
    return await registry.handle_async(message)


async def _via_memory_session(registry: ToolRegistry, message: dict[str, Any]) -> dict[str, Any] | None:
    client = MemoryClient(registry)
    await client.initialize()
    return await client.request(message["method"], message["params"])


async def _via_memory_stateless(registry: ToolRegistry, message: dict[str, Any]) -> dict[str, Any] | None:
    return await MemoryClient(registry).stateless(message["method"], message["params"])


async def _via_http(registry: ToolRegistry, message: dict[str, Any]) -> dict[str, Any] | None:
    app = StreamableHTTPApp(registry)
    params = message["params"]
    reply = await http_call(
        app,
        body=http_request("tools/call", params),
        headers=stateless_headers("tools/call", params["name"]),
    )
    answer: dict[str, Any] = reply.json() if reply.body.startswith(b"{") else reply.messages()[-1]
    return answer


ENTRIES: dict[str, Entry] = {
    "handle": _via_handle,
    "handle_async": _via_handle_async,
    "memory-2025": _via_memory_session,
    "memory-2026": _via_memory_stateless,
    "http": _via_http,
}


CLIENTS = {
    "handle": "local",
    "handle_async": "local",
    "memory-2025": "memory",
    "memory-2026": "memory",
    "http": "address:127.0.0.1",
}


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_every_entry_runs_the_same_chain_outermost_first(entry: str) -> None:
    seen: list[Any] = []
    registry = _weather_registry(Record("outer", seen), Record("inner", seen))
    reply = asyncio.run(ENTRIES[entry](registry, _call("weather", {"location": "Paris"})))
    assert _text(reply) == "Paris x1"
    assert seen[0][4] == CLIENTS[entry]
    order = [("outer", "before"), ("inner", "before"), ("inner", "after"), ("outer", "after")]
    assert [step[:2] for step in seen] == order
    assert seen[0][2:4] == ("weather", {"location": "Paris"})

    seen.clear()
    invalid = asyncio.run(ENTRIES[entry](registry, _call("weather", {"location": 5})))
    assert _text(invalid) == "Invalid arguments: property 'location' must be string"
    assert seen[-1] == ("outer", "after", True, True)  # invalid arguments are a call middleware sees

    seen.clear()
    context_tool = asyncio.run(ENTRIES[entry](registry, _call("greet", {"name": "Ada"})))
    assert _text(context_tool) == "hello Ada"
    assert len(seen) == 4


def test_the_client_key_is_the_principal_then_the_transport_client() -> None:
    seen: list[Any] = []
    registry = _weather_registry(Record("only", seen))

    async def as_principal() -> None:
        # The principal rides on the request, from the transport's edge into the engine.
        await registry.engine.handle(_call("weather", {"location": "x"}), Session(), principal=Principal("alice"))

    asyncio.run(as_principal())
    asyncio.run(MemoryClient(registry).stateless("tools/call", {"name": "weather", "arguments": {"location": "x"}}))
    assert [step[4] for step in seen if step[1] == "before"] == ["principal:alice", "memory"]


class ShortCircuit(Middleware):
    def __init__(self, how: str) -> None:
        self.how = how

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        if self.how == "result":
            return text_result("cached answer", is_error=False)
        if self.how == "tool-error":
            raise ToolError("not today")
        if self.how == "protocol-error":
            raise ProtocolError(-32001, "refused by policy")
        raise RuntimeError("secret path /etc/x")


@pytest.mark.parametrize(
    ("how", "expected"),
    [
        ("result", {"content": [{"type": "text", "text": "cached answer"}], "isError": False}),
        ("tool-error", {"content": [{"type": "text", "text": "not today"}], "isError": True}),
        ("bug", {"content": [{"type": "text", "text": "Tool 'weather' failed: RuntimeError"}], "isError": True}),
    ],
)
def test_middleware_short_circuits_and_its_bugs_never_leak_when_masked(
    how: str, expected: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    ran: list[str] = []
    registry = ToolRegistry("sc", middleware=[ShortCircuit(how)], mask_error_details=True)

    @registry.tool
    def weather(location: str) -> str:
        ran.append(location)
        return location

    reply = registry.handle(_call("weather", {"location": "x"}))
    assert reply is not None
    assert reply["result"] == {"resultType": "complete", **expected}
    assert ran == []
    if how == "bug":
        assert "secret path" in caplog.text and "secret path" not in str(reply)


def test_a_protocol_error_from_middleware_is_a_json_rpc_error_and_unknown_tools_skip_the_call_chain() -> None:
    seen: list[Any] = []
    registry = ToolRegistry("pe", middleware=[Record("r", seen), ShortCircuit("protocol-error")])

    @registry.tool
    def weather(location: str) -> str:
        return location

    reply = registry.handle(_call("weather", {"location": "x"}))
    assert reply is not None and reply["error"] == {"code": -32001, "message": "refused by policy"}
    assert seen[-1] == ("r", "error", "ProtocolError")
    seen.clear()
    unknown = registry.handle(_call("nope", {}))
    assert unknown is not None and unknown["error"]["message"] == "Unknown tool: nope"
    assert seen == []


class Requests(Middleware):
    def __init__(self, seen: list[Any], refuse: str | None = None) -> None:
        self.seen = seen
        self.refuse = refuse

    async def on_request(self, request: RequestInfo, request_next: RequestNext) -> Response:
        if request.method == self.refuse:
            raise ProtocolError(-32002, f"{request.method} is switched off")
        response = await request_next(request)
        self.seen.append((request.method, request.request_id, request.client, response is not None))
        return response


def test_request_middleware_wraps_every_request_and_may_refuse() -> None:
    seen: list[Any] = []
    registry = _weather_registry(Requests(seen, refuse="ping"))
    listing = registry.handle({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert listing is not None and [t["name"] for t in listing["result"]["tools"]] == ["weather", "greet"]
    refused = registry.handle({"jsonrpc": "2.0", "id": 8, "method": "ping"})
    assert refused == {"jsonrpc": "2.0", "id": 8, "error": {"code": -32002, "message": "ping is switched off"}}
    unknown = registry.handle(_call("nope", {}, request_id=9))
    assert unknown is not None and "error" in unknown
    assert registry.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert seen == [("tools/list", 7, "local", True), ("tools/call", 9, "local", True)]


def test_a_client_cancellation_unwinds_the_chain_and_sends_nothing() -> None:
    seen: list[Any] = []
    started = asyncio.Event()

    registry = ToolRegistry("cancel", middleware=[Record("r", seen)])

    @registry.tool
    async def wait_forever() -> str:
        started.set()
        await asyncio.sleep(30)
        return "never"

    class Finally(Middleware):
        async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
            try:
                return await call_next(call)
            finally:
                seen.append("finally")

    registry.use(Finally())

    async def scenario() -> None:
        client = MemoryClient(registry)
        await client.initialize()
        pending = asyncio.ensure_future(client.request("tools/call", {"name": "wait_forever"}, request_id=5))
        await started.wait()
        await client.send_raw({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        assert await asyncio.wait_for(pending, 5) is None

    asyncio.run(scenario())
    assert seen[-1] == "finally" and seen[0][1] == "before" and not any(s[1] == "after" for s in seen[:-1])


def test_middleware_definition_errors_name_the_registry_and_the_fix() -> None:
    with pytest.raises(ToolDefinitionError, match=r"ToolRegistry\('x'\): middleware item .*an instance, not the class"):
        ToolRegistry("x", middleware=[LogCalls])  # type: ignore[list-item]
    with pytest.raises(ToolDefinitionError, match="must be a list of Middleware"):
        ToolRegistry("x", middleware="LogCalls")  # type: ignore[arg-type]


def test_no_middleware_never_enters_the_chain(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcptools import _pipeline
    from mcptools._protocol import engine

    def forbidden(*args: object) -> Any:
        raise AssertionError("the chain ran without middleware")

    monkeypatch.setattr(_pipeline, "run_call_chain", forbidden)
    monkeypatch.setattr(engine, "run_request_chain", forbidden)
    registry = _weather_registry()
    assert _text(registry.handle(_call("weather", {"location": "x"}))) == "x x1"
    assert _text(asyncio.run(registry.handle_async(_call("greet", {"name": "y"})))) == "hello y"
    # A layer that overrides only on_request is not part of the call chain, and the other way round.
    assert (len(registry.call_layers), len(registry.request_layers)) == (0, 0)
    registry.use(LogCalls())
    assert (len(registry.call_layers), len(registry.request_layers)) == (1, 0)


class Where(Middleware):
    """Records where its hook ran: the thread and the event loop, and where the tool ran."""

    def __init__(self, seen: list[Any], wait: Callable[[], Any] | None = None) -> None:
        self.seen = seen
        self.wait = wait

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        self.seen.append(("before", call.name, call.client, threading.get_ident(), id(asyncio.get_running_loop())))
        if self.wait is not None:
            await self.wait()
        result = await call_next(call)
        self.seen.append(("after", result["isError"]))
        return result


def test_handle_runs_middleware_in_the_caller_s_thread_on_one_kept_loop() -> None:
    # Middleware hooks are coroutines: registry.handle runs the chain on this thread's own event loop, made once
    # and kept (not a loop per call), and still runs a sync tool inline in this thread.
    seen: list[Any] = []
    now = [0.0]
    limit = RateLimit(2, per=60.0, clock=lambda: now[0])
    registry = _weather_registry(Where(seen), LogCalls(), Timing(), limit)
    ran_in: list[int] = []

    def where_am_i() -> str:
        ran_in.append(threading.get_ident())
        return "ok"

    registry.add(where_am_i)
    assert _text(registry.handle(_call("where_am_i", {}))) == "ok"
    assert ran_in == [threading.get_ident()]
    assert seen[0][:4] == ("before", "where_am_i", "local", threading.get_ident())
    invalid = registry.handle(_call("weather", {"location": 1}))
    assert invalid is not None and invalid["result"]["isError"] is True  # validation runs inside the chain
    refused = registry.handle(_call("weather", {"location": "y"}))
    assert _text(refused).startswith("Rate limit exceeded: at most 2 calls per 60 s")  # a ToolError short-circuit
    unknown = registry.handle(_call("nowhere", {}))
    assert unknown is not None and unknown["error"]["message"] == "Unknown tool: nowhere"
    now[0] += 60.0
    assert _text(registry.handle(_call("greet", {"name": "z"}))) == "hello z"  # async, with a Context
    loops = {step[4] for step in seen if step[0] == "before"}
    assert len(loops) == 1, "one loop, kept for this thread"


def test_middleware_that_waits_on_real_work_runs_from_sync_handle_too() -> None:
    seen: list[Any] = []
    sleeper = _weather_registry(Where(seen, wait=lambda: asyncio.sleep(0.001)))
    assert _text(sleeper.handle(_call("weather", {"location": "x"}))) == "x x1"
    assert seen[-1] == ("after", False)

    async def inside_a_running_loop() -> Any:
        return sleeper.handle(_call("weather", {"location": "y"}))  # a loop of its own, in a short-lived thread

    assert _text(asyncio.run(inside_a_running_loop())) == "y x1"


# -- shipped middleware ----------------------------------------------------------------------------------------


def test_log_calls_writes_one_structured_record_per_call(caplog: pytest.LogCaptureFixture) -> None:
    registry = _weather_registry(LogCalls())
    with caplog.at_level(logging.INFO, logger="mcptools.calls"):
        registry.handle(_call("weather", {"location": "Paris"}, request_id=3))
        registry.handle(_call("weather", {"location": 1}, request_id=4))
    first, second = [r for r in caplog.records if r.name == "mcptools.calls"]
    assert first.getMessage().startswith("tools/call weather by local: ok in ")
    assert (first.mcp_tool, first.mcp_client, first.mcp_request_id, first.mcp_outcome) == ("weather", "local", 3, "ok")  # type: ignore[attr-defined]
    assert first.mcp_duration_ms >= 0 and not hasattr(first, "mcp_arguments")  # type: ignore[attr-defined]
    assert second.mcp_outcome == "error"  # type: ignore[attr-defined]


def test_timing_keeps_counts_errors_and_durations_per_tool() -> None:
    timing = Timing()
    registry = _weather_registry(timing)
    for arguments in ({"location": "a"}, {"location": "b"}, {"location": 3}):
        registry.handle(_call("weather", arguments))
    stats = timing.stats["weather"]
    assert (stats.calls, stats.errors) == (3, 1)
    assert 0 <= stats.mean_seconds <= stats.max_seconds <= stats.total_seconds


def test_middleware_names_an_included_tool_as_the_client_called_it() -> None:
    seen: list[Any] = []
    timing = Timing()
    registry = ToolRegistry("host", middleware=[Record("outer", seen), timing])
    for prefix in ("gh_", "gl_"):
        other = ToolRegistry(f"{prefix}tools")

        @other.tool
        def issue(number: int) -> str:
            return f"#{number}"

        registry.include(other, prefix=prefix)
    registry.handle(_call("gh_issue", {"number": 1}))
    registry.handle(_call("gl_issue", {"number": 2}))
    assert [entry[2] for entry in seen if entry[1] == "before"] == ["gh_issue", "gl_issue"]
    assert sorted(timing.stats) == ["gh_issue", "gl_issue"]  # the two same-named tools counted apart


def test_rate_limit_is_a_token_bucket_per_client() -> None:
    now = [0.0]
    limit = RateLimit(2, per=1.0, clock=lambda: now[0], key=lambda call: str(call.arguments.get("location")))
    registry = _weather_registry(limit)

    def ask(who: str) -> str:
        return _text(registry.handle(_call("weather", {"location": who})))

    assert [ask("a"), ask("a")] == ["a x1", "a x1"]
    assert ask("a") == "Rate limit exceeded: at most 2 calls per 1 s; retry in 0.5 s"
    assert ask("b") == "b x1"  # another client has its own bucket
    now[0] = 0.5
    assert ask("a") == "a x1"  # one token back after half a second
    assert ask("a").startswith("Rate limit exceeded")
    now[0] = 100.0
    assert [ask("a"), ask("a")] == ["a x1", "a x1"]  # refills up to the burst only
    assert ask("a").startswith("Rate limit exceeded")


def test_rate_limit_forgets_the_least_recent_clients_beyond_its_bound() -> None:
    limit = RateLimit(1, per=60.0, max_clients=2, key=lambda call: str(call.arguments["location"]))
    registry = _weather_registry(limit)
    for who in ("a", "b", "c"):
        registry.handle(_call("weather", {"location": who}))
    assert list(limit._buckets) == ["b", "c"]
    with pytest.raises(ValueError, match="calls must be a positive int"):
        RateLimit(0)


def test_open_telemetry_spans_per_call_and_is_never_imported_by_mcptools() -> None:
    pytest.importorskip("opentelemetry.trace")
    from mcptools.middleware import OpenTelemetry

    spans: list[Any] = []

    class Span:
        def __init__(self, name: str) -> None:
            self.name = name
            self.attributes: dict[str, Any] = {}
            self.status: Any = None

        def set_attribute(self, key: str, value: Any) -> None:
            self.attributes[key] = value

        def set_status(self, status: Any) -> None:
            self.status = status

        def __enter__(self) -> Span:
            return self

        def __exit__(self, *exc: object) -> None:
            spans.append(self)

    class Tracer:
        def start_as_current_span(self, name: str) -> Span:
            return Span(name)

    class Provider:
        def get_tracer(self, *args: Any, **kwargs: Any) -> Tracer:
            return Tracer()

    registry = _weather_registry(OpenTelemetry(tracer_provider=Provider()))
    registry.handle(_call("weather", {"location": "x"}))
    registry.handle(_call("weather", {"location": 1}))
    assert [span.name for span in spans] == ["tools/call weather", "tools/call weather"]
    assert spans[0].attributes["gen_ai.tool.name"] == "weather" and spans[0].status is None
    assert spans[1].attributes["mcp.outcome"] == "error" and spans[1].status is not None

    code = "import sys, mcptools, mcptools.middleware; print(any(m.startswith('opentelemetry') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert done.stdout.strip() == "False"


# -- time limits ---------------------------------------------------------------------------------------------


def test_time_limits_cancel_async_tools_and_abandon_sync_ones(caplog: pytest.LogCaptureFixture) -> None:
    registry = ToolRegistry("limits")
    cancelled: list[bool] = []
    flags: list[bool] = []

    @registry.tool(timeout=0.1)
    async def hangs() -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise
        return "never"

    @registry.tool(timeout=0.1)
    def blocks(ctx: Context) -> str:
        time.sleep(0.5)
        flags.append(ctx.cancelled)
        return "too late"

    @registry.tool(timeout=5)
    def quick() -> str:
        return "in time"

    started = time.perf_counter()
    limit = "did not finish within its time limit of 0.1 seconds"
    assert _text(registry.handle(_call("hangs"))) == f"Tool 'hangs' {limit}"
    assert _text(registry.handle(_call("blocks"))) == f"Tool 'blocks' {limit}"
    assert time.perf_counter() - started < 0.45  # neither waited for the tool
    assert _text(registry.handle(_call("quick"))) == "in time"
    reply = asyncio.run(registry.handle_async(_call("hangs")))
    assert reply is not None and reply["result"]["isError"] is True
    assert cancelled == [True, True]
    assert "its thread cannot be stopped and is abandoned" in caplog.text
    deadline = time.monotonic() + 5
    while not flags and time.monotonic() < deadline:
        time.sleep(0.02)
    assert flags == [True]  # the abandoned sync tool was told, through its Context


@pytest.mark.parametrize("bad", [0, -1, float("inf"), "30", True])
def test_a_time_limit_must_be_a_positive_number(bad: Any) -> None:
    registry = ToolRegistry("limits")

    def tool() -> str:
        return ""

    with pytest.raises(ToolDefinitionError, match=r"function .*tool: timeout must be a positive number"):
        registry.add(tool, timeout=bad)


def test_middleware_state_is_the_lifespan_state() -> None:
    from collections.abc import AsyncIterator
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[str]:
        yield "db"

    seen: list[Any] = []

    class Reads(Middleware):
        async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
            seen.append(call.state)
            return await call_next(call)

    registry = ToolRegistry("st", lifespan=lifespan, middleware=[Reads()])

    @registry.tool
    def weather() -> str:
        return "x"

    async def scenario() -> None:
        async with registry.running():
            await registry.handle_async(_call("weather"))

    asyncio.run(scenario())
    assert seen == ["db"]
