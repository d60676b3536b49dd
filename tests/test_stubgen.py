"""The stub generator: generated modules import, say the right types, keep the rest as notes, and are safe."""

from __future__ import annotations

import argparse
import json
import random
import types
from pathlib import Path
from typing import Any, Literal

import pytest
from stubgen_support import ROOT, hints, load, realistic_tools, tool
from typing_extensions import NotRequired

from mcptools._errors import SchemaError
from mcptools._stubgen import add_stubgen_arguments, generate_stubs, run_stubgen, stubgen_main, tools_from_json

# --- the types --------------------------------------------------------------------------------------------


def test_scalar_types_and_required_keys(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "weather",
                {
                    "location": {"type": "string"},
                    "days": {"type": "integer"},
                    "ratio": {"type": "number"},
                    "metric": {"type": "boolean"},
                    "nothing": {"type": "null"},
                    "anything": {},
                },
                ["location"],
            )
        ],
        source="test",
    )
    module = load(text, tmp_module_dir)
    arguments = module.WeatherArguments
    assert arguments.__required_keys__ == frozenset({"location"})
    assert arguments.__optional_keys__ == frozenset({"days", "ratio", "metric", "nothing", "anything"})
    assert hints(module, "WeatherArguments") == {
        "location": str,
        "days": NotRequired[int],
        "ratio": NotRequired[float],
        "metric": NotRequired[bool],
        "nothing": NotRequired[None],
        "anything": NotRequired[Any],
    }


def test_enum_and_const_become_literals_filtered_by_type(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "pick",
                {
                    "units": {"type": "string", "enum": ["c", "f"]},
                    "mixed": {"enum": ["a", 1, True, None, 2.0]},
                    "filtered": {"type": "string", "enum": ["a", 1]},
                    "fixed": {"const": "only"},
                    "odd": {"enum": ["a", 1.5, {"k": 1}]},
                },
            )
        ],
        source="test",
    )
    module = load(text, tmp_module_dir)
    found = hints(module, "PickArguments")
    assert found["units"] == NotRequired[Literal["c", "f"]]
    assert found["mixed"] == NotRequired[Literal["a", 1, True, 2] | None]
    assert found["filtered"] == NotRequired[Literal["a"]]
    assert found["fixed"] == NotRequired[Literal["only"]]
    assert found["odd"] == NotRequired[Literal["a"] | float | dict[str, Any]]
    # The Literal cannot say 1.5 or the object: the enum is kept as a note.
    assert 'enum: ["a", 1.5, {"k": 1}]' in text


def test_arrays_tuples_maps_and_unions(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "shapes",
                {
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "untyped": {"type": "array"},
                    "pair": {
                        "type": "array",
                        "prefixItems": [{"type": "integer"}, {"type": "string"}],
                        "items": False,
                    },
                    "draft7_pair": {
                        "type": "array",
                        "items": [{"type": "integer"}, {"type": "string"}],
                        "additionalItems": False,
                    },
                    "open_prefix": {"type": "array", "prefixItems": [{"type": "integer"}]},
                    "weights": {"type": "object", "additionalProperties": {"type": "number"}},
                    "free": {"type": "object"},
                    "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "one": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
                    "multi": {"type": ["string", "integer", "null"]},
                    "nullable": {"type": "string", "nullable": True},
                },
            )
        ],
        source="test",
    )
    module = load(text, tmp_module_dir)
    found = hints(module, "ShapesArguments")
    assert found["tags"] == NotRequired[list[str]]
    assert found["untyped"] == NotRequired[list[Any]]
    assert found["pair"] == NotRequired[tuple[int, str]]
    assert found["draft7_pair"] == NotRequired[tuple[int, str]]
    assert found["open_prefix"] == NotRequired[list[Any]]
    assert found["weights"] == NotRequired[dict[str, float]]
    assert found["free"] == NotRequired[dict[str, Any]]
    assert found["either"] == NotRequired[str | int]
    assert found["one"] == NotRequired[str | list[str]]
    assert found["multi"] == NotRequired[str | int | None]
    assert found["nullable"] == NotRequired[str | None]


