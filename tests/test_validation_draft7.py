"""Draft-07 conversion keeps what a ``$ref`` may point into."""

from __future__ import annotations

from mcptools._validation import compile_schema

DRAFT_07 = "http://json-schema.org/draft-07/schema#"


def test_defs_beside_a_root_ref_are_kept() -> None:
    checker = compile_schema({"$schema": DRAFT_07, "$defs": {"a": {"type": "integer"}}, "$ref": "#/$defs/a"})
    assert checker.is_valid(1)
    assert checker.errors("x") == ["value must be integer"]


def test_definitions_and_defs_beside_a_ref_are_both_kept() -> None:
    schema = {
        "$schema": DRAFT_07,
        "definitions": {"b": {"$ref": "#/$defs/a"}},
        "$defs": {"a": {"type": "string"}},
        "$ref": "#/definitions/b",
        "type": "integer",  # ignored beside $ref in draft-07
    }
    checker = compile_schema(schema)
    assert checker.is_valid("x")
    assert checker.errors(1) == ["value must be string"]
