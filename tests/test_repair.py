"""Opt-in repair: each repair, what is never repaired, the MCP default, and the two properties."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from provider_support import tools, values

from mcptools import ToolDefinitionError, ToolRegistry, call_tool, compile_schema, validate
from mcptools._repair import REPAIRS, could_repair, repair
from mcptools.middleware import Timing
from mcptools.providers import anthropic as p_anthropic

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "days": {"type": "integer"},
        "ratio": {"type": "number"},
        "loud": {"type": "boolean"},
        "where": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "unit": {"type": "string", "enum": ["c", "f"]},
        "level": {"enum": [1, 2]},
        "limit": {"type": "integer", "default": 5},
    },
    "required": ["days"],
    "additionalProperties": False,
}
CHECKER = compile_schema(SCHEMA)


@pytest.mark.parametrize(
    ("arguments", "repaired", "note"),
    [
        ({"days": "2"}, {"days": 2}, "note: 'days' was \"2\", read as 2"),
        ({"days": 1, "ratio": "0.5"}, {"days": 1, "ratio": 0.5}, "note: 'ratio' was \"0.5\", read as 0.5"),
        ({"days": 1, "loud": "true"}, {"days": 1, "loud": True}, "note: 'loud' was \"true\", read as true"),
        (
            {"days": 1, "where": '{"city": "Paris"}'},
            {"days": 1, "where": {"city": "Paris"}},
            'note: \'where\' was "{\\"city\\": \\"Paris\\"}", read as {"city": "Paris"}',
        ),
        ({"days": 1, "tags": "red"}, {"days": 1, "tags": ["red"]}, 'note: \'tags\' was "red", read as ["red"]'),
        ({"days": 1, "limit": None}, {"days": 1}, "note: 'limit' was null, read as absent"),
    ],
)
def test_each_repair(arguments: dict[str, Any], repaired: dict[str, Any], note: str | None) -> None:
    fixed = repair(arguments, SCHEMA, CHECKER)
    assert fixed is not None
    assert fixed[0] == repaired
    assert len(fixed[1]) == 1
    if note is not None:
        assert fixed[1] == [note]


@pytest.mark.parametrize(
    "arguments",
    [
        {"days": 1, "unit": "C"},  # an enum miss is a wrong choice, not a spelling
        {"days": 1, "level": "1"},  # an enum of numbers is not repaired from text either
        {"days": "2.5"},  # not an integer once read
        {"days": "two"},
        {"days": 1, "loud": "yes"},
        {"days": 1, "where": '{"town": "Paris"}'},  # decodes, but still invalid: nothing is repaired
        {"days": "2", "unit": "C"},  # one repair is not enough to make it valid
        {"days": None},  # required: null is not absence there
    ],
)
def test_what_is_never_repaired(arguments: dict[str, Any]) -> None:
    assert repair(arguments, SCHEMA, CHECKER) is None


def test_typed_enum_and_const_are_never_repaired() -> None:
    # What Literal[1, 2] and Literal[True] derive to: a type beside the enum/const, so text would otherwise decode.
    schema = {
        "type": "object",
        "properties": {
            "level": {"type": "integer", "enum": [1, 2]},
            "on": {"type": "boolean", "const": True},
            "ids": {"type": "array", "items": {"type": "integer"}, "enum": [[1]]},
        },
    }
    checker = compile_schema(schema)
    for arguments in ({"level": "1"}, {"on": "true"}, {"ids": "[1]"}, {"ids": 1}):
        assert repair(arguments, schema, checker) is None, arguments


def test_ambiguous_value_is_not_repaired() -> None:
    # "5" could be the integer 5 or a one-item array ["5"]: two repairs fit, so neither is made.
    schema = {"type": "object", "properties": {"x": {"type": ["integer", "array"], "items": {"type": "string"}}}}
    assert repair({"x": "5"}, schema, compile_schema(schema)) is None
    only_numbers = repair({"x": "5"}, schema, compile_schema(schema), ["number-text"])
    assert only_numbers == ({"x": 5}, ["note: 'x' was \"5\", read as 5"])


def test_json_text_of_a_string_array_is_ambiguous_with_single_item() -> None:
    # '["a"]' decodes to ["a"], and is also a fine one-item array ['["a"]']: with both repairs on, neither runs.
    assert repair({"days": 1, "tags": '["a"]'}, SCHEMA, CHECKER) is None
    fixed = repair({"days": 1, "tags": '["a"]'}, SCHEMA, CHECKER, ["json-text"])
    assert fixed is not None and fixed[0] == {"days": 1, "tags": ["a"]}


def test_a_tool_no_enabled_repair_can_reach_skips_the_walk() -> None:
    weather = {"type": "object", "properties": {"location": {"type": "string"}, "days": {"type": "integer"}}}
    assert not could_repair(weather, frozenset({"json-text"}))  # the MCP default has nowhere to act
    assert could_repair(weather, frozenset({"number-text"}))
    nested = {"type": "object", "properties": {"where": {"type": "object", "properties": {}}}}
    assert could_repair(nested, frozenset({"json-text"}))
    recursive = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    assert could_repair(recursive, frozenset({"json-text"}))
    assert could_repair(weather, frozenset({"null-absent"}))


def test_only_the_enabled_repairs_run() -> None:
    assert repair({"days": "2"}, SCHEMA, CHECKER, ["json-text"]) is None
    assert repair({"days": "2"}, SCHEMA, CHECKER, ["number-text"]) is not None


def _call(registry: ToolRegistry, arguments: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "book", "arguments": arguments}}
    answer = registry.handle(message)
    assert answer is not None
    return answer["result"]  # type: ignore[no-any-return]


def _registry(**options: Any) -> ToolRegistry:
    registry = ToolRegistry("repair", **options)

    @registry.tool
    def book(where: dict[str, str], days: int = 1) -> str:
        return f"{where['city']} for {days}"

    return registry


def test_mcp_default_decodes_json_text_only_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    registry = _registry()
    with caplog.at_level("INFO", logger="mcptools"):
        result = _call(registry, {"where": '{"city": "Oslo"}'})
    assert result["isError"] is False
    assert [c["text"] for c in result["content"]] == [
        'note: \'where\' was "{\\"city\\": \\"Oslo\\"}", read as {"city": "Oslo"}',
        "Oslo for 1",
    ]
    assert "repaired the arguments of 'book'" in caplog.text
    # The other repairs are opt-in.
    result = _call(registry, {"where": {"city": "Oslo"}, "days": "2"})
    assert result["content"][0]["text"] == "Invalid arguments: property 'days' must be integer"


def test_repair_options_on_the_registry() -> None:
    assert _call(_registry(repair=False), {"where": '{"city": "Oslo"}'})["isError"] is True
    result = _call(_registry(repair=True), {"where": {"city": "Oslo"}, "days": "2"})
    assert [c["text"] for c in result["content"]] == ["note: 'days' was \"2\", read as 2", "Oslo for 2"]
    with pytest.raises(ToolDefinitionError, match="unknown repair 'guess'"):
        ToolRegistry("r", repair=["guess"])


def test_async_handle_repairs_too() -> None:
    import asyncio

    registry = _registry(repair=True)
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "book", "arguments": {"where": {"city": "Oslo"}, "days": "3"}}}  # fmt: skip
    answer = asyncio.run(registry.handle_async(message))
    assert answer is not None
    assert [c["text"] for c in answer["result"]["content"]] == ["note: 'days' was \"3\", read as 3", "Oslo for 3"]


def test_bare_contract_never_repairs() -> None:
    registry = _registry(repair=True)
    assert validate({"where": '{"city": "Oslo"}'}, registry.tools["book"][0]) == ["property 'where' must be object"]
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "book", "arguments": {"where": '{"city": "Oslo"}'}}}  # fmt: skip
    answer = call_tool(registry.tools, request)
    assert answer["result"]["content"][0]["text"] == "Invalid arguments: property 'where' must be object"


def test_provider_run_repair_option() -> None:
    registry = _registry(repair=False)
    block = {"type": "tool_use", "id": "t", "name": "book", "input": {"where": {"city": "Oslo"}, "days": "2"}}
    assert p_anthropic.run(registry, [block])[0]["is_error"] is True
    fixed = p_anthropic.run(registry, [block], repair=["number-text"])[0]
    text = "note: 'days' was \"2\", read as 2\nOslo for 2"
    assert fixed == {"type": "tool_result", "tool_use_id": "t", "content": text}


def test_provider_run_repair_option_is_the_whole_set() -> None:
    # The docs (guides/errors.md): the provider run functions follow the registry unless given repair=; given, it
    # is the set used, so repair=False (or a list without json-text) turns off the MCP default too.
    registry = _registry()
    block = {"type": "tool_use", "id": "t", "name": "book", "input": {"where": '{"city": "Oslo"}', "days": "2"}}
    text = "Invalid arguments: property 'where' must be object; property 'days' must be integer"
    refused = {"type": "tool_result", "tool_use_id": "t", "content": text, "is_error": True}
    assert p_anthropic.run(registry, [block], repair=False) == [refused]
    assert p_anthropic.run(registry, [block], repair=["number-text"]) == [refused]
    text_only = {**block, "input": {"where": '{"city": "Oslo"}'}}
    assert p_anthropic.run(registry, [text_only], repair=False)[0]["is_error"] is True
    assert p_anthropic.run(registry, [text_only])[0]["content"].endswith("Oslo for 1")


def test_provider_run_repair_option_reaches_the_pipeline_from_inside_a_running_loop() -> None:
    # With middleware, registry.handle runs the call on a loop of its own, in a thread of its own when the caller
    # already runs a loop: the repairs run() chose go along with the call.
    registry = _registry(repair=False, middleware=[Timing()])
    block = {"type": "tool_use", "id": "t", "name": "book", "input": {"where": {"city": "Oslo"}, "days": "2"}}

    async def inside_a_loop() -> list[dict[str, Any]]:
        return p_anthropic.run(registry, [block], repair=["number-text"])

    [fixed] = asyncio.run(inside_a_loop())
    assert fixed == {
        "type": "tool_result",
        "tool_use_id": "t",
        "content": "note: 'days' was \"2\", read as 2\nOslo for 2",
    }


def test_the_docs_table_lists_every_repair() -> None:
    from pathlib import Path

    page = (Path(__file__).parent.parent / "docs" / "guides" / "errors.md").read_text(encoding="utf-8")
    section = page.split("## Repair", 1)[1].split("\n## ", 1)[0]
    for name in REPAIRS:
        assert f"| `{name}` |" in section


# -- properties ----------------------------------------------------------------------------------------------

# Full count under the ci profile, fewer under dev, as every property test here.
SETTINGS = settings(max_examples=scaled(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _mistake(value: Any) -> st.SearchStrategy[Any]:
    """The mistakes repairs are for, made to one value."""
    if isinstance(value, bool):
        return st.just(json.dumps(value))
    if isinstance(value, (int, float)):
        return st.just(json.dumps(value))
    if isinstance(value, (dict, list)):
        return st.just(json.dumps(value))
    return st.just([value])


@SETTINGS
@given(schema=tools, data=st.data())
def test_repair_never_changes_a_valid_value(schema: dict[str, Any], data: st.DataObject) -> None:
    value = data.draw(values(schema, schema))
    checker = compile_schema(schema)
    assume(checker.is_valid(value))
    assert repair(value, schema, checker) is None


@SETTINGS
@given(schema=tools, data=st.data(), mode=st.sampled_from(["one", "any"]))
def test_repair_makes_an_invalid_value_pass_only_through_single_repairs(
    schema: dict[str, Any], data: st.DataObject, mode: Literal["one", "any"]
) -> None:
    checker = compile_schema(schema)
    value = data.draw(values(schema, schema))
    assume(checker.is_valid(value) and value)
    if mode == "one":
        # One mistake in a valid value: repaired, it is the value the model meant.
        key = data.draw(st.sampled_from(sorted(value)))
        broken = {**value, key: data.draw(_mistake(value[key]))}
    else:
        # Anything at all in one argument.
        key = data.draw(st.sampled_from(sorted(value)))
        scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=4)
        anything = st.recursive(
            scalars | st.sampled_from(["1", "true", "[]", "{}", '{"x": 1}', "[1]"]),
            lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner, max_size=2),
            max_leaves=4,
        )
        broken = {**value, key: data.draw(anything)}
    assume(not checker.is_valid(broken))
    for name in REPAIRS:
        # The per-tool precheck that lets invalid calls skip the walk never rules out a repair that applies.
        if repair(broken, schema, checker, [name]) is not None:
            assert could_repair(schema, frozenset({name}))
    fixed = repair(broken, schema, checker)
    if fixed is None:
        return
    repaired, notes = fixed
    assert checker.is_valid(repaired)
    assert notes and all(note.startswith("note: '") for note in notes)
    if mode == "one":
        assert repaired == value
        assert len(notes) == 1
    if len(notes) == 1:
        # One value was repaired, so exactly one kind of repair fits it: each kind alone, only that one works.
        assert sum(repair(broken, schema, checker, [name]) is not None for name in REPAIRS) == 1


def test_concurrent_calls_never_see_each_others_notes() -> None:
    import asyncio

    registry = ToolRegistry("concurrent", repair=True)

    @registry.tool
    async def wait(days: int, delay: float) -> str:
        await asyncio.sleep(delay)
        return f"waited {days}"

    def message(call_id: int, days: object, delay: float) -> dict[str, Any]:
        params = {"name": "wait", "arguments": {"days": days, "delay": delay}}
        return {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": params}

    async def both() -> list[Any]:
        # The repaired call is still running when the valid one finishes, and the other way round.
        return list(await asyncio.gather(
            registry.handle_async(message(1, "2", 0.05)),
            registry.handle_async(message(2, 3, 0.0)),
        ))  # fmt: skip

    repaired, plain = asyncio.run(both())
    assert [c["text"] for c in repaired["result"]["content"]] == ["note: 'days' was \"2\", read as 2", "waited 2"]
    assert [c["text"] for c in plain["result"]["content"]] == ["waited 3"]


def test_repair_reads_types_as_the_validator_does() -> None:
    # 2.0 is no integer to the validator (the contract's "integer (int only)"); repair used to call it one,
    # so it offered nothing for 2.0 where wrapping it as a one-item array makes the call valid.
    registry = ToolRegistry("r", repair=["single-item"])
    schema = {"type": "object", "properties": {"n": {"type": ["integer", "array"], "items": {"type": "number"}}},
              "required": ["n"], "additionalProperties": False}  # fmt: skip

    @registry.tool(name="count", input_schema=schema)
    def count(n: Any) -> str:
        return repr(n)

    def call(n: Any) -> list[str]:
        params = {"name": "count", "arguments": {"n": n}}
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}
        answer = registry.handle(message)
        assert answer is not None
        return [block["text"] for block in answer["result"]["content"]]

    assert call(2.0) == ["note: 'n' was 2.0, read as [2.0]", "[2.0]"]
    assert call(2) == ["2"]  # an integer is left alone
