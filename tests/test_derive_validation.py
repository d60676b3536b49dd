# ruff: noqa: UP045  (Optional[...] is a spelling under test)
"""Derived schemas against the real validator: they compile, accept what the types allow, reject the rest.

The round-trip property ties the three pieces together: any Python value of an annotated type, turned into JSON
(``to_json``), must pass the derived schema and convert back to an equal Python value.
"""

import dataclasses
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest
from derive_support import Color, Level, Pair, Point
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from typing_extensions import NotRequired

from mcptools._convert import build_converter
from mcptools._schema import Param, derive_tool
from mcptools._schema.emit import SchemaEmitter
from mcptools._schema.hints import HintReader
from mcptools._schema.jsonify import to_json
from mcptools._validation import compile_schema


class Task(TypedDict):
    title: str
    level: Level
    color: NotRequired[Color]
    tags: NotRequired[frozenset[str]]


@dataclasses.dataclass
class Shape:
    name: Literal["a", "b"]
    points: list[Point]
    pair: Optional[Pair] = None


@dataclasses.dataclass
class Circle:
    kind: Literal["circle"]
    radius: int


@dataclasses.dataclass
class Square:
    kind: Literal["square"]
    side: int


def weather(
    location: Annotated[str, Param(min_length=1)],
    days: Annotated[int, Param(minimum=1, maximum=16)] = 1,
    units: Literal["c", "f"] = "c",
    color: Color | None = None,
    point: Point | None = None,
    pair: tuple[int, str] | None = None,
    tags: set[str] | None = None,
) -> None:
    pass


VALIDATOR = compile_schema(derive_tool(weather).input_schema)


@pytest.mark.parametrize(
    "arguments",
    [
        {"location": "Paris"},
        {"location": "Paris", "days": 16, "units": "f", "color": "red"},
        {"location": "P", "color": None, "point": {"x": 1}, "pair": [1, "a"], "tags": ["a", "b"]},
    ],
)
def test_valid_arguments_pass(arguments: dict[str, Any]) -> None:
    assert VALIDATOR.errors(arguments) == []


@pytest.mark.parametrize(
    ("arguments", "errors"),
    [
        ({}, ["missing required property 'location'"]),
        ({"location": 3}, ["property 'location' must be string"]),
        ({"location": "Paris", "days": True}, ["property 'days' must be integer"]),
        ({"location": "Paris", "days": 2.5, "units": "k", "x": 1}, None),
        ({"location": "Paris", "point": {"x": "1"}}, None),
        ({"location": "Paris", "point": {"x": 1, "z": 2}}, None),
        ({"location": "Paris", "pair": [1, "a", 3]}, None),
        ({"location": "Paris", "pair": ["a", 1]}, None),
        ({"location": "Paris", "tags": ["a", "a"]}, None),
        ({"location": "Paris", "color": "blue"}, None),
        ({"location": ""}, None),
        ({"location": "Paris", "days": 17}, None),
    ],
)
def test_invalid_arguments_fail(arguments: dict[str, Any], errors: list[str] | None) -> None:
    found = VALIDATOR.errors(arguments)
    assert found
    if errors is not None:
        assert found == errors


