"""Message details: empty property names, JSON spelling of const, propertyNames: false."""

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