def test_tuples_open_to_more_items_keep_their_positions_in_the_docstring(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "rows",
                {
                    "draft7_open": {"type": "array", "items": [{"type": "string"}, {"type": "integer", "minimum": 0}]},
                    "draft7_tail": {
                        "type": "array",
                        "items": [{"type": "string"}],
                        "additionalItems": {"type": "boolean"},
                    },
                    "open_prefix": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]},
                    "draft7_closed": {"type": "array", "items": [{"type": "string"}], "additionalItems": False},
                },
            )
        ],
        source="test",
    )
    found = hints(load(text, tmp_module_dir), "RowsArguments")
    assert found["draft7_open"] == NotRequired[list[Any]]
    assert found["draft7_tail"] == NotRequired[list[str | bool]]
    assert found["open_prefix"] == NotRequired[list[Any]]
    assert found["draft7_closed"] == NotRequired[tuple[str]]
    flat = " ".join(text.split())
    # Each note names the keyword the schema used (draft-07 items/additionalItems, or prefixItems).
    assert "items: the first items are str, int; more may follow, so typed as a list" in flat
    assert "items[1].minimum: 0" in flat and "prefixItems[1].minimum" not in flat
    assert "items: the first items are str; more may follow, so typed as a list" in flat
    assert "prefixItems: the first items are int, str; more may follow, so typed as a list" in flat
    assert flat.count("more may follow") == 3 * 5  # the field, and the Args of each of the four methods


def test_nested_objects_defs_and_recursion(tmp_module_dir: Path) -> None:
    schema = {
        "type": "object",
        "$defs": {
            "Node": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "next": {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]},
                },
                "required": ["value"],
            },
            "Json": {
                "anyOf": [
                    {"type": "string"},
                    {"type": "array", "items": {"$ref": "#/$defs/Json"}},
                    {"type": "object", "additionalProperties": {"$ref": "#/$defs/Json"}},
                ]
            },
        },
        "properties": {
            "head": {"$ref": "#/$defs/Node"},
            "meta": {"type": "object", "properties": {"author": {"type": "string"}}, "required": ["author"]},
            "payload": {"$ref": "#/$defs/Json"},
            "self": {"$ref": "#"},
        },
        "required": ["head"],
    }
    text = generate_stubs([{"name": "walk", "inputSchema": schema}], source="test")
    module = load(text, tmp_module_dir)
    found = hints(module, "WalkArguments")
    assert found["head"] == module.Node
    assert found["meta"] == NotRequired[module.WalkArgumentsMeta]
    assert found["self"] == NotRequired[module.WalkArguments]
    assert hints(module, "Node") == {"value": int, "next": NotRequired[module.Node | None]}
    assert hints(module, "WalkArgumentsMeta") == {"author": str}
    # A recursive non-object definition becomes a quoted (forward-referencing) alias.
    assert 'Json: TypeAlias = "str | list[Json] | dict[str, Json]"' in text


def test_objects_that_cannot_be_closed_say_so(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            {
                "name": "open",
                "inputSchema": {
                    "properties": {"a": {"type": "string"}},
                    "additionalProperties": {"type": "integer"},
                },
            },
            {"name": "anything", "inputSchema": {"type": "object", "additionalProperties": True}},
            {"name": "nothing", "inputSchema": {"type": "object", "additionalProperties": False}},
        ],
        source="test",
    )
    module = load(text, tmp_module_dir)
    assert 'additionalProperties: {"type": "integer"} (other keys are not typed)' in text
    # Listed keys stay typed (a misspelt one is caught); the docs say where the others go.
    assert hints(module, "OpenArguments") == {"a": NotRequired[str]}
    assert 'pass those with ``call_tool("open", arguments)``' in " ".join(module.TypedClient.open.__doc__.split())
    assert hints(module, "NothingArguments") == {}
    assert module.AnythingArguments == dict[str, Any]
    assert "def anything(self, /, **arguments: Any) -> _R:" in text
    assert "def nothing(self, /, **arguments: Unpack[NothingArguments]) -> _R:" in text