def test_contract_example_messages_with_a_derived_schema() -> None:
    def forecast(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> None:
        pass

    validator = compile_schema(derive_tool(forecast).input_schema)
    assert validator.errors({"days": 2.5, "units": "k", "x": 1}) == [
        "missing required property 'location'",
        "property 'days' must be integer",
        "property 'units' must be one of ['c', 'f']",
        "unexpected property 'x'",
    ]


def test_recursive_schema_compiles_and_validates_deeply() -> None:
    from test_derive_future import TreeNode

    def grow(tree: TreeNode) -> None:
        pass

    validator = compile_schema(derive_tool(grow).input_schema)
    assert validator.errors({"tree": {"value": 1, "children": [{"value": 2, "children": []}]}}) == []
    assert validator.errors({"tree": {"value": 1, "children": [{"value": "x"}]}}) != []


ROUND_TRIP_TYPES: list[Any] = [
    int,
    str,
    bool,
    Color,
    Level,
    list[Color],
    tuple[int, Color],
    tuple[str, ...],
    set[int],
    frozenset[Color],
    dict[str, Level],
    dict[Color, int],
    Optional[Color],
    Point,
    Pair,
    Task,
    Shape,
    list[Shape],
    Circle | Square,
    Optional[Circle | Square],
    Literal["x", "y"] | Color,
]


@pytest.mark.parametrize("annotation", ROUND_TRIP_TYPES, ids=repr)
@settings(max_examples=scaled(40), deadline=None)
@given(data=st.data())
def test_python_value_to_json_validates_and_converts_back(annotation: Any, data: st.DataObject) -> None:
    node = HintReader().read(annotation)
    emitter = SchemaEmitter([node])
    validator = compile_schema(emitter.finish(emitter.emit(node)))
    convert = build_converter(node)
    value = data.draw(st.from_type(annotation))
    encoded = to_json(value)
    assert validator.errors(encoded) == []
    decoded = convert(encoded) if convert is not None else encoded
    assert decoded == value
    assert type(decoded) is type(value)


@pytest.mark.parametrize("annotation", ROUND_TRIP_TYPES, ids=repr)
def test_derived_schemas_compile(annotation: Any) -> None:
    def tool(x: Any) -> Any:
        pass

    tool.__annotations__ = {"x": annotation, "return": annotation}
    derived = derive_tool(tool)
    compile_schema(derived.input_schema)
    if derived.output_schema is not None:
        assert derived.output_schema["type"] == "object"
        compile_schema(derived.output_schema)


HASHABLE_LEAVES: list[Any] = [int, str, bool, Color, Level, Literal["a", "b"], Literal[1, True]]
LEAVES: list[Any] = [*HASHABLE_LEAVES, Point, Pair, Task]


def _grow(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    hashable = st.sampled_from(HASHABLE_LEAVES)
    return st.one_of(
        children.map(lambda t: list[t]),  # type: ignore[valid-type]
        children.map(lambda t: tuple[t, ...]),  # type: ignore[valid-type]
        st.tuples(children, children).map(lambda ts: tuple[ts[0], ts[1]]),  # type: ignore[valid-type]
        children.map(lambda t: dict[str, t]),  # type: ignore[valid-type]
        children.map(lambda t: Optional[t]),
        hashable.map(lambda t: frozenset[t]),  # type: ignore[valid-type]
        hashable.map(lambda t: dict[Color, t]),  # type: ignore[valid-type]
        children.map(lambda t: Annotated[t, "described"]),
    )


annotations = st.recursive(st.sampled_from(LEAVES), _grow, max_leaves=6)


@settings(max_examples=scaled(150), deadline=None)
@given(annotation=annotations, data=st.data())
def test_random_type_trees_round_trip(annotation: Any, data: st.DataObject) -> None:
    def tool(x: Any) -> None:
        pass

    tool.__annotations__ = {"x": annotation, "return": annotation}
    derived = derive_tool(tool)
    validator = compile_schema(derived.input_schema)
    value = data.draw(st.from_type(annotation))
    arguments = {"x": to_json(value)}
    assert validator.errors(arguments) == []
    kwargs = derived.convert(arguments) if derived.convert is not None else arguments
    assert kwargs == {"x": value}
    assert type(kwargs["x"]) is type(value)
    # The same value returned by the tool is valid structured content for the derived outputSchema.
    assert derived.output_schema is not None
    assert derived.serialize_output is not None
    structured = derived.serialize_output(value)
    assert compile_schema(derived.output_schema).errors(structured) == []
    assert structured == ({"result": arguments["x"]} if derived.output_wrapped else arguments["x"])
