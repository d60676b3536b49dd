"""JSON semantics, not Python's: bools are not numbers, 2.0 is not an integer, enum compares as JSON does."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools import validate
from mcptools._json import is_json_type, json_equal


def schema_of(prop: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": {"x": prop}}


@pytest.mark.parametrize(
    ("type_name", "value", "ok"),
    [
        ("boolean", True, True),
        ("boolean", 1, False),
        ("boolean", 0, False),
        ("integer", 2, True),
        ("integer", 2.0, False),
        ("integer", True, False),
        ("integer", False, False),
        ("number", 2, True),
        ("number", 2.5, True),
        ("number", True, False),
        ("number", "2", False),
        ("string", "", True),
        ("string", 1, False),
        ("array", [], True),
        ("array", {}, False),
        ("object", {}, True),
        ("object", [], False),
        ("object", None, False),
    ],
)
def test_type_keyword_uses_json_types(type_name: str, value: Any, ok: bool) -> None:
    errors = validate({"x": value}, schema_of({"type": type_name}))
    assert errors == ([] if ok else [f"property 'x' must be {type_name}"])
    assert is_json_type(value, type_name) is ok


@pytest.mark.parametrize(
    ("enum", "value", "ok"),
    [
        ([1, 2], True, False),  # true is not 1
        ([0], False, False),  # 0 is not false
        ([False], 0, False),
        ([True], True, True),
        ([1], 1.0, True),  # 1 equals 1.0
        ([1.0], 1, True),
        (["1"], 1, False),
        ([None], None, True),
        ([[1, True]], [1.0, True], True),
        ([[1, True]], [1, 1], False),
        ([{"a": 1}], {"a": 1.0}, True),
        ([{"a": 1}], {"a": True}, False),
    ],
)
def test_enum_compares_as_json(enum: list[Any], value: Any, ok: bool) -> None:
    errors = validate({"x": value}, schema_of({"enum": enum}))
    assert errors == ([] if ok else [f"property 'x' must be one of {enum!r}"])


def test_json_equal_is_symmetric_on_mixed_values() -> None:
    pairs = [(1, True), (0, False), (1, 1.0), ("a", "a"), ([1], [True]), ({"k": 0}, {"k": False})]
    for a, b in pairs:
        assert json_equal(a, b) == json_equal(b, a)


def test_at_most_one_error_per_argument() -> None:
    schema = schema_of({"type": "integer", "enum": [1, 2]})
    assert validate({"x": "three"}, schema) == ["property 'x' must be integer"]


def test_extra_names_are_allowed_without_additional_properties_false() -> None:
    assert validate({"y": 1}, {"type": "object", "properties": {"x": {"type": "string"}}}) == []


def test_missing_required_in_required_order_then_arguments_in_their_order() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}, "c": {"type": "string"}},
        "required": ["c", "a"],
        "additionalProperties": False,
    }
    assert validate({"z": 1, "b": 2}, schema) == [
        "missing required property 'c'",
        "missing required property 'a'",
        "unexpected property 'z'",
        "property 'b' must be string",
    ]


def test_nan_and_infinity_are_not_json_numbers() -> None:
    for value in (float("nan"), float("inf"), float("-inf")):
        assert not is_json_type(value, "number")
        assert validate({"x": value}, schema_of({"type": "number"})) == ["property 'x' must be number"]


class _Str(str):
    pass


class _Dict(dict):  # type: ignore[type-arg]
    pass


def test_each_json_type_s_source_agrees_with_its_run_time_test() -> None:
    from mcptools._json import JSON_TYPE_NAMES, JSON_TYPES

    assert set(JSON_TYPES) == JSON_TYPE_NAMES
    samples: list[object] = [
        None, True, False, 0, 1, -3, 2.5, 1.0, float("nan"), float("inf"), "", "a", _Str("s"),
        [], [1], (1,), {}, {"a": 1}, _Dict(), object(), b"x",
    ]  # fmt: skip
    for name, (test, source) in JSON_TYPES.items():
        compiled = eval(f"lambda x: bool({source.format('x')})")  # the table is ours, never input
        for value in samples:
            assert compiled(value) == test(value), (name, value)
    assert JSON_TYPES["integer"][0](True) is False
    assert JSON_TYPES["number"][0](float("nan")) is False
