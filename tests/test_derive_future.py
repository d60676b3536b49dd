# ruff: noqa: UP045  (Optional[...] is a spelling under test)
"""The shapes of test_derive.py again, with ``from __future__ import annotations`` (string annotations).

Every annotation below is a string until ``get_type_hints`` resolves it, including ``Required`` and
``NotRequired`` inside TypedDicts, which class creation cannot see in this mode. Classes live at module level
so their string annotations resolve; recursive classes are here too because they need it.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest
from typing_extensions import NotRequired, Required

from mcptools._convert import build_converter
from mcptools._errors import ToolDefinitionError
from mcptools._schema import Param, derive_tool
from mcptools._schema.hints import HintReader


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Total(TypedDict):
    a: int
    b: NotRequired[str]
    c: Annotated[NotRequired[bool], "flag"]


class Partial(TypedDict, total=False):
    a: int
    b: Required[str]
    c: Required[Annotated[list[int], Param(min_items=1)]]


@dataclasses.dataclass
class Line:
    sku: str
    color: Color = Color.RED
    qty: Annotated[int, Param(minimum=1)] = 1


@dataclasses.dataclass
class TreeNode:
    """A tree of numbers."""

    value: int
    children: list[TreeNode] = dataclasses.field(default_factory=list)


class Comment(TypedDict):
    text: str
    replies: NotRequired[list[Comment]]


@dataclasses.dataclass
class Person:
    name: str
    employer: Optional[Company] = None


@dataclasses.dataclass
class Company:
    name: str
    staff: list[Person]


def order(
    lines: list[Line],
    totals: Total,
    partial: Partial,
    mode: Literal["fast", "slow"] = "fast",
    color: Optional[Color] = None,
    extra: dict[str, Any] | None = None,
) -> Line:
    """Place an order.

    Parameters
    ----------
    lines : list of Line
        What to order.
    mode : str
        How fast.
    """
    return lines[0]


def test_string_annotations_derive_like_real_ones() -> None:
    schema = derive_tool(order).input_schema
    line = {
        "type": "object",
        "properties": {
            "sku": {"type": "string"},
            "color": {"type": "string", "enum": ["red", "green"], "default": "red"},
            "qty": {"type": "integer", "minimum": 1, "default": 1},
        },
        "required": ["sku"],
        "additionalProperties": False,
    }
    assert schema == {
        "type": "object",
        "properties": {
            "lines": {"type": "array", "items": line, "description": "What to order."},
            "totals": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "string"},
                    "c": {"type": "boolean", "description": "flag"},
                },
                "required": ["a"],
                "additionalProperties": False,
            },
            "partial": {
                "type": "object",
                "properties": {
                    "a": {"type": "integer"},
                    "b": {"type": "string"},
                    "c": {"type": "array", "items": {"type": "integer"}, "minItems": 1},
                },
                "required": ["b", "c"],
                "additionalProperties": False,
            },
            "mode": {
                "type": "string",
                "enum": ["fast", "slow"],
                "description": "How fast.",
                "default": "fast",
            },
            "color": {
                "anyOf": [{"type": "string", "enum": ["red", "green"]}, {"type": "null"}],
                "default": None,
            },
            "extra": {"type": ["object", "null"], "default": None},
        },
        "required": ["lines", "totals", "partial"],
        "additionalProperties": False,
    }


def test_conversion_with_string_annotations() -> None:
    convert = derive_tool(order).convert
    assert convert is not None
    out = convert(
        {
            "lines": [{"sku": "a", "color": "green"}, {"sku": "b"}],
            "totals": {"a": 1},
            "partial": {"b": "x", "c": [1]},
            "color": "red",
        }
    )
    assert out == {
        "lines": [Line("a", Color.GREEN), Line("b")],
        "totals": {"a": 1},
        "partial": {"b": "x", "c": [1]},
        "color": Color.RED,
    }


def test_recursive_dataclass_uses_defs_and_ref() -> None:
    def grow(tree: TreeNode) -> None:
        pass

    schema = derive_tool(grow).input_schema
    assert schema == {
        "type": "object",
        "properties": {"tree": {"$ref": "#/$defs/TreeNode"}},
        "required": ["tree"],
        "additionalProperties": False,
        "$defs": {
            "TreeNode": {
                "type": "object",
                "description": "A tree of numbers.",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/TreeNode"}},
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
    }


def test_recursive_typeddict_and_mutual_recursion() -> None:
    def post(comment: Comment, person: Person) -> None:
        pass

    schema = derive_tool(post).input_schema
    assert schema["properties"] == {
        "comment": {"$ref": "#/$defs/Comment"},
        "person": {"$ref": "#/$defs/Person"},
    }
    assert schema["$defs"]["Comment"]["properties"]["replies"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Comment"},
    }
    # Person -> Company -> Person: one $ref (where the cycle closes) is enough; Company stays inline.
    assert schema["$defs"]["Person"]["properties"]["employer"] == {
        "anyOf": [
            {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "staff": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
                },
                "required": ["name", "staff"],
                "additionalProperties": False,
            },
            {"type": "null"},
        ],
        "default": None,
    }
    assert set(schema["$defs"]) == {"Comment", "Person"}


def test_non_recursive_classes_stay_inline_even_when_repeated() -> None:
    def pair(a: Line, b: Line) -> None:
        pass

    schema = derive_tool(pair).input_schema
    assert "$defs" not in schema
    assert schema["properties"]["a"] == schema["properties"]["b"]
    assert schema["properties"]["a"]["type"] == "object"


def test_recursive_conversion_builds_nested_instances() -> None:
    convert = build_converter(HintReader().read(TreeNode))
    assert convert is not None
    tree = convert({"value": 1, "children": [{"value": 2, "children": [{"value": 3}]}, {"value": 4}]})
    assert tree == TreeNode(1, [TreeNode(2, [TreeNode(3)]), TreeNode(4)])
    people = build_converter(HintReader().read(Company))
    assert people is not None
    company = people({"name": "Acme", "staff": [{"name": "Ann", "employer": {"name": "Sub", "staff": []}}]})
    assert company == Company("Acme", [Person("Ann", Company("Sub", []))])


def test_recursive_typeddict_without_conversions_needs_no_converter() -> None:
    assert build_converter(HintReader().read(Comment)) is None


def test_recursive_output_schema_has_object_at_the_root() -> None:
    def make() -> TreeNode:
        return TreeNode(1)

    derived = derive_tool(make)
    assert derived.output_schema is not None
    assert derived.output_schema["type"] == "object"
    assert derived.output_schema["properties"]["children"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/TreeNode"},
    }
    assert "TreeNode" in derived.output_schema["$defs"]
    assert derived.serialize_output is not None
    assert derived.serialize_output(TreeNode(1, [TreeNode(2)])) == {
        "value": 1,
        "children": [{"value": 2, "children": []}],
    }


def test_local_names_resolve_through_localns() -> None:
    class Size(enum.Enum):
        S = "s"

    @dataclasses.dataclass
    class Shirt:
        size: Size

    def buy(shirt: Shirt, spare: Size | None = None) -> Shirt:
        return shirt

    with pytest.raises(ToolDefinitionError, match=r"its annotations cannot be resolved \(NameError: name 'Shirt'"):
        derive_tool(buy)
    derived = derive_tool(buy, localns=locals())
    assert derived.input_schema["properties"]["shirt"] == {
        "type": "object",
        "properties": {"size": {"type": "string", "const": "s"}},
        "required": ["size"],
        "additionalProperties": False,
    }
    assert derived.convert is not None
    assert derived.convert({"shirt": {"size": "s"}}) == {"shirt": Shirt(Size.S)}
    assert derived.output_schema is not None
