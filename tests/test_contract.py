"""The contract (validate-and-call.md) word for word, through validate, call_tool and registry.handle alike."""

from __future__ import annotations

from typing import Any, Literal

import pytest

from mcptools import ToolRegistry, call_tool, validate

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["location"],
    "additionalProperties": False,
}

EXAMPLES: list[tuple[dict[str, Any], list[str]]] = [
    (
        {"days": 2.5, "units": "k", "x": 1},
        [
            "missing required property 'location'",
            "property 'days' must be integer",
            "property 'units' must be one of ['c', 'f']",
            "unexpected property 'x'",
        ],
    ),
    ({"location": "Paris", "days": 2}, []),
    ({"location": "Paris", "days": True}, ["property 'days' must be integer"]),
    ({"location": "Paris", "days": "two"}, ["property 'days' must be integer"]),
]


class Recorder:
    """A tool that remembers its calls, so a test can prove it was (not) called."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **arguments: Any) -> str:
        self.calls.append(arguments)
        return f"forecast for {arguments['location']}"


def request(arguments: dict[str, Any] | None, name: str = "weather", request_id: int = 7) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def registry_with(recorder: Recorder) -> ToolRegistry:
    registry = ToolRegistry("weather-server")

    def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
        return recorder(location=location, days=days, units=units)

    registry.add(weather, input_schema=SCHEMA)
    return registry


@pytest.mark.parametrize(("arguments", "expected"), EXAMPLES)
def test_validate_gives_the_contract_strings_in_order(arguments: dict[str, Any], expected: list[str]) -> None:
    assert validate(arguments, SCHEMA) == expected


def test_validate_is_stable_across_repeated_calls() -> None:
    for _ in range(3):
        assert validate(EXAMPLES[0][0], SCHEMA) == EXAMPLES[0][1]


@pytest.mark.parametrize(("arguments", "expected"), EXAMPLES)
def test_call_tool_and_handle_agree_with_the_contract(arguments: dict[str, Any], expected: list[str]) -> None:
    bare = Recorder()
    via_registry = Recorder()
    registry = registry_with(via_registry)
    for response, recorder in (
        (call_tool({"weather": (SCHEMA, bare)}, request(arguments)), bare),
        (registry.handle(request(arguments)), via_registry),
    ):
        if expected:
            assert response == {
                "jsonrpc": "2.0",
                "id": 7,
                "result": {
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "Invalid arguments: " + "; ".join(expected)}],
                    "isError": True,
                },
            }
            assert recorder.calls == []
        else:
            assert response == {
                "jsonrpc": "2.0",
                "id": 7,
                "result": {
                    "resultType": "complete",
                    "content": [{"type": "text", "text": "forecast for Paris"}],
                    "isError": False,
                },
            }
            assert len(recorder.calls) == 1


def test_the_contract_example_call_days_two() -> None:
    recorder = Recorder()
    response = call_tool({"weather": (SCHEMA, recorder)}, request({"location": "Paris", "days": "two"}))
    assert response["result"]["isError"] is True
    assert response["result"]["content"][0]["text"] == "Invalid arguments: property 'days' must be integer"
    assert recorder.calls == []


def test_unknown_tool_is_a_protocol_error() -> None:
    expected = {"jsonrpc": "2.0", "id": 3, "error": {"code": -32602, "message": "Unknown tool: forecast"}}
    assert call_tool({"weather": (SCHEMA, Recorder())}, request({}, name="forecast", request_id=3)) == expected
    assert registry_with(Recorder()).handle(request({}, name="forecast", request_id=3)) == expected


def test_absent_arguments_mean_an_empty_object() -> None:
    response = call_tool({"weather": (SCHEMA, Recorder())}, request(None))
    assert response["result"]["content"][0]["text"] == "Invalid arguments: missing required property 'location'"
    calls: list[dict[str, Any]] = []

    def now() -> str:
        calls.append({})
        return "tick"

    no_args = {"type": "object", "properties": {}}
    response = call_tool({"now": (no_args, now)}, request(None, name="now"))
    assert response["result"] == {
        "resultType": "complete",
        "content": [{"type": "text", "text": "tick"}],
        "isError": False,
    }
    assert calls == [{}]


def test_call_tool_returns_str_of_the_value() -> None:
    tools = {"answer": ({"type": "object"}, lambda: {"a": 1})}
    response = call_tool(tools, request(None, name="answer"))
    assert response["result"]["content"][0]["text"] == "{'a': 1}"


def test_bare_call_tool_does_not_convert_arguments() -> None:
    seen: list[Any] = []
    schema = {"type": "object", "properties": {"pair": {"type": "array"}}}

    def keep(pair: Any) -> None:
        seen.append(pair)

    call_tool({"t": (schema, keep)}, request({"pair": [1, 2]}, name="t"))
    assert seen == [[1, 2]]
    assert type(seen[0]) is list


def test_the_example_weather_tool_derives_the_contract_schema() -> None:
    """examples/weather.py is the contract's tool written with the decorator: same checks, same strings."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "examples" / "weather.py"
    spec = importlib.util.spec_from_file_location("weather_example_for_contract", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    registry: ToolRegistry = module.registry
    schema = registry.tools["weather"][0]
    stripped = {
        name: {k: v for k, v in prop.items() if k not in ("description", "default")}
        for name, prop in schema["properties"].items()
    }
    assert {**schema, "properties": stripped} == SCHEMA
    for arguments, expected in EXAMPLES:
        response = registry.handle(request(arguments))
        assert response is not None
        result = response["result"]
        assert result["isError"] is bool(expected)
        if expected:
            assert result["content"][0]["text"] == "Invalid arguments: " + "; ".join(expected)
