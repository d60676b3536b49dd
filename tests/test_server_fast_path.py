"""The sync fast path in registry.handle answers exactly as the protocol engine would.

handle() skips the engine for tools/call requests that need nothing from it (2025-style requests without
_meta, and plain 2026-07-28 requests). These tests hold the two answers equal, so the shortcut can never
change what a client sees.
"""

from __future__ import annotations

from typing import Any, TypedDict

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import ToolError, ToolRegistry
from mcptools._protocol.engine import engine_for

META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


class Forecast(TypedDict):
    city: str
    days: int


def build() -> ToolRegistry:
    registry = ToolRegistry("fast")

    @registry.tool
    def text(city: str, days: int = 1) -> str:
        return f"{city} x{days}"

    @registry.tool
    def structured(city: str, days: int = 1) -> Forecast:
        return {"city": city, "days": days}

    @registry.tool
    def number(days: int) -> int:
        return days * 2

    @registry.tool
    def refuses(city: str) -> str:
        raise ToolError(f"no data for {city}")

    @registry.tool
    def crashes(city: str) -> str:
        raise ValueError("internal detail")

    return registry


REGISTRY = build()
ENGINE = engine_for(REGISTRY)

values = st.none() | st.booleans() | st.integers(-3, 3) | st.text(max_size=3) | st.lists(st.integers(), max_size=2)
arguments = st.dictionaries(st.sampled_from(["city", "days", "other"]), values, max_size=3)
metas = st.sampled_from(
    [
        META,
        {**META, "io.modelcontextprotocol/protocolVersion": "1999-01-01"},
        {**META, "io.modelcontextprotocol/logLevel": "debug"},
        {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
        {**META, "io.modelcontextprotocol/clientCapabilities": []},
        {**META, "progressToken": 5},
    ]
)


@settings(max_examples=scaled(300), deadline=None)
@given(
    name=st.sampled_from(["text", "structured", "number", "refuses", "crashes", "missing"]),
    args=arguments,
    meta=metas,
)
def test_fast_path_and_engine_give_the_same_answer(name: str, args: dict[str, Any], meta: dict[str, Any]) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": name, "arguments": args, "_meta": meta},
    }
    assert REGISTRY.handle(message) == ENGINE.handle_sync(message)


def test_a_plain_2026_call_is_answered_with_the_contract_shape() -> None:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "text", "arguments": {"city": "Paris", "days": "two"}, "_meta": META},
    }
    assert REGISTRY.handle(message) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "Invalid arguments: property 'days' must be integer"}],
            "isError": True,
        },
    }
