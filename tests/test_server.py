"""registry.handle: the JSON-RPC envelope, the method table, and never raising."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import ToolRegistry


@pytest.fixture
def registry() -> ToolRegistry:
    registry = ToolRegistry("s")

    @registry.tool(title="Echo", annotations={"readOnlyHint": True})
    def echo(text: str, times: int = 1) -> str:
        """Repeat some text."""
        return text * times

    return registry


def invalid_request(request_id: Any = None) -> dict[str, Any]:
    response = {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32600}}
    return response


@pytest.mark.parametrize(
    "message",
    [
        None,
        [],
        [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
        "ping",
        42,
        {},
        {"jsonrpc": "2.0", "id": 1},
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1, "method": 5},
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        {"jsonrpc": "2.0", "id": 1.5, "method": "ping"},
        {"jsonrpc": "2.0", "id": True, "method": "ping"},
        {"jsonrpc": "2.0", "id": [1], "method": "ping"},
    ],
)
def test_messages_that_are_not_requests_get_invalid_request(registry: ToolRegistry, message: Any) -> None:
    response = registry.handle(message)
    assert response is not None
    assert response["error"]["code"] == -32600
    assert response["jsonrpc"] == "2.0"
    expected_id = message.get("id") if isinstance(message, dict) and type(message.get("id")) in (str, int) else None
    assert response["id"] == expected_id


def test_ping(registry: ToolRegistry) -> None:
    assert registry.handle({"jsonrpc": "2.0", "id": "p", "method": "ping"}) == {
        "jsonrpc": "2.0",
        "id": "p",
        "result": {"resultType": "complete"},
    }


def test_unknown_method(registry: ToolRegistry) -> None:
    response = registry.handle({"jsonrpc": "2.0", "id": 9, "method": "resources/list"})
    error = {"code": -32601, "message": "Method not found: resources/list"}
    assert response == {"jsonrpc": "2.0", "id": 9, "error": error}


def test_notifications_and_responses_get_no_answer(registry: ToolRegistry) -> None:
    assert registry.handle({"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert registry.handle({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "echo"}}) is None
    assert registry.handle({"jsonrpc": "2.0", "id": 4, "result": {}}) is None
    assert registry.handle({"jsonrpc": "2.0", "id": 4, "error": {"code": 1, "message": "x"}}) is None


@pytest.mark.parametrize("params", [[], "x", 1, True])
def test_params_of_the_wrong_shape(registry: ToolRegistry, params: Any) -> None:
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params})
    assert response is not None and response["error"]["code"] == -32602


@pytest.mark.parametrize("name", [None, 3, ["echo"]])
def test_tools_call_name_must_be_a_string(registry: ToolRegistry, name: Any) -> None:
    params: dict[str, Any] = {"arguments": {}}
    if name is not None:
        params["name"] = name
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    assert response is not None
    assert response["error"] == {"code": -32602, "message": "Invalid params: 'name' must be a string"}


def test_tools_list(registry: ToolRegistry) -> None:
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response is not None
    result = response["result"]
    assert result["resultType"] == "complete"
    [entry] = result["tools"]
    assert entry["name"] == "echo"
    assert entry["title"] == "Echo"
    assert entry["description"] == "Repeat some text."
    assert entry["annotations"] == {"readOnlyHint": True}
    assert entry["inputSchema"]["required"] == ["text"]
    assert entry["inputSchema"]["additionalProperties"] is False
    # Editing a response must not edit the registry.
    entry["inputSchema"]["required"].append("oops")
    again = registry.handle({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert again is not None and again["result"]["tools"][0]["inputSchema"]["required"] == ["text"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


def envelopes() -> st.SearchStrategy[Any]:
    method = st.sampled_from(["tools/call", "tools/list", "ping", "nope", ""]) | json_values
    params = (
        st.fixed_dictionaries(
            {}, optional={"name": st.sampled_from(["echo", "missing"]) | json_values, "arguments": json_values}
        )
        | json_values
    )
    message = st.fixed_dictionaries(
        {},
        optional={
            "jsonrpc": st.just("2.0") | json_values,
            "id": st.integers() | st.text(max_size=4) | json_values,
            "method": method,
            "params": params,
        },
    )
    return message | json_values


@settings(max_examples=scaled(400), deadline=None)
@given(envelopes())
def test_handle_never_raises_and_always_answers_requests(message: Any) -> None:
    registry = ToolRegistry("fuzz")
    calls: list[tuple[str, int]] = []

    @registry.tool
    def echo(text: str, times: int = 1) -> str:
        assert isinstance(text, str) and type(times) is int
        calls.append((text, times))
        return text * times

    response = registry.handle(message)
    if response is None:
        assert isinstance(message, dict) and message.get("jsonrpc") == "2.0"
        assert "id" not in message or "method" not in message
        return
    assert response["jsonrpc"] == "2.0"
    assert ("result" in response) != ("error" in response)
    assert type(response["id"]) in (str, int) or response["id"] is None
    if "error" in response:
        assert response["error"]["code"] in (-32600, -32601, -32602)
        assert calls == []