@pytest.mark.parametrize(
    "schema",
    [
        {},
        {"type": "object"},
        {"type": "object", "properties": {}},
        {"description": "GitLab's tools send no more than this.", "$schema": "http://json-schema.org/draft-07/schema#"},
    ],
    ids=repr,
)
def test_arguments_that_accept_anything_take_any_keyword(schema: dict[str, Any], tmp_module_dir: Path) -> None:
    # An empty TypedDict here would make every call with an argument a type error, though the tool takes any.
    text = generate_stubs([{"name": "search", "inputSchema": schema}], source="test")
    module = load(text, tmp_module_dir)
    assert module.SearchArguments == dict[str, Any]
    assert "def search(self, /, **arguments: Any) -> _R:" in text
    calls: list[tuple[str, dict[str, Any]]] = []

    class Session:
        def call_tool(self, name: str, arguments: dict[str, Any]) -> str:
            calls.append((name, arguments))
            return "done"

    assert module.TypedClient(Session()).search(project_id="42", labels=["bug"], page=None) == "done"
    assert calls == [("search", {"project_id": "42", "labels": ["bug"], "page": None})]


def test_pattern_properties_beside_properties_are_noted_once(tmp_module_dir: Path) -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string"}},
        "patternProperties": {"^y": {"type": "integer"}},
    }
    text = generate_stubs([{"name": "p", "inputSchema": schema}], source="test")
    module = load(text, tmp_module_dir)
    assert module.PArguments.__doc__ == 'patternProperties: {"^y": {"type": "integer"}} (other keys are not typed)'
    assert hints(module, "PArguments") == {"x": NotRequired[str]}


def test_constraint_keywords_are_kept_as_notes() -> None:
    text = generate_stubs(
        [
            tool(
                "constrained",
                {
                    "code": {
                        "type": "string",
                        "pattern": "^[A-Z]{3}$",
                        "minLength": 3,
                        "description": "ISO code",
                    },
                    "count": {"type": "integer", "minimum": 1, "exclusiveMaximum": 10, "multipleOf": 2},
                    "when": {"type": "string", "format": "date-time", "x-vendor": {"a": 1}},
                    "tags": {
                        "type": "array",
                        "items": {"type": "string", "maxLength": 5},
                        "uniqueItems": True,
                    },
                    "gated": {"type": "object", "not": {"required": ["x"]}},
                },
            )
        ],
        source="test",
    )
    for note in (
        'pattern: "^[A-Z]{3}$"',
        "minLength: 3",
        "minimum: 1",
        "exclusiveMaximum: 10",
        "multipleOf: 2",
        'format: "date-time"',
        'x-vendor: {"a": 1}',
        "items.maxLength: 5",
        "uniqueItems: true",
        'not: {"required": ["x"]}',
    ):
        assert note in text, note
    # The same notes reach the method docstring, next to each argument.
    assert 'code: ISO code (pattern: "^[A-Z]{3}$"; minLength: 3)' in text


def test_constraint_only_compositions_keep_the_object_and_a_note(tmp_module_dir: Path) -> None:
    # The MCP schema's own example: one of two properties must be given.
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string"}, "name": {"type": "string"}},
        "oneOf": [{"required": ["id"]}, {"required": ["name"]}],
    }
    text = generate_stubs([{"name": "find_resource", "inputSchema": schema}], source="test")
    module = load(text, tmp_module_dir)
    assert hints(module, "FindResourceArguments") == {"id": NotRequired[str], "name": NotRequired[str]}
    assert 'oneOf: [{"required": ["id"]}, {"required": ["name"]}]' in text


def test_output_schema_gives_a_result_typeddict(tmp_module_dir: Path) -> None:
    text = generate_stubs(
        [
            tool(
                "weather",
                {"location": {"type": "string"}},
                ["location"],
                outputSchema={
                    "type": "object",
                    "properties": {"temperature": {"type": "number"}, "summary": {"type": "string"}},
                    "required": ["temperature"],
                },
            )
        ],
        source="test",
    )
    module = load(text, tmp_module_dir)
    assert hints(module, "WeatherResult") == {"temperature": float, "summary": NotRequired[str]}
    assert "def weather(self, /, **arguments: Unpack[WeatherArguments]) -> WeatherResult:" in text


