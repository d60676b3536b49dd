"""The generated typed clients at run time: what they send, what they return, and when they raise."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path
from typing import Any

import pytest
from stubgen_support import load, tool

from mcptools._stubgen import generate_stubs


def _weather_module(tmp_path: Path) -> types.ModuleType:
    weather = tool(
        "weather",
        {"location": {"type": "string"}},
        ["location"],
        outputSchema={"type": "object", "properties": {"temperature": {"type": "number"}}},
    )
    return load(generate_stubs([weather, tool("ping", {})], source="test"), tmp_path)


def test_typed_client_returns_structured_content_from_any_result_shape(tmp_module_dir: Path) -> None:
    module = _weather_module(tmp_module_dir)
    structured = {"temperature": 21.5}
    results: list[object] = [
        {"content": [], "structuredContent": structured, "isError": False},
        {"jsonrpc": "2.0", "id": 1, "result": {"structuredContent": structured}},
        types.SimpleNamespace(structuredContent=structured, isError=False, content=[]),
    ]
    sent: list[tuple[str, dict[str, Any]]] = []

    class Session:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> object:
            sent.append((name, arguments))
            return results.pop(0)

    client = module.TypedClient(Session())
    for _ in range(3):
        assert client.weather(location="Paris") == structured
    assert sent == [("weather", {"location": "Paris"})] * 3
    # Tools without an outputSchema hand back the session's own result.
    results.append("raw")
    assert client.ping() == "raw"


def test_typed_client_raises_on_error_results(tmp_module_dir: Path) -> None:
    module = _weather_module(tmp_module_dir)
    error_result = {"content": [{"type": "text", "text": "Invalid arguments: x"}], "isError": True}
    answers: list[object] = [
        error_result,
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": "Unknown tool: weather"}},
        {"content": [{"type": "text", "text": "no structure"}], "isError": False},
        types.SimpleNamespace(isError=True, content=[types.SimpleNamespace(text="boom")], structuredContent=None),
    ]

    class Session:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> object:
            return answers.pop(0)

    client = module.TypedClient(Session())
    with pytest.raises(module.ToolCallError, match="Invalid arguments: x") as caught:
        client.weather(location="Paris")
    assert caught.value.result is error_result
    with pytest.raises(module.ToolCallError, match="Unknown tool: weather"):
        client.weather(location="Paris")
    with pytest.raises(module.ToolCallError, match="no structuredContent"):
        client.weather(location="Paris")
    with pytest.raises(module.ToolCallError, match="boom"):
        client.weather(location="Paris")


def test_an_argument_named_self_is_a_keyword_like_any_other(tmp_module_dir: Path) -> None:
    tools = [
        tool("self_test", {"self": {"type": "integer"}, "arguments": {"type": "string"}}, ["self"]),
        {"name": "kv", "inputSchema": {"type": "object", "additionalProperties": {"type": "integer"}}},
    ]
    module = load(generate_stubs(tools, source="test"), tmp_module_dir)
    sent: list[tuple[str, dict[str, Any]]] = []

    class Session:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
            sent.append((name, arguments))
            return "ok"

    client = module.TypedClient(Session())
    assert client.self_test(self=1, arguments="x") == "ok"
    assert client.kv(self=2, other=3) == "ok"
    assert asyncio.run(module.AsyncTypedClient(_AsyncSession(sent)).self_test(self=4)) == "ok"
    assert sent == [
        ("self_test", {"self": 1, "arguments": "x"}),
        ("kv", {"self": 2, "other": 3}),
        ("self_test", {"self": 4}),
    ]


class _AsyncSession:
    def __init__(self, sent: list[tuple[str, dict[str, Any]]]) -> None:
        self.sent = sent

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
        self.sent.append((name, arguments))
        return "ok"


def test_async_typed_client_awaits_the_session(tmp_module_dir: Path) -> None:
    module = _weather_module(tmp_module_dir)

    class Session:
        async def call_tool(self, name: str, arguments: dict[str, Any]) -> object:
            await asyncio.sleep(0)
            return {"structuredContent": {"temperature": float(len(arguments["location"]))}}

    client = module.AsyncTypedClient(Session())
    assert asyncio.run(client.weather(location="Paris")) == {"temperature": 5.0}
    assert asyncio.run(client.call_tool("weather", {"location": "Rome"})) == {"structuredContent": {"temperature": 4.0}}
