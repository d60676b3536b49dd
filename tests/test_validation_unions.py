"""Failed unions explain themselves through the branch the value was meant for, and subschemas read as words."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools._validation import compile_schema

CAT = {
    "title": "Cat",
    "type": "object",
    "properties": {"kind": {"const": "cat"}, "meow": {"type": "boolean"}},
    "required": ["kind", "meow"],
}
DOG = {
    "title": "Dog",
    "type": "object",
    "properties": {"kind": {"const": "dog"}, "bark": {"type": "boolean"}},
    "required": ["kind", "bark"],
}
# pydantic's discriminated union: $refs in oneOf, with OpenAPI's discriminator beside it.
PYDANTIC = {
    "type": "object",
    "properties": {
        "pet": {
            "oneOf": [{"$ref": "#/$defs/Cat"}, {"$ref": "#/$defs/Dog"}],
            "discriminator": {"propertyName": "kind", "mapping": {"cat": "#/$defs/Cat", "dog": "#/$defs/Dog"}},
        }
    },
    "required": ["pet"],
    "$defs": {"Cat": CAT, "Dog": DOG},
}
# zod's discriminatedUnion: inline, untitled branches in anyOf, the tag a typed const.
ZOD = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {
        "pet": {
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "cat"}, "meow": {"type": "boolean"}},
                    "required": ["kind", "meow"],
                    "additionalProperties": False,
                },
                {
                    "type": "object",
                    "properties": {"kind": {"type": "string", "const": "dog"}, "bark": {"type": "boolean"}},
                    "required": ["kind", "bark"],
                    "additionalProperties": False,
                },
            ]
        }
    },
}
# The collector path (allOf beside the union) must choose the same way as the generated one.
SLOW = {"allOf": [PYDANTIC, {"type": "object"}], "$defs": {"Cat": CAT, "Dog": DOG}}


@pytest.mark.parametrize("schema", [PYDANTIC, ZOD, SLOW], ids=["pydantic", "zod", "collector"])
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"pet": {"kind": "cat"}}, ["missing required property 'pet.meow'"]),
        ({"pet": {"kind": "cat", "meow": 1}}, ["property 'pet.meow' must be boolean"]),
        ({"pet": {"kind": "dog", "bark": "yes"}}, ["property 'pet.bark' must be boolean"]),
        ({"pet": 5}, ["property 'pet' must be object"]),
        ({"pet": {"kind": "bird"}}, ["property 'pet.kind' must be one of ['cat', 'dog']"]),
        ({"pet": {"meow": True}}, ["missing required property 'pet.kind'"]),
    ],
)
def test_discriminated_union_reports_the_chosen_branch(schema: Any, value: Any, expected: list[str]) -> None:
    checker = compile_schema(schema)
    assert checker.errors(value) == expected
    assert not checker.is_valid(value)
    assert checker.is_valid({"pet": {"kind": "cat", "meow": True}})


def test_discriminator_property_name_narrows_which_const_decides() -> None:
    # Both branches pin 'v' to the same value: only the named discriminator 'kind' tells them apart.
    branches = [
        {"type": "object", "properties": {"kind": {"const": k}, "v": {"const": 1}, k: {"type": "string"}},
         "required": ["kind", k]}
        for k in ("a", "b")
    ]  # fmt: skip
    schema = {"oneOf": branches, "discriminator": {"propertyName": "kind"}}
    assert compile_schema(schema).errors({"kind": "b", "v": 1}) == ["missing required property 'b'"]


def test_the_branch_of_the_value_s_type_explains_itself() -> None:
    schema = {"anyOf": [{"type": "string", "minLength": 2}, {"type": "array", "items": {"type": "integer"}}]}
    assert compile_schema(schema).errors(["x"]) == ["item '[0]' must be integer"]
    assert compile_schema(schema).errors("x") == ["value must be at least 2 characters"]


def test_fewest_errors_wins_and_a_tie_lists_the_branches() -> None:
    schema = {
        "anyOf": [
            {"type": "object", "required": ["a", "b", "c", "f"]},
            {"type": "object", "required": ["d"], "properties": {"e": {"type": "string"}}},
        ]
    }
    assert compile_schema(schema).errors({"e": 1, "a": 1}) == [
        "missing required property 'd'",
        "property 'e' must be string",
    ]
    tie = {"anyOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]}
    assert compile_schema(tie).errors({}) == [
        "value must match at least one of: object that has property 'a', object that has property 'b'"
    ]


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"not": {"required": ["a"]}}, {"a": 1}, "value must not have property 'a'"),
        ({"not": {"minimum": 3}}, 5, "value must not be >= 3"),
        ({"not": {"pattern": "^a"}}, "ab", "value must not match pattern '^a'"),
        ({"anyOf": [{"minimum": 5}, {"maximum": 1}]}, 3, "value must be >= 5 or <= 1"),
        ({"anyOf": [{"type": "string"}, {"type": "string"}, {"type": "null"}]}, 1, "value must be string or null"),
        (
            {"anyOf": [{"type": "string", "minLength": 3}, {"type": "string", "pattern": "^a"}]},
            "b",
            "value must match at least one of: string that is at least 3 characters, string that matches pattern '^a'",
        ),
        (
            {"oneOf": [{"type": "object", "required": ["a"]}, {"type": "object", "required": ["b"]}]},
            {"a": 1, "b": 2},
            "value must match exactly one of: object that has property 'a', object that has property 'b' "
            "(it matches 2)",
        ),
        (
            {"oneOf": [{"properties": {"k": {"const": "x"}}}, {"properties": {"k": {"const": None}}}]},
            {},
            "value must match exactly one of: value that has 'k' = 'x', value that has 'k' = null (it matches 2)",
        ),
        (
            {"contains": {"type": "object", "required": ["id"]}},
            [{}],
            "value must contain at least 1 item that is object and has property 'id'",
        ),
    ],
)
def test_subschemas_are_described_in_words(schema: Any, value: Any, message: str) -> None:
    errors = compile_schema(schema).errors(value)
    assert errors == [message]
    assert "{" not in message


def test_no_branch_list_repeats_a_description_or_shows_a_dict() -> None:
    schema = {"oneOf": [{"type": "object"}, {"type": "object"}, {"required": ["a"]}]}
    (message,) = compile_schema(schema).errors({"a": 1})
    assert message == "value must match exactly one of: object, value that has property 'a' (it matches 3)"


# Each branch hides its type behind a wrapper: allOf, a $ref, a $ref to a oneOf (as Notion's MCP tools do).
WRAPPED = [
    ({"anyOf": [{"allOf": [{"type": "object"}]}, {"type": "string"}]}, 5, "value must be object or string"),
    (
        {
            "$defs": {"Filter": {"oneOf": [{"type": "object", "required": ["and"]}, {"type": "array"}]}},
            "anyOf": [{"$ref": "#/$defs/Filter"}, {"type": "string"}],
        },
        5,
        "value must be object, array or string",
    ),
    (
        {"oneOf": [{"allOf": [{"type": "number"}, {"type": "integer"}]}, {"type": "null"}]},
        "x",
        "value must be integer or null",
    ),
    (
        {
            "properties": {"q": {"anyOf": [{"allOf": [{"$ref": "#/$defs/O"}]}, {"type": "boolean"}]}},
            "$defs": {"O": {"type": "object"}},
        },
        {"q": 1},
        "property 'q' must be object or boolean",
    ),
    # A const or an enum with no "type" takes only its values' types: the metaschema's "type" keyword is
    # anyOf [an enum of names, an array of them], and 5 there must not read as if only the names were allowed.
    ({"anyOf": [{"const": 1}, {"type": "string"}]}, True, "value must be number or string"),
    ({"anyOf": [{"enum": ["a", "b"]}, {"type": "array"}]}, 5, "value must be string or array"),
    ({"anyOf": [{"enum": [None, {"a": 1}]}, {"type": "string"}]}, 5, "value must be null, object or string"),
]


def _beside_true(schema: dict[str, Any]) -> dict[str, Any]:
    # An allOf forces the collectors; $defs stay at the root so the $refs still resolve.
    inner = {key: value for key, value in schema.items() if key != "$defs"}
    return {"allOf": [inner, True], **({"$defs": schema["$defs"]} if "$defs" in schema else {})}


@pytest.mark.parametrize("wrap", [lambda s: s, _beside_true], ids=["generated", "collector"])
@pytest.mark.parametrize(("schema", "value", "message"), WRAPPED)
def test_a_union_message_never_claims_less_than_the_schema_accepts(
    wrap: Any, schema: Any, value: Any, message: str
) -> None:
    validator = compile_schema(wrap(schema))
    assert validator.errors(value) == [message]


def test_a_wrapped_branch_still_explains_a_value_of_its_type() -> None:
    schema = {"anyOf": [{"allOf": [{"type": "object", "required": ["a"]}]}, {"type": "string"}]}
    assert compile_schema(schema).errors({}) == ["missing required property 'a'"]
