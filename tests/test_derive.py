# ruff: noqa: UP007, UP045  (Optional[...] and Union[...] are spellings under test)
"""derive_tool: exact input schemas for each supported type, defaults, descriptions, Annotated/Param.

This module deliberately does NOT use ``from __future__ import annotations``; test_derive_future.py defines
the same shapes with string annotations and checks they derive to the same schemas. How a callable's
signature (``**kwargs``, an injected Context, partials, methods) shapes the schema is in
test_derive_signatures.py.
"""

import dataclasses
import enum
import typing
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple, NewType, Optional, TypedDict, Union

import pytest
import typing_extensions
from typing_extensions import NotRequired, Required

from mcptools import ToolDefinitionError
from mcptools._schema import Param, derive_tool


def schema_of(annotation: Any, **extra: Any) -> dict[str, Any]:
    """The property schema derived for one required parameter ``x: annotation``."""

    def tool(x: Any) -> None:
        pass

    tool.__annotations__ = {"x": annotation}
    derived = derive_tool(tool)
    assert derived.input_schema["required"] == ["x"]
    assert derived.input_schema["additionalProperties"] is False
    prop: dict[str, Any] = derived.input_schema["properties"]["x"]
    return prop


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Point(TypedDict):
    x: int
    y: int


@dataclasses.dataclass
class Box:
    width: float
    label: str = "box"


class Pair(NamedTuple):
    left: int
    right: str = "r"


UserId = NewType("UserId", int)


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (None, {"type": "null"}),
        (type(None), {"type": "null"}),
        (Any, {}),
        (object, {}),
        (UserId, {"type": "integer"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list, {"type": "array"}),
        (Sequence[str], {"type": "array", "items": {"type": "string"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "items": False,
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (tuple[()], {"type": "array", "maxItems": 0}),
        (typing.Tuple[()], {"type": "array", "maxItems": 0}),  # noqa: UP006
        (typing.Tuple, {"type": "array"}),  # noqa: UP006
        (tuple, {"type": "array"}),
        (typing.List[int], {"type": "array", "items": {"type": "integer"}}),  # noqa: UP006
        (typing.Dict[str, bool], {"type": "object", "additionalProperties": {"type": "boolean"}}),  # noqa: UP006
        (typing.FrozenSet[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),  # noqa: UP006
        (set, {"type": "array", "uniqueItems": True}),
        (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
        (frozenset[int], {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (dict[str, Any], {"type": "object"}),
        (dict, {"type": "object"}),
        (
            Mapping[str, list[str]],
            {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        ),
        (
            dict[Literal["a", "b"], int],
            {
                "type": "object",
                "propertyNames": {"type": "string", "enum": ["a", "b"]},
                "additionalProperties": {"type": "integer"},
            },
        ),
        (Literal["c", "f"], {"type": "string", "enum": ["c", "f"]}),
        (Literal["only"], {"type": "string", "const": "only"}),
        (Literal[1, 2, 3], {"type": "integer", "enum": [1, 2, 3]}),
        (Literal[True], {"type": "boolean", "const": True}),
        (Literal["a", 1], {"type": ["string", "integer"], "enum": ["a", 1]}),
        (Literal["a", None], {"type": ["string", "null"], "enum": ["a", None]}),
        (Color, {"type": "string", "enum": ["red", "green"]}),
        (Level, {"type": "integer", "enum": [1, 2]}),
        (Literal[Color.RED], {"type": "string", "const": "red"}),
        (Optional[int], {"type": ["integer", "null"]}),
        (Union[int, str], {"type": ["integer", "string"]}),
        (int | str | None, {"type": ["integer", "string", "null"]}),
        (Union[int, float], {"type": "number"}),
        (Optional[list[int]], {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]}),
        (Optional[Color], {"anyOf": [{"type": "string", "enum": ["red", "green"]}, {"type": "null"}]}),
        (Optional[Any], {}),
        (
            Point,
            {
                "type": "object",
                "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                "required": ["x", "y"],
                "additionalProperties": False,
            },
        ),
        (
            Box,
            {
                "type": "object",
                "properties": {"width": {"type": "number"}, "label": {"type": "string", "default": "box"}},
                "required": ["width"],
                "additionalProperties": False,
            },
        ),
        (
            Pair,
            {
                "type": "object",
                "properties": {"left": {"type": "integer"}, "right": {"type": "string", "default": "r"}},
                "required": ["left"],
                "additionalProperties": False,
            },
        ),
        (
            list[Point],
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "integer"}, "y": {"type": "integer"}},
                    "required": ["x", "y"],
                    "additionalProperties": False,
                },
            },
        ),
    ],
    ids=repr,
)
def test_type_maps_to_exact_schema(annotation: Any, expected: dict[str, Any]) -> None:
    assert schema_of(annotation) == expected


def test_basic_tool_schema_defaults_and_docstring() -> None:
    def weather(
        location: str,
        days: int = 1,
        units: Literal["c", "f"] = "c",
        verbose: bool = False,
        note: Optional[str] = None,
    ) -> str:
        """Get the weather forecast.

        Uses the public forecast service.

        Args:
            location: The city,
                for example Paris.
            days: How many days to forecast.
        """
        return location

    derived = derive_tool(weather)
    assert derived.input_schema == {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "The city, for example Paris."},
            "days": {"type": "integer", "description": "How many days to forecast.", "default": 1},
            "units": {"type": "string", "enum": ["c", "f"], "default": "c"},
            "verbose": {"type": "boolean", "default": False},
            "note": {"type": ["string", "null"], "default": None},
        },
        "required": ["location"],
        "additionalProperties": False,
    }
    assert derived.description == "Get the weather forecast.\n\nUses the public forecast service."
    assert derived.convert is None
    assert derived.context_param is None
    assert derived.output_schema is None
    assert derived.serialize_output is None


