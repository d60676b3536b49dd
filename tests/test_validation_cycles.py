"""$ref cycles that never consume the instance are refused by name; recursion that descends compiles."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools._errors import SchemaError
from mcptools._validation import compile_schema


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"$ref": "#"}, "#/$ref"),
        ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "#/$defs/"),
        ({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/a"}]}}}, "#/$defs/a/allOf/0/$ref"),
        ({"anyOf": [{"type": "string"}, {"$ref": "#"}]}, "#/anyOf/1/$ref"),
        ({"properties": {"x": {"$ref": "#/properties/x"}}}, "#/properties/x/$ref"),
        ({"not": {"$ref": "#"}}, "#/not/$ref"),
    ],
)
def test_a_cycle_without_progress_names_the_ref(schema: Any, where: str) -> None:
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    message = str(caught.value)
    assert message.startswith(f"'$ref' at '{where}")
    assert "refers back to itself without consuming any of the instance" in message
    assert "nests too deeply" not in message


def test_recursion_that_descends_still_compiles() -> None:
    tree = {
        "type": "object",
        "properties": {"value": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}},
        "required": ["value"],
    }
    checker = compile_schema(tree)
    assert checker.is_valid({"value": 1, "children": [{"value": 2, "children": []}]})
    assert checker.errors({"value": 1, "children": [{}]}) == ["missing required property 'children[0].value'"]
    linked = {
        "$defs": {
            "node": {"anyOf": [{"type": "null"}, {"$ref": "#/$defs/pair"}]},
            "pair": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}},
        },
        "$ref": "#/$defs/node",
    }
    assert compile_schema(linked).is_valid({"next": {"next": None}})
