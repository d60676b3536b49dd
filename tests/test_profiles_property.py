"""Profiles are exact, reversible transforms, checked on random derived tools, random raw schemas and values.

For each profile, on every schema it exports:
- every value the original schema accepts either has a provider form, which the exported schema accepts and
  which maps back to exactly that value, or has none (``NOT_SENDABLE``: only OpenAI strict, for an optional
  property that takes null and is left out: the model must send it, and null is a value there);
- every value the exported schema accepts maps back onto a value with the original's names only that the original
  accepts, short of constraints the profile told the model in words, and whose provider form is the value sent
  (or, under OpenAI strict, another form of it): never a wrong value (``provider_support.MappedBack``).
"""

from __future__ import annotations

from typing import Any, Literal, Optional, Union

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from provider_support import MappedBack, raw_tools, tools, values
from typing_extensions import NotRequired, TypedDict

from mcptools import ToolDefinitionError, ToolRegistry, compile_schema, validate
from mcptools._json import json_equal
from mcptools._profiles import NOT_SENDABLE, export_schema
from mcptools.providers import openai as p_openai

# Full count under the ci profile, fewer under dev, as every property test here.
SETTINGS = settings(max_examples=scaled(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
STRICT_PROFILES = ("openai", "anthropic-strict", "gemini")


def _round_trip(profile: str, data: st.DataObject, schema: dict[str, Any]) -> None:
    try:
        exported = export_schema(schema, profile, tool="random_tool")
    except ToolDefinitionError as exc:
        assert "tool 'random_tool': keyword '" in str(exc)
        return
    provider = exported.json_schema()
    checker = compile_schema(provider)
    value = data.draw(values(schema, schema), label="original value")
    if validate(value, schema) == []:
        shaped = exported.to_provider(value)
        if shaped is NOT_SENDABLE:
            assert profile == "openai"
        else:
            assert checker.errors(shaped) == []
            assert json_equal(exported.from_provider(shaped), value)
    sent = data.draw(values(provider, provider), label="provider value")
    assume(checker.is_valid(sent))
    # Never a wrong value: equal, not only valid (the tool's value has the provider form the model sent).
    MappedBack(exported, schema, profile)(sent)


@SETTINGS
@pytest.mark.parametrize("profile", STRICT_PROFILES)
@given(schema=tools, data=st.data())
def test_derived_tools_round_trip(profile: str, schema: dict[str, Any], data: st.DataObject) -> None:
    _round_trip(profile, data, schema)


@SETTINGS
@pytest.mark.parametrize("profile", STRICT_PROFILES)
@given(schema=raw_tools, data=st.data())
def test_raw_schemas_round_trip(profile: str, schema: dict[str, Any], data: st.DataObject) -> None:
    _round_trip(profile, data, schema)


@SETTINGS
@given(schema=tools, data=st.data())
def test_anthropic_profile_is_the_schema_as_is(schema: dict[str, Any], data: st.DataObject) -> None:
    exported = export_schema(schema, "anthropic", tool="random_tool")
    assert exported.schema == schema
    value = data.draw(values(schema, schema))
    assert exported.from_provider(exported.to_provider(value)) == value


def test_an_optional_object_with_fields_left_out_arrives_exact() -> None:
    """Issue 19 A: the null->absent map followed the object the parent replaced with a nullable copy."""
    style = {"type": "object", "properties": {"texture": {"type": "string"}, "color": {"type": "string"}}}
    schema = {"type": "object", "properties": {"style": style}}
    exported = export_schema(schema, "openai", tool="chart")
    sent = {"style": {"texture": "rough", "color": None}}
    assert compile_schema(exported.schema).is_valid(sent)
    assert exported.from_provider(sent) == {"style": {"texture": "rough"}}
    assert exported.from_provider({"style": None}) == {}


class _IntPick(TypedDict):
    v: int
    w: NotRequired[int]


class _TextPick(TypedDict):
    v: str
    w: NotRequired[Optional[int]]  # noqa: UP045 (the Optional spelling is the case the review found)


def test_overlapping_union_branches_that_map_differently_are_told_apart_by_their_schemas() -> None:
    """Review of issue 19: under OpenAI strict both branches are ``{v, w: integer|null}``, so a value sent with
    ``w: null`` takes both forms; the first branch maps that null to absent, the second keeps it. Only the
    schemas tell them apart (``v`` a string is the second's), so the tool must get ``w: None`` back."""
    registry = ToolRegistry("picks")
    received: list[Any] = []

    @registry.tool
    def pick(item: Union[_IntPick, _TextPick]) -> str:  # noqa: UP007
        """Pick one."""
        received.append(item)
        return "ok"

    exported = export_schema(registry.list_tools()[0]["inputSchema"], "openai", tool="pick")
    first, second = exported.schema["properties"]["item"]["anyOf"]
    assert first["properties"]["w"] == second["properties"]["w"] == {"type": ["integer", "null"]}
    assert exported.from_provider({"item": {"v": "s", "w": None}}) == {"item": {"v": "s", "w": None}}
    assert exported.from_provider({"item": {"v": 1, "w": None}}) == {"item": {"v": 1}}
    assert exported.from_provider({"item": {"v": "s", "w": 3}}) == {"item": {"v": "s", "w": 3}}
    assert exported.to_provider({"item": {"v": "s", "w": None}}) == {"item": {"v": "s", "w": None}}
    function = {"name": "pick", "arguments": '{"item": {"v": "s", "w": null}}'}
    call = {"id": "c1", "type": "function", "function": function}
    assert p_openai.run(registry, {"tool_calls": [call]}) == [{"role": "tool", "tool_call_id": "c1", "content": "ok"}]
    assert received == [{"v": "s", "w": None}]


def test_gemini_maps_renamed_names_back_under_any_of() -> None:
    """Issue 19 B: branches were compared as "OBJECT" against JSON type names, so no rename came back."""
    stage = {"type": "object", "properties": {"$vectorSearch": {"type": "string"}}, "required": ["$vectorSearch"]}
    schema = {"type": "object", "properties": {"stage": {"anyOf": [stage, {"type": "string"}]}}}
    exported = export_schema(schema, "gemini", tool="aggregate")
    assert exported.schema["properties"]["stage"]["anyOf"][0]["properties"] == {"_vectorSearch": {"type": "STRING"}}
    assert exported.from_provider({"stage": {"_vectorSearch": "v"}}) == {"stage": {"$vectorSearch": "v"}}
    assert exported.from_provider({"stage": "text"}) == {"stage": "text"}


# Names Gemini renames ($match is _match, x-skip is x_skip, ...), none two to one name, and names it keeps.
_STAGE_NAMES = ["$match", "$limit", "$project", "x-skip", "@type", "2fa", "plain", "other"]
_stage_branches = st.lists(
    st.lists(st.sampled_from(_STAGE_NAMES), min_size=1, max_size=3, unique=True), min_size=2, max_size=4
)


@SETTINGS
@given(branches=_stage_branches, data=st.data())
def test_gemini_maps_renamed_keys_back_under_any_of_of_open_objects(branches: list[list[str]], data: Any) -> None:
    """Review of issue 19, finding 3: under ``anyOf`` of open objects without required keys (Mongo stages as
    often written), the first branch took any object, so ``_limit`` reached the tool unrenamed. A Gemini model
    sends only an object's declared properties: the branch it meant declares every key it sent."""
    stage = {"anyOf": [{"type": "object", "properties": {n: {"type": "integer"} for n in names}} for names in branches]}
    schema = {"type": "object", "properties": {"stage": stage, "pipeline": {"type": "array", "items": stage}}}
    exported = export_schema(schema, "gemini", tool="aggregate")
    sent_branches = [list(b["properties"]) for b in exported.schema["properties"]["stage"]["anyOf"]]

    def one_stage() -> tuple[dict[str, int], dict[str, int]]:
        index = data.draw(st.integers(0, len(branches) - 1))
        keys = data.draw(st.lists(st.sampled_from(range(len(branches[index]))), unique=True))
        sent = {sent_branches[index][k]: k for k in keys}
        return sent, {branches[index][k]: k for k in keys}

    stages = [one_stage() for _ in range(data.draw(st.integers(1, 3)))]
    sent = {"stage": stages[0][0], "pipeline": [provider for provider, _ in stages]}
    expected = {"stage": stages[0][1], "pipeline": [original for _, original in stages]}
    assert exported.from_provider(sent) == expected
    assert exported.to_provider(expected) == sent


def test_gemini_open_object_stages_arrive_renamed_back() -> None:
    stage = {
        "anyOf": [
            {"type": "object", "properties": {"$match": {"type": "string"}}},
            {"type": "object", "properties": {"$limit": {"type": "integer"}}},
        ]
    }
    schema = {"type": "object", "properties": {"stage": stage, "pipeline": {"type": "array", "items": stage}}}
    exported = export_schema(schema, "gemini", tool="aggregate")
    sent = {"stage": {"_limit": 5}, "pipeline": [{"_match": "x"}, {"_limit": 2}]}
    original = {"stage": {"$limit": 5}, "pipeline": [{"$match": "x"}, {"$limit": 2}]}
    assert exported.from_provider(sent) == original
    assert exported.to_provider(original) == sent


@pytest.mark.parametrize("profile", ["openai", "anthropic-strict"])
def test_strict_needs_a_type_everywhere_and_closes_objects_under_any_of(profile: str) -> None:
    """Issue 19 E: untyped nodes passed through, and an object node with anyOf was sent open."""
    for untyped in ({"description": "anything"}, {"anyOf": [{"format": "ipv4"}, {"type": "string"}]}):
        schema = {"type": "object", "properties": {"host": untyped}}
        with pytest.raises(ToolDefinitionError, match=r"needs a type for every value"):
            export_schema(schema, profile, tool="t")
    closed = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    schema = {"type": "object", "properties": {"v": {"type": "object", "anyOf": [closed, {**closed, "title": "B"}]}}}
    node = export_schema(schema, profile, tool="t").schema["properties"]["v"]
    assert "type" not in node  # the object type moved onto the branches, each closed
    objects = [branch for branch in node["anyOf"] if branch.get("type") == "object"]
    assert len(objects) == 2 and all(branch["additionalProperties"] is False for branch in objects)
    with pytest.raises(ToolDefinitionError, match=r"properties or items beside anyOf"):
        export_schema({"type": "object", "properties": {"v": {**closed, "anyOf": [closed]}}}, profile, tool="t")


def test_optional_const_under_strict_takes_null() -> None:
    schema = {"type": "object", "properties": {"mode": {"const": "fast"}}}
    exported = export_schema(schema, "openai", tool="t")
    assert compile_schema(exported.schema).is_valid({"mode": None})
    assert exported.from_provider({"mode": None}) == {}
    assert exported.schema["properties"]["mode"] == {"anyOf": [{"const": "fast", "type": "string"}, {"type": "null"}]}


@pytest.mark.parametrize("profile", STRICT_PROFILES)
def test_required_naming_a_missing_property_is_refused(profile: str) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}
    with pytest.raises(ToolDefinitionError, match=r"keyword 'required'.*names \['b'\], which have no schema"):
        export_schema(schema, profile, tool="t")


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
