"""The protocol engine through the in-memory client: both generations, Context, input-required rounds."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from mcptools import ToolError, ToolRegistry
from mcptools._content import AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent
from mcptools._context import Context
from mcptools._protocol.engine import Engine
from mcptools._protocol.state import StateSealer
from mcptools._transports.memory import MemoryClient

NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def make_registry() -> ToolRegistry:
    registry = ToolRegistry("engine-test", version="9.9")

    @registry.tool
    def echo(text: str) -> str:
        """Echo text."""
        return text

    @registry.tool
    async def chatty(ctx: Context) -> str:
        await ctx.debug("debug line")
        await ctx.info("info line")
        await ctx.error({"detail": "error line"}, logger="engine")
        return "done"

    @registry.tool
    async def progress(ctx: Context) -> str:
        for step in (1, 2, 3):
            await ctx.report_progress(step, 3, message=f"step {step}")
        return "ok"

    @registry.tool
    async def greet(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", NAME_FORM, key="who")
        return f"Hello, {answer.get('content', {}).get('name')}!"

    @registry.tool
    async def careless(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("Name?", NAME_FORM, key="who")
        except Exception:
            return "swallowed"
        return str(answer["action"])

    @registry.tool
    async def two_rounds(ctx: Context) -> str:
        first = await ctx.elicit("First?", NAME_FORM, key="a")
        second = await ctx.elicit("Second?", NAME_FORM, key="b")
        return f"{first['content']['name']}+{second['content']['name']}"

    @registry.tool
    async def needs_sampling(ctx: Context) -> str:
        result = await ctx.sample("hi", max_tokens=5)
        return str(result["content"]["text"])

    @registry.tool
    async def batch(ctx: Context) -> str:
        answers = await ctx.ask({"n": ctx.elicitation("Name?", NAME_FORM), "r": ctx.roots()})
        return f"{answers['n']['content']['name']} {len(answers['r']['roots'])}"

    @registry.tool
    def thread_name() -> str:
        return threading.current_thread().name

    @registry.tool
    def pixel() -> ImageContent:
        return ImageContent(b"\x89PNG", "image/png")

    @registry.tool
    def many() -> list[TextContent | AudioContent | EmbeddedResource | ResourceLink]:
        return [
            TextContent("t"),
            AudioContent(b"RIFF", "audio/wav"),
            EmbeddedResource("mem://blob", blob=b"\x00\x01", mime_type="application/octet-stream"),
            ResourceLink("file:///x", "x", mime_type="text/plain", size=3),
        ]

    @registry.tool
    def numbers(n: int) -> list[int]:
        return list(range(n))

    @registry.tool
    def refuse() -> str:
        raise ToolError("no, because of reasons")

    return registry


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 10))


# -- 2025 sessions -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("asked", "settled"),
    [
        ("2025-03-26", "2025-03-26"),
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
        ("2026-07-28", "2025-11-25"),
    ],
)
def test_initialize_negotiates_the_revision(registry: ToolRegistry, asked: str, settled: str) -> None:
    client = MemoryClient(registry)
    response = run(client.initialize(asked))
    result = response["result"]
    assert result["protocolVersion"] == settled
    assert result["serverInfo"] == {"name": "engine-test", "version": "9.9"}
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert "resultType" not in result
    assert client.session.protocol_version == settled


def test_session_results_have_no_result_type_and_ping_is_empty(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.initialize())
    assert run(client.request("ping")) == {"jsonrpc": "2.0", "id": 2, "result": {}}
    listed = run(client.request("tools/list"))["result"]
    assert "resultType" not in listed and "ttlMs" not in listed
    called = run(client.request("tools/call", {"name": "echo", "arguments": {"text": "x"}}))["result"]
    assert called == {"content": [{"type": "text", "text": "x"}], "isError": False}


def test_set_level_filters_log_messages(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.initialize())
    assert run(client.request("logging/setLevel", {"level": "error"}))["result"] == {}
    run(client.request("tools/call", {"name": "chatty"}))
    assert [n["params"] for n in client.notifications] == [
        {"level": "error", "data": {"detail": "error line"}, "logger": "engine"}
    ]
    client.notifications.clear()
    run(client.request("logging/setLevel", {"level": "debug"}))
    run(client.request("tools/call", {"name": "chatty"}))
    assert [n["params"]["level"] for n in client.notifications] == ["debug", "info", "error"]
    bad = run(client.request("logging/setLevel", {"level": "loud"}))
    assert bad["error"]["code"] == -32602


def test_progress_needs_a_token(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.initialize())
    run(client.request("tools/call", {"name": "progress"}))
    assert client.notifications == []
    run(client.request("tools/call", {"name": "progress", "_meta": {"progressToken": "tok"}}))
    assert [n["params"] for n in client.notifications] == [
        {"progressToken": "tok", "progress": step, "total": 3, "message": f"step {step}"} for step in (1, 2, 3)
    ]


def test_elicitation_is_a_request_to_the_client_in_a_session(registry: ToolRegistry) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        asked.append((method, params))
        if method == "roots/list":
            return {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}
        return {"action": "accept", "content": {"name": "Ada"}}

    client = MemoryClient(registry, capabilities={"elicitation": {}, "roots": {}}, on_request=answer)
    run(client.initialize())
    response = run(client.request("tools/call", {"name": "greet"}))
    assert response["result"]["content"][0]["text"] == "Hello, Ada!"
    assert asked[0] == ("elicitation/create", {"message": "Name?", "requestedSchema": NAME_FORM})
    both = run(client.request("tools/call", {"name": "batch"}))
    assert both["result"]["content"][0]["text"] == "Ada 2"


def test_a_missing_client_capability_is_error_32021(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    run(client.initialize())
    response = run(client.request("tools/call", {"name": "needs_sampling"}))
    assert response["error"]["code"] == -32021
    assert response["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}
    stateless = run(client.stateless("tools/call", {"name": "needs_sampling"}, capabilities={}))
    assert stateless["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_a_client_error_reply_becomes_a_tool_failure(registry: ToolRegistry) -> None:
    async def refuse(method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("user closed the dialog")

    client = MemoryClient(registry, capabilities={"elicitation": {}}, on_request=refuse)
    run(client.initialize())
    result = run(client.request("tools/call", {"name": "greet"}))["result"]
    assert result["isError"] is True
    assert "ClientRequestError" in result["content"][0]["text"]


def test_cancellation_stops_the_call_and_sends_no_response() -> None:
    registry = ToolRegistry("cancel")
    seen: list[str] = []

    @registry.tool
    async def slow(ctx: Context) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            seen.append(f"cancelled={ctx.cancelled}")
            raise
        return "finished"

    async def scenario() -> Any:
        client = MemoryClient(registry)
        await client.initialize()
        call = asyncio.ensure_future(client.request("tools/call", {"name": "slow"}, request_id="r1"))
        await asyncio.sleep(0.05)
        await client.send_raw(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "r1", "reason": "x"},
            }
        )
        return await call

    assert run(scenario()) is None
    assert seen == ["cancelled=True"]


def test_sync_tools_run_off_the_event_loop_thread(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)

    async def scenario() -> tuple[str, Any]:
        response = await client.stateless("tools/call", {"name": "thread_name"})
        return threading.current_thread().name, response

    loop_thread, response = run(scenario())
    assert response["result"]["content"][0]["text"] != loop_thread


# -- 2026-07-28 stateless requests ---------------------------------------------------------------------


def test_discover(registry: ToolRegistry) -> None:
    result = run(MemoryClient(registry).stateless("server/discover"))["result"]
    assert result["resultType"] == "complete"
    # A dual-era server names its legacy revisions too (reached through initialize), newest first.
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "engine-test", "version": "9.9"}
    assert type(result["ttlMs"]) is int and result["cacheScope"] in ("public", "private")


@pytest.mark.parametrize(
    "meta",
    [
        None,
        {},
        {"io.modelcontextprotocol/clientCapabilities": {}},
        {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        {"io.modelcontextprotocol/protocolVersion": 2026, "io.modelcontextprotocol/clientCapabilities": {}},
        {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": [],
        },
    ],
)
def test_strict_requests_need_complete_meta(registry: ToolRegistry, meta: Any) -> None:
    from mcptools._protocol.session import Session

    async def noop(message: dict[str, Any]) -> None:
        return None

    params = {} if meta is None else {"_meta": meta}
    message = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": params}
    response = run(Engine(registry).handle(message, Session(), noop, strict=True))
    assert response["id"] == 7
    assert response["error"]["code"] == -32602


def test_unsupported_revision_lists_the_supported_ones(registry: ToolRegistry) -> None:
    response = run(MemoryClient(registry).stateless("tools/list", protocol_version="2025-11-25"))
    assert response["error"]["code"] == -32022
    assert response["error"]["data"] == {
        "supported": ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"],
        "requested": "2025-11-25",
    }


@pytest.mark.parametrize("method", ["initialize", "ping", "logging/setLevel", "resources/list", "nope"])
def test_methods_the_current_revision_does_not_have(registry: ToolRegistry, method: str) -> None:
    response = run(MemoryClient(registry).stateless(method))
    assert response["error"]["code"] == -32601


def test_stateless_logs_only_when_the_request_asks(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.stateless("tools/call", {"name": "chatty"}))
    assert client.notifications == []
    run(client.stateless("tools/call", {"name": "chatty"}, log_level="info"))
    assert [n["params"]["level"] for n in client.notifications] == ["info", "error"]


def test_tools_list_pages_with_sealed_cursors(registry: ToolRegistry) -> None:
    engine = Engine(registry, page_size=4)
    client = MemoryClient(registry, engine=engine)
    names: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        params = {"cursor": cursor} if cursor is not None else {}
        result = run(client.stateless("tools/list", params))["result"]
        pages += 1
        assert result["ttlMs"] == 0 and result["cacheScope"] == "public"
        names += [tool["name"] for tool in result["tools"]]
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert names == [tool.name for tool in registry]
    assert pages == (len(names) + 3) // 4
    first = run(client.stateless("tools/list"))["result"]["nextCursor"]
    for forged in (first + "x", "not-a-cursor", 5):
        response = run(client.stateless("tools/list", {"cursor": forged}))
        assert response["error"]["code"] == -32602


def test_input_required_round_trip(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    first = run(client.stateless("tools/call", {"name": "greet"}))["result"]
    assert first["resultType"] == "input_required"
    assert first["inputRequests"] == {
        "who": {"method": "elicitation/create", "params": {"message": "Name?", "requestedSchema": NAME_FORM}}
    }
    assert type(first["requestState"]) is str
    done = run(
        client.stateless(
            "tools/call",
            {
                "name": "greet",
                "inputResponses": {"who": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": first["requestState"],
            },
        )
    )["result"]
    assert done["resultType"] == "complete"
    assert done["content"][0]["text"] == "Hello, Ada!"


def test_answers_from_earlier_rounds_travel_in_the_state(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    one = run(client.stateless("tools/call", {"name": "two_rounds"}))["result"]
    assert list(one["inputRequests"]) == ["a"]
    two = run(
        client.stateless(
            "tools/call",
            {
                "name": "two_rounds",
                "inputResponses": {"a": {"action": "accept", "content": {"name": "x"}}},
                "requestState": one["requestState"],
            },
        )
    )["result"]
    assert list(two["inputRequests"]) == ["b"]
    assert two["requestState"] != one["requestState"]
    three = run(
        client.stateless(
            "tools/call",
            {
                "name": "two_rounds",
                "inputResponses": {"b": {"action": "accept", "content": {"name": "y"}}},
                "requestState": two["requestState"],
            },
        )
    )["result"]
    assert three["content"][0]["text"] == "x+y"


def test_state_that_was_altered_or_belongs_elsewhere_is_refused(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    state = run(client.stateless("tools/call", {"name": "two_rounds"}))["result"]["requestState"]
    answer = {"a": {"action": "accept", "content": {"name": "x"}}}
    for params in (
        {"name": "two_rounds", "inputResponses": answer, "requestState": state + "-TAMPERED"},
        {"name": "two_rounds", "inputResponses": answer, "requestState": state[::-1]},
        {"name": "greet", "inputResponses": answer, "requestState": state},
        {"name": "two_rounds", "arguments": {"x": 1}, "inputResponses": answer, "requestState": state},
    ):
        response = run(client.stateless("tools/call", params))
        assert response["error"]["code"] == -32602, params
    other_server = MemoryClient(registry, engine=Engine(registry, sealer=StateSealer(b"another key")))
    response = run(
        other_server.stateless(
            "tools/call", {"name": "two_rounds", "requestState": state}, capabilities={"elicitation": {}}
        )
    )
    assert response["error"]["code"] == -32602


@pytest.mark.parametrize("responses", [None, 5, "x", [], {"who": 12345}, {"who": None}])
def test_input_responses_must_be_objects(registry: ToolRegistry, responses: Any) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    response = run(client.stateless("tools/call", {"name": "greet", "inputResponses": responses}))
    assert response["error"]["code"] == -32602


def test_unknown_answer_keys_are_ignored_and_missing_ones_asked_again(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    again = run(client.stateless("tools/call", {"name": "greet", "inputResponses": {"other": {"action": "cancel"}}}))
    assert again["result"]["resultType"] == "input_required"
    extra = run(
        client.stateless(
            "tools/call",
            {
                "name": "greet",
                "inputResponses": {
                    "who": {"action": "accept", "content": {"name": "Bo"}},
                    "junk": {"action": "accept"},
                },
            },
        )
    )
    assert extra["result"]["content"][0]["text"] == "Hello, Bo!"


def test_several_questions_in_one_round(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}, "roots": {}})
    first = run(client.stateless("tools/call", {"name": "batch"}))["result"]
    assert {k: v["method"] for k, v in first["inputRequests"].items()} == {
        "n": "elicitation/create",
        "r": "roots/list",
    }


# -- results beyond text -------------------------------------------------------------------------------


def test_content_blocks(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    image = run(client.stateless("tools/call", {"name": "pixel"}))["result"]
    assert image["content"] == [{"type": "image", "data": "iVBORw==", "mimeType": "image/png"}]
    blocks = run(client.stateless("tools/call", {"name": "many"}))["result"]["content"]
    assert blocks == [
        {"type": "text", "text": "t"},
        {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
        {
            "type": "resource",
            "resource": {"uri": "mem://blob", "mimeType": "application/octet-stream", "blob": "AAE="},
        },
        {"type": "resource_link", "uri": "file:///x", "name": "x", "mimeType": "text/plain", "size": 3},
    ]


def test_structured_output_with_its_json_text(registry: ToolRegistry) -> None:
    tool = registry.get("numbers")
    assert tool is not None and tool.output_schema is not None
    listing = run(MemoryClient(registry).stateless("tools/list"))["result"]["tools"]
    assert next(t for t in listing if t["name"] == "numbers")["outputSchema"] == tool.output_schema
    result = run(MemoryClient(registry).stateless("tools/call", {"name": "numbers", "arguments": {"n": 3}}))
    assert result["result"]["structuredContent"] == {"result": [0, 1, 2]}
    assert result["result"]["content"] == [{"type": "text", "text": "[0, 1, 2]"}]


def test_output_that_breaks_its_schema_is_an_error_result() -> None:
    registry = ToolRegistry("liar")

    @registry.tool
    def lies() -> int:
        return "not an int"  # type: ignore[return-value]

    result = run(MemoryClient(registry).stateless("tools/call", {"name": "lies"}))["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("Tool 'lies' returned output that does not match its outputSchema")


def test_tool_error_text_reaches_the_model(registry: ToolRegistry) -> None:
    result = run(MemoryClient(registry).stateless("tools/call", {"name": "refuse"}))["result"]
    assert result == {
        "resultType": "complete",
        "content": [{"type": "text", "text": "no, because of reasons"}],
        "isError": True,
    }


def test_sync_handle_serves_context_tools_and_discover(registry: ToolRegistry) -> None:
    assert registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "progress"}}) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"resultType": "complete", "content": [{"type": "text", "text": "ok"}], "isError": False},
    }
    discover = registry.handle({"jsonrpc": "2.0", "id": 2, "method": "server/discover"})
    assert discover is not None and discover["result"]["supportedVersions"] == [
        "2026-07-28",
        "2025-11-25",
        "2025-06-18",
        "2025-03-26",
    ]
    init = registry.handle(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}},
        }
    )
    assert init is not None and init["result"]["protocolVersion"] == "2025-06-18"


def test_the_oldest_revision_gets_no_fields_it_does_not_define(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.initialize("2025-03-26"))
    tools = run(client.request("tools/list"))["result"]["tools"]
    assert all("outputSchema" not in tool and "title" not in tool for tool in tools)
    numbers = run(client.request("tools/call", {"name": "numbers", "arguments": {"n": 2}}))["result"]
    assert numbers == {"content": [{"type": "text", "text": "[0, 1]"}], "isError": False}
    blocks = run(client.request("tools/call", {"name": "many"}))["result"]["content"]
    assert blocks[-1] == {"type": "text", "text": "x: file:///x"}
    newer = MemoryClient(registry)
    run(newer.initialize("2025-06-18"))
    assert "structuredContent" in run(newer.request("tools/call", {"name": "numbers", "arguments": {"n": 2}}))["result"]


def test_a_broad_except_in_a_tool_does_not_swallow_the_round(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, capabilities={"elicitation": {}})
    result = run(client.stateless("tools/call", {"name": "careless"}))["result"]
    assert result["resultType"] == "input_required"


# -- review: cancellation, the event loop, sessionless requests ----------------------------------------


def test_a_sync_tool_with_a_context_sees_the_cancellation_from_its_thread() -> None:
    import time

    registry = ToolRegistry("cancel-sync")
    started = threading.Event()
    saw: list[bool] = []

    @registry.tool
    def crunch(ctx: Context) -> str:
        started.set()
        deadline = time.monotonic() + 5
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        saw.append(ctx.cancelled)
        return "stopped" if ctx.cancelled else "ran out"

    async def scenario() -> Any:
        client = MemoryClient(registry)
        await client.initialize()
        pending = asyncio.ensure_future(client.request("tools/call", {"name": "crunch"}, request_id=5))
        while not started.is_set():
            await asyncio.sleep(0.005)
        await client.send_raw({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        response = await pending
        while not saw:  # the thread cannot be stopped, only told: wait for it to notice
            await asyncio.sleep(0.005)
        return response

    assert run(scenario()) is None
    assert saw == [True]


def test_a_sync_tool_through_handle_async_leaves_the_loop_free() -> None:
    # The tool waits for the loop to flip an event: were it run on the loop, the loop could never do it.
    registry = ToolRegistry("loop")
    flipped = threading.Event()

    @registry.tool
    def wait_for_the_loop() -> str:
        return "free" if flipped.wait(timeout=5) else "blocked"

    async def flip_soon() -> None:
        await asyncio.sleep(0.02)
        flipped.set()

    async def scenario() -> Any:
        flipper = asyncio.ensure_future(flip_soon())
        response = await registry.handle_async(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait_for_the_loop"}}
        )
        await flipper
        return response

    assert run(scenario())["result"]["content"][0]["text"] == "free"


def test_sessionless_requests_share_nothing(registry: ToolRegistry) -> None:
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {"sampling": {}}},
    }
    for _ in range(2):
        assert registry.handle(init)["result"]["protocolVersion"] == "2025-06-18"  # type: ignore[index]
        listed = registry.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": None}})
        assert listed is not None and listed["result"]["resultType"] == "complete"  # not a 2025 session
        level = registry.handle({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": {"level": "x"}})
        assert level is not None and level["error"]["code"] == -32601


@pytest.mark.parametrize(
    ("meta", "words"),
    [
        ({}, "'io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientCapabilities'"),
        ({"io.modelcontextprotocol/protocolVersion": "2026-07-28"}, "missing 'io.modelcontextprotocol/clientCap"),
        ({"io.modelcontextprotocol/clientCapabilities": {}}, "missing 'io.modelcontextprotocol/protocolVersion'"),
    ],
)
def test_missing_meta_keys_are_named(registry: ToolRegistry, meta: dict[str, Any], words: str) -> None:
    from mcptools._protocol.session import Session

    async def noop(message: dict[str, Any]) -> None:
        return None

    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "_meta": meta}}
    response = run(Engine(registry).handle(message, Session(), noop, strict=True))
    assert response["error"]["code"] == -32602
    assert words in response["error"]["message"]


def test_tools_list_pages_in_a_2025_session_too(registry: ToolRegistry) -> None:
    client = MemoryClient(registry, engine=Engine(registry, page_size=5))
    run(client.initialize("2025-06-18"))
    first = run(client.request("tools/list"))["result"]
    assert len(first["tools"]) == 5 and "ttlMs" not in first
    second = run(client.request("tools/list", {"cursor": first["nextCursor"]}))["result"]
    assert [t["name"] for t in first["tools"] + second["tools"]][:10] == [t.name for t in registry][:10]
    state_as_cursor = run(client.request("tools/list", {"cursor": first["nextCursor"] + "A"}))
    assert state_as_cursor["error"]["code"] == -32602


def test_a_second_initialize_on_a_session_is_refused_and_changes_nothing(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)
    run(client.initialize("2025-06-18"))
    again = run(client.request("initialize", {"protocolVersion": "2025-03-26", "capabilities": {}}))
    assert again["error"]["code"] == -32600
    assert "already initialized (at 2025-06-18)" in again["error"]["message"]
    assert client.session.protocol_version == "2025-06-18"


def test_a_call_the_transport_abandons_is_cancelled_for_the_tool_too() -> None:
    # A stateless HTTP client that disconnects: the transport cancels the handling task, not the client.
    import time

    registry = ToolRegistry("abandon")
    started = threading.Event()
    saw: list[bool] = []

    @registry.tool
    def crunch(ctx: Context) -> str:
        started.set()
        deadline = time.monotonic() + 5
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        saw.append(ctx.cancelled)
        return "done"

    async def scenario() -> None:
        client = MemoryClient(registry)
        handling = asyncio.ensure_future(client.stateless("tools/call", {"name": "crunch"}))
        while not started.is_set():
            await asyncio.sleep(0.005)
        handling.cancel()
        with pytest.raises(asyncio.CancelledError):
            await handling
        while not saw:
            await asyncio.sleep(0.005)

    run(scenario())
    assert saw == [True]


def test_non_finite_numbers_in_tool_output_are_an_output_error_not_invalid_json() -> None:
    registry = ToolRegistry("nan")

    @registry.tool
    def not_a_number() -> float:
        return float("nan")

    @registry.tool
    def unbounded() -> dict[str, float]:
        return {"a": 1.0, "b": float("inf")}

    @registry.tool
    async def negative_unbounded(ctx: Context) -> list[float]:
        return [float("-inf")]

    @registry.tool
    def fine() -> float:
        return 1.5

    for name in ("not_a_number", "unbounded", "negative_unbounded"):
        response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name}})
        assert response is not None
        result = response["result"]
        assert result["isError"] is True and "structuredContent" not in result
        assert result["content"][0]["text"].startswith(f"Tool '{name}' returned a non-finite number (NaN or Infinity)")
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fine"}})
    assert response is not None and response["result"]["structuredContent"] == {"result": 1.5}


def test_a_rerun_after_input_required_does_not_repeat_progress_or_logs() -> None:
    registry = ToolRegistry("rerun")

    @registry.tool
    async def survey(ctx: Context) -> str:
        await ctx.report_progress(0, 2)
        await ctx.info("starting")
        first = await ctx.elicit("Name?", NAME_FORM)
        await ctx.report_progress(1, 2)
        await ctx.info("asked once")
        second = await ctx.elicit("Again?", NAME_FORM)
        await ctx.report_progress(2, 2)
        await ctx.info("done")
        return str(first["content"]["name"]) + str(second["content"]["name"])

    client = MemoryClient(registry, capabilities={"elicitation": {}})

    def round_trip(params: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, Any]]]:
        client.notifications.clear()
        body = {"name": "survey", **params}
        response = run(client.stateless("tools/call", body, log_level="info", meta={"progressToken": "t"}))
        assert response is not None
        sent = [
            ("progress", n["params"]["progress"])
            if n["method"] == "notifications/progress"
            else ("log", n["params"]["data"])
            for n in client.notifications
        ]
        return response["result"], sent

    answer = {"action": "accept", "content": {"name": "A"}}
    one, sent_one = round_trip({})
    assert sent_one == [("progress", 0), ("log", "starting")]
    two, sent_two = round_trip({"inputResponses": {"elicit_1": answer}, "requestState": one["requestState"]})
    assert sent_two == [("progress", 1), ("log", "asked once")]
    three, sent_three = round_trip({"inputResponses": {"elicit_2": answer}, "requestState": two["requestState"]})
    assert sent_three == [("progress", 2), ("log", "done")]
    assert three["content"][0]["text"] == "AA"
    # A fresh call (no requestState) is a new chain: everything is sent again.
    _, sent_again = round_trip({})
    assert sent_again == [("progress", 0), ("log", "starting")]


def test_arguments_nested_3000_deep_get_clean_results_through_registry_handle() -> None:
    # Transports refuse such messages at decoding (-32700); a caller handing registry.handle the decoded
    # object directly must still get an answer, never an exception.
    registry = ToolRegistry("deep")

    @registry.tool
    def echo(x: Any) -> dict[str, Any]:
        return {"x": x}

    @registry.tool
    def typed(x: list[Any]) -> int:
        return len(x)

    deep: Any = []
    for _ in range(3000):
        deep = [deep]
    for name, expected in (("echo", "returned output nested too deeply to send as JSON"), ("typed", "1")):
        response = registry.handle(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": {"x": deep}}}
        )
        assert response is not None
        assert expected in response["result"]["content"][0]["text"]