def test_no_parameters_and_no_docstring() -> None:
    def ping() -> str:
        return "pong"

    derived = derive_tool(ping)
    assert derived.input_schema == {"type": "object", "properties": {}, "additionalProperties": False}
    assert derived.description is None


# typing_extensions 4.13 brought PEP 728 and stopped reading ``x: int = None`` as Optional[int] on Python 3.10.
needs_typing_extensions_4_13 = pytest.mark.skipif(
    not hasattr(typing_extensions, "NoExtraItems"), reason="typing_extensions < 4.13"
)


def test_default_not_of_the_type_is_a_definition_error() -> None:
    # (x: int = None is not one: it means int | None, as both peers read it; see test_derive_lenient.py.)
    def wrong_type(limit: int = "ten") -> None:  # type: ignore[assignment]
        pass

    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(wrong_type)
    message = str(info.value)
    assert "parameter 'limit' defaults to" in message and wrong_type.__qualname__ in message
    assert "annotation does not accept" in message and "'| None'" in message


def test_default_that_breaks_its_own_constraints_is_a_definition_error() -> None:
    def tool(days: Annotated[int, Param(minimum=1)] = 0) -> None:
        pass

    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(tool)
    message = str(info.value)
    assert "parameter 'days' defaults to 0" in message
    assert "must be >= 1" in message and "Param(...)" in message


def test_a_non_json_default_is_simply_not_published() -> None:
    sentinel = object()

    def tool(marker: Any = sentinel) -> None:
        pass

    assert "default" not in derive_tool(tool).input_schema["properties"]["marker"]


def test_enum_default_is_published_as_its_value() -> None:
    def tool(color: Color = Color.GREEN, level: Level = Level.HIGH) -> None:
        pass

    props = derive_tool(tool).input_schema["properties"]
    assert props["color"]["default"] == "green"
    assert props["level"]["default"] == 2
    assert type(props["level"]["default"]) is int


def test_container_defaults_become_json() -> None:
    def tool(
        pair: tuple[int, int] = (1, 2),
        tags: frozenset[str] = frozenset({"b", "a"}),
        box: Box = Box(2.0),  # noqa: B008 - a frozen-looking default, published as its JSON form
        anything: Any = object(),  # noqa: B008 - not JSON, so not published
    ) -> None:
        pass

    props = derive_tool(tool).input_schema["properties"]
    assert props["pair"]["default"] == [1, 2]
    assert props["tags"]["default"] == ["a", "b"]
    assert props["box"]["default"] == {"width": 2.0, "label": "box"}
    assert "default" not in props["anything"]


def test_annotated_text_and_param_constraints() -> None:
    def tool(
        city: Annotated[str, "The city name"],
        days: Annotated[int, Param("How many days", minimum=1, maximum=16)] = 3,
        code: Annotated[str, Param(min_length=2, max_length=3, pattern="^[A-Z]+$", format="iso-3166")] = "FR",
        ratio: Annotated[float, Param(exclusive_minimum=0, exclusive_maximum=1, multiple_of=0.25)] = 0.5,
        tags: Annotated[list[str], Param(min_items=1, max_items=5, unique_items=True, examples=[["a"]])] = ["a"],  # noqa: B006
        extra: Annotated[dict[str, int], Param(min_properties=1, max_properties=2, title="Extra")] = {"a": 1},  # noqa: B006
        old: Annotated[bool, Param(deprecated=True)] = False,
    ) -> None:
        """Do it.

        Args:
            city: Ignored because Annotated has a description.
            old: Old flag.
        """

    props = derive_tool(tool).input_schema["properties"]
    assert props["city"] == {"type": "string", "description": "The city name"}
    assert props["days"] == {
        "type": "integer",
        "description": "How many days",
        "minimum": 1,
        "maximum": 16,
        "default": 3,
    }
    assert props["code"] == {
        "type": "string",
        "minLength": 2,
        "maxLength": 3,
        "pattern": "^[A-Z]+$",
        "format": "iso-3166",
        "default": "FR",
    }
    assert props["ratio"] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 1,
        "multipleOf": 0.25,
        "default": 0.5,
    }
    assert props["tags"] == {
        "type": "array",
        "items": {"type": "string"},
        "minItems": 1,
        "maxItems": 5,
        "uniqueItems": True,
        "examples": [["a"]],
        "default": ["a"],
    }
    assert props["extra"] == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "title": "Extra",
        "minProperties": 1,
        "maxProperties": 2,
        "default": {"a": 1},
    }
    assert props["old"] == {
        "type": "boolean",
        "deprecated": True,
        "description": "Old flag.",
        "default": False,
    }


