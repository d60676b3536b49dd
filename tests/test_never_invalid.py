"""Property: whatever arguments arrive, a tool runs only when they pass validation."""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import ToolRegistry, call_tool, validate

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-5, 5) | st.sampled_from(["", "c", "f", "Paris"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["a", "b"]), children, max_size=2)
    ),
    max_leaves=8,
)
argument_objects = st.dictionaries(
    st.sampled_from(["location", "days", "units", "tags", "extra"]), json_values, max_size=5
)

WEATHER = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"type": "string", "enum": ["c", "f"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["location"],
    "additionalProperties": False,
}


def build_registry(seen: list[dict[str, Any]]) -> ToolRegistry:
    registry = ToolRegistry("prop")

    @registry.tool
    def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c", tags: list[str] | None = None) -> str:
        seen.append({"location": location, "days": days, "units": units, "tags": tags})
        return "ok"

    return registry


@settings(max_examples=scaled(300), deadline=None)
@given(argument_objects)
def test_registry_calls_the_tool_only_with_valid_arguments(arguments: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []
    registry = build_registry(seen)
    schema = registry.tools["weather"][0]
    errors = validate(arguments, schema)
    response = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": arguments}}
    )
    assert response is not None
    result = response["result"]
    if errors:
        assert seen == []
        assert result["isError"] is True
        assert result["content"][0]["text"] == "Invalid arguments: " + "; ".join(errors)
    else:
        assert len(seen) == 1 and result["isError"] is False
        call = seen[0]
        assert isinstance(call["location"], str)
        assert type(call["days"]) is int
        assert call["units"] in ("c", "f")


@settings(max_examples=scaled(300), deadline=None)
@given(argument_objects)
def test_bare_call_tool_calls_only_with_valid_arguments(arguments: dict[str, Any]) -> None:
    seen: list[dict[str, Any]] = []

    def weather(**kwargs: Any) -> str:
        seen.append(kwargs)
        return "ok"

    response = call_tool(
        {"weather": (WEATHER, weather)},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "weather", "arguments": arguments}},
    )
    errors = validate(arguments, WEATHER)
    assert response["result"]["isError"] is bool(errors)
    assert seen == ([] if errors else [arguments])
