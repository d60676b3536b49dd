"""What a tool's return value becomes on the wire: content blocks, structured output, error results, and the
fields each revision defines.
"""

from __future__ import annotations

import pytest
from memory_support import MemoryClient
from protocol_support import make_registry, run

from mcptools import ToolRegistry
from mcptools._context import Context


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


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
        text = result["content"][0]["text"]
        # The output schema's number type refuses NaN/Infinity first (they are not JSON numbers).
        assert text.startswith(f"Tool '{name}' returned output that does not match its outputSchema: "), text
        assert text.endswith("must be number"), text
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "fine"}})
    assert response is not None and response["result"]["structuredContent"] == {"result": 1.5}
