# ruff: noqa: UP045  (Optional[...] is a spelling under test)
"""Converters: validated JSON -> annotated Python values, compiled once per tool; and the way back for output."""

import dataclasses
from collections.abc import Sequence
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest
from derive_support import Color, Level, Pair, Point
from typing_extensions import NotRequired

from mcptools import ImageContent
from mcptools._convert import build_converter
from mcptools._schema import Param, derive_tool
from mcptools._schema.hints import HintReader
from mcptools._schema.jsonify import to_json


class Task(TypedDict):
    title: str
    color: NotRequired[Color]
    point: NotRequired[Point]


@dataclasses.dataclass
class Circle:
    kind: Literal["circle"]
    radius: float


@dataclasses.dataclass
class Square:
    kind: Literal["square"]
    side: float


def converter(annotation: Any) -> Any:
    return build_converter(HintReader().read(annotation))


@pytest.mark.parametrize(
    "annotation",
    [
        str,
        int,
        float,
        bool,
        None,
        Any,
        list[str],
        Sequence[int],
        dict[str, int],
        dict[str, list[int]],
        Literal["a", "b"],
        Optional[int],
        int | str,
        Annotated[int, Param(minimum=0)],
        Optional[list[dict[str, Any]]],
    ],
    ids=repr,
)
def test_json_shaped_types_need_no_converter(annotation: Any) -> None:
    assert converter(annotation) is None


def test_typeddict_without_converting_fields_needs_no_converter() -> None:
    class Plain(TypedDict):
        a: int
        b: NotRequired[list[str]]

    assert converter(Plain) is None
    assert converter(list[Plain]) is None


def _stable_id(value: object) -> str:
    # A set's repr follows string hashing, which differs between processes: pytest-xdist workers must all
    # name a test the same way.
    if isinstance(value, (set, frozenset)):
        return f"{type(value).__name__}({sorted(value, key=repr)!r})"
    return repr(value)


@pytest.mark.parametrize(
    ("annotation", "value", "expected"),
    [
        (Color, "green", Color.GREEN),
        (Level, 2, Level.HIGH),
        (Level, 2.0, Level.HIGH),
        (Literal[Color.RED, "other"], "red", Color.RED),
        (Literal[Color.RED, "other"], "other", "other"),
        (tuple[int, str], [1, "a"], (1, "a")),
        (tuple[int, ...], [1, 2, 3], (1, 2, 3)),
        (tuple[Color, int], ["red", 1], (Color.RED, 1)),
        (tuple[()], [], ()),
        (set[int], [1, 2], {1, 2}),
        (frozenset[str], ["a"], frozenset({"a"})),
        (set[Color], ["red", "green"], {Color.RED, Color.GREEN}),
        (list[Color], ["red", "red"], [Color.RED, Color.RED]),
        (list[tuple[int, int]], [[1, 2]], [(1, 2)]),
        (dict[str, Color], {"a": "red"}, {"a": Color.RED}),
        (dict[Color, int], {"red": 1}, {Color.RED: 1}),
        (dict[Color, Level], {"red": 1}, {Color.RED: Level.LOW}),
        (Point, {"x": 1}, Point(1)),
        (Point, {"x": 1, "y": 2}, Point(1, 2)),
        (Pair, {"left": 1, "right": "green"}, Pair(1, Color.GREEN)),
        (list[Point], [{"x": 1}, {"x": 2, "y": 3}], [Point(1), Point(2, 3)]),
        (Task, {"title": "t"}, {"title": "t"}),
        (Task, {"title": "t", "color": "red"}, {"title": "t", "color": Color.RED}),
        (Task, {"title": "t", "point": {"x": 5}}, {"title": "t", "point": Point(5)}),
        (Optional[Color], None, None),
        (Optional[Color], "red", Color.RED),
        (Point | list[Point], {"x": 1}, Point(1)),
        (Point | list[Point], [{"x": 1}], [Point(1)]),
        (Color | int, 3, 3),
        (Color | Level, "green", Color.GREEN),
        (Color | Level, 1, Level.LOW),
        (Color | Literal["auto"], "auto", "auto"),
        (Color | Literal["auto"], "red", Color.RED),
        (Circle | Square, {"kind": "square", "side": 2.0}, Square("square", 2.0)),
        (Circle | Square | None, {"kind": "circle", "radius": 1}, Circle("circle", 1)),
        (Circle | Square | None, None, None),
        (Annotated[list[Annotated[Color, "c"]], Param(min_items=1)], ["red"], [Color.RED]),
    ],
    ids=_stable_id,
)
def test_values_convert_to_annotated_types(annotation: Any, value: Any, expected: Any) -> None:
    convert = converter(annotation)
    assert convert is not None
    result = convert(value)
    assert result == expected
    assert type(result) is type(expected)


def test_conversion_builds_new_containers() -> None:
    value = {"title": "t", "color": "red"}
    result = converter(Task)(value)
    assert value == {"title": "t", "color": "red"}
    assert result is not value


