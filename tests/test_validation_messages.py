"""Message details: empty and dotted property names, JSON spelling of const, propertyNames: false."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools._validation import compile_schema

# The two error paths: the generated one (simple shapes) and the collectors (an allOf forces them).
PATHS = [lambda schema: schema, lambda schema: {"allOf": [schema, True]}]


@pytest.mark.parametrize("wrap", PATHS, ids=["generated", "collector"])
@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        ({"additionalProperties": {"type": "string"}}, {"": 2}, ["property '[\"\"]' must be string"]),
        (
            {"properties": {"": {"properties": {"x": {"type": "string"}}}}},
            {"": {"x": 1}},
            ["property '[\"\"].x' must be string"],
        ),
        ({"items": {"properties": {"": {"type": "string"}}}}, [{"": 1}], ["item '[0][\"\"]' must be string"]),
        ({"required": [""]}, {}, ["missing required property '[\"\"]'"]),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"": 1}, ["unexpected property '[\"\"]'"]),
        (
            {"properties": {"w": {"properties": {"": {"type": "integer"}}}}},
            {"w": {"": "x"}},
            ["property 'w[\"\"]' must be integer"],
        ),
    ],
)
def test_an_empty_property_name_is_spelt_not_confused_with_its_parent(
    wrap: Any, schema: Any, value: Any, expected: list[str]
) -> None:
    assert compile_schema(wrap(schema)).errors(value) == expected


NESTED = {"user.age": {"type": "integer"}, "user": {"properties": {"age": {"type": "integer"}}}}
SORT = {"properties": {"sort": {"properties": NESTED}}}


@pytest.mark.parametrize("wrap", PATHS, ids=["generated", "collector"])
@pytest.mark.parametrize(
    ("schema", "value", "expected"),
    [
        # A dotted key and two nested keys must not read the same.
        (SORT, {"sort": {"user.age": "x"}}, ["property 'sort[\"user.age\"]' must be integer"]),
        (SORT, {"sort": {"user": {"age": "x"}}}, ["property 'sort.user.age' must be integer"]),
        (
            {"properties": {"a": {"additionalProperties": {"type": "integer"}}}},
            {"a": {"b[0]": "x", "it's": "y", "c]": "z"}},
            [
                "property 'a[\"b[0]\"]' must be integer",
                "property 'a[\"it's\"]' must be integer",
                "property 'a[\"c]\"]' must be integer",
            ],
        ),
        (
            {"additionalProperties": {"properties": {"n": {"type": "integer"}}}},
            {"a.b": {"n": "x"}},
            ["property '[\"a.b\"].n' must be integer"],
        ),
        (
            {"properties": {"w": {"required": ["x.y"]}}},
            {"w": {}},
            ["missing required property 'w[\"x.y\"]'"],
        ),
        (
            {"properties": {"w": {"properties": {"a": {}}, "additionalProperties": False}}},
            {"w": {"q.r": 1}},
            ["unexpected property 'w[\"q.r\"]'"],
        ),
        ({"items": {"properties": {"a.b": {"type": "string"}}}}, [{"a.b": 1}], ["item '[0][\"a.b\"]' must be string"]),
        # One name alone is the contract's '<name>', whatever it holds.
        ({"properties": {"user.age": {"type": "integer"}}}, {"user.age": "x"}, ["property 'user.age' must be integer"]),
        ({"additionalProperties": {"type": "integer"}}, {"it's": "x"}, ["property 'it's' must be integer"]),
        ({"required": ["a.b"]}, {}, ["missing required property 'a.b'"]),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a[0]": 1}, ["unexpected property 'a[0]'"]),
    ],
)
def test_a_name_holding_path_punctuation_is_bracketed_below_the_top(
    wrap: Any, schema: Any, value: Any, expected: list[str]
) -> None:
    assert compile_schema(wrap(schema)).errors(value) == expected


def test_a_dispatched_object_brackets_odd_names_too() -> None:
    # Over ten properties the generated path dispatches through a table instead of an if-chain.
    properties: dict[str, Any] = {f"p{i}": {"type": "integer"} for i in range(12)}
    properties["user.age"] = {"properties": {"n": {"type": "integer"}}}
    schema = {"properties": {"sort": {"properties": properties}}}
    assert compile_schema(schema).errors({"sort": {"user.age": {"n": "x"}}}) == [
        "property 'sort[\"user.age\"].n' must be integer"
    ]


@pytest.mark.parametrize("wrap", PATHS, ids=["generated", "collector"])
@pytest.mark.parametrize(
    ("const", "value", "message"),
    [
        (None, 1, "value must be null"),
        (True, 1, "value must be true"),
        (False, 0, "value must be false"),
        ("on", "off", "value must be 'on'"),
        ({"a": None}, {}, "value must be {'a': null}"),
        ([1, True], [], "value must be [1, true]"),
    ],
)
def test_const_is_spelt_as_json(wrap: Any, const: Any, value: Any, message: str) -> None:
    assert compile_schema(wrap({"const": const})).errors(value) == [message]


def test_enum_lists_stay_python_repr_as_the_contract_says() -> None:
    assert compile_schema({"enum": [None, True, "a"]}).errors(1) == ["value must be one of [None, True, 'a']"]


def test_property_names_false_reads_as_an_unexpected_property() -> None:
    checker = compile_schema({"propertyNames": False})
    assert checker.errors({"a": 1}) == ["unexpected property 'a'"]
    named = compile_schema({"propertyNames": {"pattern": "^[a-z]+$"}})
    assert named.errors({"Ab": 1}) == ["name of property 'Ab' must match pattern '^[a-z]+$'"]
