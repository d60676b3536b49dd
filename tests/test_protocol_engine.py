"""The protocol engine through the in-memory client: 2025 sessions, 2026-07-28 stateless requests, and requests
with neither.
"""

from __future__ import annotations

from typing import Any

import pytest
from memory_support import MemoryClient
from protocol_support import NAME_FORM, make_registry, run

from mcptools import ToolRegistry
from mcptools._call import Mode
from mcptools._protocol.engine import Engine


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


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
    assert result["capabilities"]["tools"] == {"listChanged": True}
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


# -- 2026-07-28 stateless requests ---------------------------------------------------------------------


def test_discover(registry: ToolRegistry) -> None:
    result = run(MemoryClient(registry).stateless("server/discover"))["result"]
    assert result["resultType"] == "complete"
    # A dual-era server names its legacy revisions too (reached through initialize), newest first.
    assert result["supportedVersions"] == ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]
    # Changes reach a 2026-07-28 client on its subscriptions/listen stream (test_protocol_listen.py).
    assert result["capabilities"]["tools"] == {"listChanged": True}
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
    response = run(Engine(registry).handle(message, Session(), mode=Mode.STATELESS))
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


# -- requests with neither a session nor _meta, and more of both generations ---------------------------


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
    response = run(Engine(registry).handle(message, Session(), mode=Mode.STATELESS))
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