def test_annotated_nested_inside_containers_and_fields() -> None:
    class Item(TypedDict):
        name: Annotated[str, Param("Item name", min_length=1)]
        qty: NotRequired[Annotated[int, Param(minimum=0)]]

    def tool(items: list[Annotated[Item, "One line of the order"]]) -> None:
        pass

    prop = derive_tool(tool).input_schema["properties"]["items"]
    assert prop == {
        "type": "array",
        "items": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "Item name", "minLength": 1},
                "qty": {"type": "integer", "minimum": 0},
            },
            "required": ["name"],
            "additionalProperties": False,
            "description": "One line of the order",
        },
    }


def test_optional_with_constraint_keeps_type_list() -> None:
    assert schema_of(Annotated[Optional[int], Param(minimum=0)]) == {
        "type": ["integer", "null"],
        "minimum": 0,
    }
    assert schema_of(Optional[Annotated[str, "text"]]) == {
        "anyOf": [{"type": "string", "description": "text"}, {"type": "null"}]
    }


def test_typeddict_required_and_not_required() -> None:
    class Partial(TypedDict, total=False):
        a: int
        b: Required[str]

    class Full(TypedDict):
        c: int
        d: NotRequired[str]

    class Child(Partial):
        e: bool

    assert schema_of(Partial)["required"] == ["b"]
    assert schema_of(Full)["required"] == ["c"]
    child = schema_of(Child)
    assert list(child["properties"]) == ["a", "b", "e"]
    assert child["required"] == ["b", "e"]


def test_dataclass_fields_init_false_classvar_and_factory() -> None:
    @dataclasses.dataclass
    class Settings:
        name: str
        tags: list[str] = dataclasses.field(default_factory=list)
        computed: int = dataclasses.field(init=False, default=0)

    assert schema_of(Settings) == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["name"],
        "additionalProperties": False,
    }


def test_class_docstrings_describe_objects_and_fields() -> None:
    @dataclasses.dataclass
    class Address:
        """A postal address.

        Attributes:
            street: Street and number.
            city: The city.
        """

        street: str
        city: Annotated[str, "City name (Annotated wins)"]

    class Mood(enum.Enum):
        """How the user feels."""

        HAPPY = "happy"

    assert schema_of(Address) == {
        "type": "object",
        "description": "A postal address.",
        "properties": {
            "street": {"type": "string", "description": "Street and number."},
            "city": {"type": "string", "description": "City name (Annotated wins)"},
        },
        "required": ["street", "city"],
        "additionalProperties": False,
    }
    assert schema_of(Mood) == {"type": "string", "const": "happy", "description": "How the user feels."}


def test_generic_dataclass_is_specialised() -> None:
    from typing import Generic, TypeVar

    T = TypeVar("T")

    @dataclasses.dataclass
    class Wrapper(Generic[T]):
        value: T
        values: list[T]

    assert schema_of(Wrapper[int])["properties"] == {
        "value": {"type": "integer"},
        "values": {"type": "array", "items": {"type": "integer"}},
    }
    assert schema_of(Wrapper)["properties"] == {"value": {}, "values": {"type": "array"}}


@needs_typing_extensions_4_13
def test_open_typeddict_with_extra_items() -> None:
    from typing_extensions import TypedDict as OpenableTypedDict

    class Labels(OpenableTypedDict, extra_items=Color):  # type: ignore[call-arg]
        name: str

    assert schema_of(Labels) == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": {"type": "string", "enum": ["red", "green"]},
    }

    def tool(labels: Labels) -> None:
        pass

    convert = derive_tool(tool).convert
    assert convert is not None
    assert convert({"labels": {"name": "n", "a": "red"}}) == {"labels": {"name": "n", "a": Color.RED}}


def test_a_redundant_outer_none_around_an_optional_is_dropped() -> None:
    """Found by the round-trip fuzz: Optional[Annotated[Optional[Color], ...]] made null ambiguous."""

    def tool(c: Optional[Annotated[Optional[Color], "described"]] = None) -> None:
        pass

    derived = derive_tool(tool)
    assert derived.input_schema["properties"]["c"] == {
        "anyOf": [{"type": "string", "enum": [member.value for member in Color]}, {"type": "null"}],
        "description": "described",
        "default": None,
    }
    assert derived.convert is not None
    assert derived.convert({"c": None}) == {"c": None}
