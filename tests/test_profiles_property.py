"""Profiles are exact, reversible transforms, checked on random derived tools and random values.

For each profile: every value the original schema accepts has a provider-shaped form the exported schema
accepts, and mapping it back gives a value the original accepts; and every value the exported schema accepts
maps back onto a value the original accepts.
"""

from __future__ import annotations

from typing import Any, Literal

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from provider_support import tools, values

from mcptools import ToolRegistry, compile_schema, validate
from mcptools._profiles import Exported, export_schema


def as_json_schema(node: Any) -> Any:
    """Gemini's OpenAPI-flavoured subset read as JSON Schema, so the exported schema can judge values."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            out["type"] = value.lower()
        elif key == "properties":
            out[key] = {k: as_json_schema(v) for k, v in value.items()}
        elif key == "items" or key == "additionalProperties":
            out[key] = as_json_schema(value)
        elif key == "anyOf":
            out[key] = [as_json_schema(v) for v in value]
        elif key != "nullable":
            out[key] = value
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def provider_schema(exported: Exported) -> dict[str, Any]:
    return as_json_schema(exported.schema) if exported.profile == "gemini" else exported.schema


# Full count under the ci profile, fewer under dev, as every property test here.
SETTINGS = settings(max_examples=scaled(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _round_trip(profile: str, data: st.DataObject, schema: dict[str, Any]) -> None:
    exported = export_schema(schema, profile, tool="random_tool")
    checker = compile_schema(provider_schema(exported))
    value = data.draw(values(schema, schema))
    assume(validate(value, schema) == [])
    shaped = exported.to_provider(value)
    assert checker.errors(shaped) == []
    back = exported.from_provider(shaped)
    assert validate(back, schema) == []
    provider_value = data.draw(values(provider_schema(exported), provider_schema(exported)))
    assume(checker.is_valid(provider_value))
    assert validate(exported.from_provider(provider_value), schema) == []


@SETTINGS
@given(schema=tools, data=st.data())
def test_openai_profile_round_trip(schema: dict[str, Any], data: st.DataObject) -> None:
    _round_trip("openai", data, schema)


@SETTINGS
@given(schema=tools, data=st.data())
def test_gemini_profile_round_trip(schema: dict[str, Any], data: st.DataObject) -> None:
    _round_trip("gemini", data, schema)


@SETTINGS
@given(schema=tools, data=st.data())
def test_anthropic_profile_round_trip(schema: dict[str, Any], data: st.DataObject) -> None:
    exported = export_schema(schema, "anthropic", tool="random_tool")
    assert exported.schema == schema
    value = data.draw(values(schema, schema))
    assert exported.from_provider(exported.to_provider(value)) == value


def test_null_for_an_optional_means_absent_so_the_default_applies() -> None:
    registry = ToolRegistry("defaults", profile="openai")

    @registry.tool
    def greet(name: str, greeting: str = "Hello", extra: str | None = "!") -> str:
        return f"{greeting}, {name}{extra}"

    listed = registry.list_tools()[0]["inputSchema"]
    assert listed["required"] == ["name", "greeting", "extra"]
    assert registry.get("greet").input_schema["required"] == ["name"]  # type: ignore[union-attr]
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    answer = registry.handle({**call, "params": {"name": "greet", "arguments": {"name": "Ann", "greeting": None}}})
    assert answer is not None and answer["result"]["content"][0]["text"] == "Hello, Ann!"
    # A property whose own schema takes null keeps its null: it is a value, not an absence.
    answer = registry.handle({**call, "params": {"name": "greet", "arguments": {"name": "Ann", "extra": None}}})
    assert answer is not None and answer["result"]["content"][0]["text"] == "Hello, AnnNone"


def test_gemini_profile_for_mcp_is_json_schema() -> None:
    registry = ToolRegistry("picky", profile="gemini")

    @registry.tool
    def pick(mode: Literal["a", "b"], level: Literal[1, 2] = 1, note: str | None = None) -> str:
        return f"{mode} {level} {note}"

    listed = registry.list_tools()[0]["inputSchema"]
    assert listed["type"] == "object"
    assert listed["properties"]["mode"] == {"type": "string", "enum": ["a", "b"]}
    assert listed["properties"]["note"]["type"] == ["string", "null"]
    assert "enum: [1, 2]" in listed["properties"]["level"]["description"]
    checker = compile_schema(listed)
    assert checker.is_valid({"mode": "a", "note": None}) and not checker.is_valid({"mode": "c"})
    params = {"name": "pick", "arguments": {"mode": "b", "level": 3}}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
    answer = registry.handle(call)
    assert answer is not None
    assert answer["result"]["content"][0]["text"] == "Invalid arguments: property 'level' must be one of [1, 2]"