# --- realistic schemas ------------------------------------------------------------------------------------


def test_realistic_schemas_give_useful_types(tmp_module_dir: Path) -> None:
    text = generate_stubs(realistic_tools(), source="realistic", line_length=120)
    module = load(text, tmp_module_dir)
    # zod-to-json-schema: draft-07 tuples, const unions, a reference into properties, discriminated unions.
    search = hints(module, "SearchIssuesArguments")
    assert search["query"] is str
    assert search["sort"] == NotRequired[Literal["asc", "desc"]]
    assert search["point"] == NotRequired[tuple[float, float]]
    assert search["previous"] == search["filters"] == NotRequired[module.SearchIssuesArgumentsFilters]
    assert search["assignee"] == NotRequired[str | None]
    shape = search["shape"].__args__[0]
    circle, square = shape.__args__
    assert hints(module, circle.__name__)["kind"] == Literal["circle"]
    assert hints(module, square.__name__)["kind"] == Literal["square"]
    # Hand-written: a title, names that are not identifiers, an outputSchema with a const.
    issue = hints(module, "CreateIssueArguments")
    assert issue["x-request-id"] == NotRequired[str]
    assert issue["type"] == NotRequired[Literal["bug", "feature", "task"]]
    assert hints(module, "CreateIssueResult")["state"] == NotRequired[Literal["open"]]
    assert "def create_issue(self, /, **arguments: Unpack[CreateIssueArguments]) -> CreateIssueResult:" in text
    # draft-07 definitions, recursive, and an allOf that extends a definition.
    family = hints(module, "RegisterFamilyArguments")
    assert family["owner"] == module.Person
    assert hints(module, "Person")["children"] == NotRequired[types.GenericAlias(list, (module.Person,))]
    assert hints(module, "Address")["country"] == NotRequired[Literal["FR", "DE", "IT"]]
    extra = hints(module, family["extra"].__args__[0].__name__)
    assert set(extra) == {"street", "city", "country", "floor"}
    # pydantic: $defs with titles, anyOf-null, an enum definition as a named alias.
    forecast = hints(module, "ForecastArguments")
    assert forecast["location"] == module.Location
    assert module.Unit == Literal["c", "f"]
    assert forecast["hours"] == NotRequired[list[int] | None]
    assert hints(module, "Location")["lat"] == NotRequired[float | None]
    assert hints(module, "ForecastResult")["days"] == types.GenericAlias(list, (module.Day,))


def test_identical_definitions_are_shared_and_different_ones_are_not(tmp_module_dir: Path) -> None:
    point = {"type": "object", "properties": {"x": {"type": "number"}}}
    other = {"type": "object", "properties": {"label": {"type": "string"}}}
    tools = [
        {
            "name": "a",
            "inputSchema": {
                "type": "object",
                "$defs": {"Point": point},
                "properties": {"p": {"$ref": "#/$defs/Point"}},
            },
        },
        {
            "name": "b",
            "inputSchema": {
                "type": "object",
                "$defs": {"Point": point},
                "properties": {"p": {"$ref": "#/$defs/Point"}},
            },
        },
        {
            "name": "c",
            "inputSchema": {
                "type": "object",
                "$defs": {"Point": other},
                "properties": {"p": {"$ref": "#/$defs/Point"}},
            },
        },
    ]
    module = load(generate_stubs(tools, source="test"), tmp_module_dir)
    assert hints(module, "AArguments")["p"] == hints(module, "BArguments")["p"] == NotRequired[module.Point]
    assert hints(module, "CArguments")["p"] == NotRequired[module.Point2]
    assert set(hints(module, "Point2")) == {"label"}


def test_equal_inline_objects_in_one_tool_share_a_class(tmp_module_dir: Path) -> None:
    # The derivation inlines a dataclass each time it is used: one signature, one class per shape.
    point = {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}
    other = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    properties = {"a": point, "b": {"type": "array", "items": dict(point)}, "c": other}
    module = load(generate_stubs([tool("shapes", properties)], source="test"), tmp_module_dir)
    found = hints(module, "ShapesArguments")
    assert found["a"] == NotRequired[module.ShapesArgumentsA]
    assert found["b"] == NotRequired[types.GenericAlias(list, (module.ShapesArgumentsA,))]
    assert found["c"] == NotRequired[module.ShapesArgumentsC]


