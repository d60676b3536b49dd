"""Invalid schemas are refused, wherever they sit, with a JSON pointer to the offending keyword."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mcptools._errors import SchemaError
from mcptools._validation import compile_schema


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"$defs": {"x": {"type": "nope"}}}, "'type' at '#/$defs/x/type' must be one of"),
        ({"$defs": {"x": {"$ref": "#/$defs/missing"}}}, "at '#/$defs/x/$ref'"),
        ({"$defs": {"x": {"properties": {"a": {"minimum": "1"}}}}}, "'minimum' at '#/$defs/x/properties/a/minimum'"),
        ({"required": ["a", "a"]}, "'required' at '#/required' must be an array of distinct property names"),
        ({"dependentRequired": {"a": ["b", "b"]}}, "'dependentRequired' at '#/dependentRequired' must be"),
        ({"$anchor": "a b"}, "'$anchor' at '#/$anchor' must be a plain name"),
        ({"$defs": {"x": {"$dynamicAnchor": "1a"}}}, "'$dynamicAnchor' at '#/$defs/x/$dynamicAnchor'"),
        ({"const": math.nan}, "'const' at '#/const' must be a JSON value (no NaN or Infinity)"),
        ({"const": {"a": [math.inf]}}, "'const' at '#/const' must be a JSON value"),
        ({"enum": [1, -math.inf]}, "'enum' at '#/enum' must be an array of JSON values"),
        ({"minimum": math.inf}, "'minimum' at '#/minimum' must be a finite number"),
        ({"properties": {"a": {"multipleOf": math.nan}}}, "'multipleOf' at '#/properties/a/multipleOf'"),
        ({"properties": {"a": {"minLength": -1}}}, "'minLength' at '#/properties/a/minLength'"),
        ({"type": "strin"}, "'type' at '#/type'"),
        ({"$schema": 3}, "'$schema' at '#/$schema'"),
        ({"$id": 3}, "'$id' at '#/$id'"),
        ({"$ref": "#/nowhere"}, "at '#/$ref' points at '#/nowhere'"),
        ({"pattern": "[a-"}, "at '#/pattern'"),
        ({"patternProperties": {"a/[": {}}}, "at '#/patternProperties/a~1['"),
    ],
)
def test_invalid_schemas_name_the_keyword_by_its_pointer(schema: Any, message: str) -> None:
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    assert message in str(caught.value)


def test_valid_anchors_and_json_values_are_still_accepted() -> None:
    checker = compile_schema(
        {"$anchor": "a-b.c_1", "const": {"a": [1.5, None, True]}, "$defs": {"unused": {"type": "string"}}}
    )
    assert checker.is_valid({"a": [1.5, None, True]})
    assert compile_schema({"minimum": 10**400}).is_valid(10**401)
    shared: list[Any] = [1]
    assert compile_schema({"enum": [shared, shared]}).is_valid([1])