def test_arguments_converter_converts_only_what_needs_it() -> None:
    def tool(name: str, color: Color, points: list[Point], level: Level = Level.LOW) -> None:
        pass

    convert = derive_tool(tool).convert
    assert convert is not None
    arguments = {"name": "n", "color": "red", "points": [{"x": 1}]}
    kwargs = convert(arguments)
    assert kwargs == {"name": "n", "color": Color.RED, "points": [Point(1)]}
    assert "level" not in kwargs  # absent stays absent: the function's own default applies
    assert arguments == {"name": "n", "color": "red", "points": [{"x": 1}]}


def test_arguments_converter_is_none_for_plain_tools() -> None:
    def tool(name: str, days: int = 1, tags: list[str] | None = None) -> None:
        pass

    assert derive_tool(tool).convert is None


def test_typed_kwargs_are_converted() -> None:
    def tool(name: str, **levels: Level) -> None:
        pass

    convert = derive_tool(tool).convert
    assert convert is not None
    assert convert({"name": "n", "a": 1, "b": 2}) == {"name": "n", "a": Level.LOW, "b": Level.HIGH}


def test_untyped_kwargs_pass_through() -> None:
    def tool(color: Color, **rest: Any) -> None:
        pass

    convert = derive_tool(tool).convert
    assert convert is not None
    assert convert({"color": "red", "x": [1]}) == {"color": Color.RED, "x": [1]}


def test_bool_and_int_choice_values_stay_apart() -> None:
    # Python merges True and 1 as dict keys; JSON does not, and neither may the converter.
    convert = converter(Literal[Color.RED, True, 1, False, 0])
    assert convert("red") is Color.RED
    assert convert(True) is True
    assert convert(False) is False
    assert type(convert(1)) is int
    assert type(convert(0)) is int


# Output: Python -> JSON.


def test_to_json_of_each_kind() -> None:
    @dataclasses.dataclass
    class Report:
        title: str
        color: Color
        note: str | None = None
        pair: tuple[int, int] = (1, 2)
        tags: frozenset[str] = frozenset()
        hidden: int = dataclasses.field(init=False, default=7)

    assert to_json(Report("r", Color.RED, tags=frozenset({"b", "a"}))) == {
        "title": "r",
        "color": "red",
        "pair": [1, 2],
        "tags": ["a", "b"],
    }
    assert to_json(Report("r", Color.RED, note="n"))["note"] == "n"  # type: ignore[index]
    assert to_json(Pair(1, Color.GREEN)) == {"left": 1, "right": "green"}
    assert to_json({Color.RED: [Level.LOW]}) == {"red": [1]}
    assert to_json({1, "a"}) in (["a", 1], [1, "a"])


@pytest.mark.parametrize(
    ("annotation", "value", "schema", "structured"),
    [
        (
            int,
            3,
            {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]},
            {"result": 3},
        ),
        (
            list[Color],
            [Color.RED],
            {
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "string", "enum": ["red", "green"]}}},
                "required": ["result"],
            },
            {"result": ["red"]},
        ),
        (
            dict[str, int],
            {"a": 1},
            {"type": "object", "additionalProperties": {"type": "integer"}},
            {"a": 1},
        ),
        (
            Point,
            Point(1, 2),
            {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                "required": ["x"],
                "additionalProperties": False,
            },
            {"x": 1, "y": 2},
        ),
        (
            Optional[Point],
            None,
            {
                "type": "object",
                "properties": {
                    "result": {
                        "anyOf": [
                            {
                                "type": "object",
                                "properties": {"x": {"type": "integer"}, "y": {"type": "integer", "default": 0}},
                                "required": ["x"],
                                "additionalProperties": False,
                            },
                            {"type": "null"},
                        ]
                    }
                },
                "required": ["result"],
            },
            {"result": None},
        ),
    ],
    ids=repr,
)
def test_output_schema_and_serializer(annotation: Any, value: Any, schema: Any, structured: Any) -> None:
    def tool() -> None:
        pass

    tool.__annotations__ = {"return": annotation}
    derived = derive_tool(tool)
    assert derived.output_schema == schema
    assert derived.serialize_output is not None
    assert derived.serialize_output(value) == structured
    assert derived.output_wrapped is (schema.get("required") == ["result"])


@pytest.mark.parametrize("annotation", [str, None, Any, ImageContent, list[ImageContent]], ids=repr)
def test_plain_content_returns_have_no_output_schema(annotation: Any) -> None:
    def tool() -> None:
        pass

    tool.__annotations__ = {"return": annotation}
    derived = derive_tool(tool)
    assert derived.output_schema is None
    assert derived.serialize_output is None


def test_no_return_annotation_has_no_output_schema() -> None:
    def tool(x: int):  # type: ignore[no-untyped-def]
        return x

    assert derive_tool(tool).output_schema is None