# --- determinism and format -------------------------------------------------------------------------------


def test_output_is_deterministic_whatever_the_tool_order() -> None:
    tools = realistic_tools()
    first = generate_stubs(tools, source="x")
    assert generate_stubs(tools, source="x") == first
    shuffled = tools[:]
    random.Random(7).shuffle(shuffled)
    shuffled.reverse()
    assert generate_stubs(shuffled, source="x") == first


def test_invalid_tool_lists_are_refused_with_a_reason() -> None:
    with pytest.raises(SchemaError, match="appears twice"):
        generate_stubs([{"name": "a", "inputSchema": {}}, {"name": "a", "inputSchema": {}}], source="x")
    with pytest.raises(SchemaError, match=r"tools\[0\] is not a tool"):
        generate_stubs([{"inputSchema": {}}], source="x")
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(5000):
        deep = {"type": "array", "items": deep}
    with pytest.raises(SchemaError, match="nest too deeply"):
        generate_stubs([tool("deep", {"x": deep})], source="x")


# --- loading tools and the command ------------------------------------------------------------------------


def test_saved_tools_list_in_every_shape() -> None:
    tools = [{"name": "a", "inputSchema": {"type": "object"}}]
    assert tools_from_json({"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}, "f") == tools
    assert tools_from_json({"tools": tools, "nextCursor": None}, "f") == tools
    assert tools_from_json(tools, "f") == tools
    for bad in ({"jsonrpc": "2.0", "id": 1, "error": {"code": -1}}, {"result": 1}, [1], "x"):
        with pytest.raises(ValueError.__mro__[1]):
            tools_from_json(bad, "f")


def test_command_writes_checks_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    saved = tmp_path / "tools.json"
    saved.write_text(json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"tools": realistic_tools()}}))
    output = tmp_path / "out.py"
    assert stubgen_main([str(saved), "-o", str(output)]) == 0
    assert output.read_text() == generate_stubs(realistic_tools(), source=str(saved))
    assert stubgen_main([str(saved), "-o", str(output), "--check"]) == 0
    output.write_text(output.read_text() + "# edited\n")
    assert stubgen_main([str(saved), "-o", str(output), "--check"]) == 1
    assert "out of date" in capsys.readouterr().err
    assert stubgen_main([str(saved)]) == 0
    assert capsys.readouterr().out == generate_stubs(realistic_tools(), source=str(saved))
    (tmp_path / "bad.json").write_text("{")
    assert stubgen_main([str(tmp_path / "bad.json")]) == 2
    assert "is not JSON" in capsys.readouterr().err
    assert stubgen_main([]) == 2
    assert "either TARGET or --url" in capsys.readouterr().err
    assert stubgen_main([str(tmp_path / "missing.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_command_records_a_relative_target_normalised(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    outputs = []
    for target in ("examples/weather.py", "./examples/weather.py", "examples/../examples//weather.py"):
        assert stubgen_main([target]) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].startswith('"""Typed stubs for the MCP tools of examples/weather.py.')
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]


def test_command_as_a_subcommand_of_mcptools(tmp_path: Path) -> None:
    # How mcptools' own parser wires it: add_stubgen_arguments on a subparser, run_stubgen on the result.
    parser = argparse.ArgumentParser(prog="mcptools")
    commands = parser.add_subparsers(dest="command", required=True)
    add_stubgen_arguments(commands.add_parser("stubgen"))
    output = tmp_path / "weather_tools.py"
    args = parser.parse_args(["stubgen", str(ROOT / "examples" / "weather.py"), "-o", str(output)])
    assert run_stubgen(args) == 0
    assert "class WeatherArguments(TypedDict):" in output.read_text()
    assert (
        run_stubgen(parser.parse_args(["stubgen", str(ROOT / "examples" / "weather.py"), "-o", str(output), "--check"]))
        == 0
    )
