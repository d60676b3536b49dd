"""No schema value ever becomes code (in the spirit of fastjsonschema's security tests).

The compiled validator exec's generated Python. These tests feed schemas whose names, patterns, enum values,
numbers and formats are crafted to break out of a string literal or inject statements, and check three things:
the generated source contains no literal taken from the schema (every string literal in it is one of the
generator's own), nothing crafted ran, and the hostile schema still validates correctly.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import pytest

from mcptools._validation import compile_schema

PAYLOADS = [
    "x'); import os; os.system('echo pwned'); ('",
    'x"); __import__("os").system("echo pwned"); ("',
    "x'''\nimport os\n'''",
    'x"""\nraise SystemExit\n"""',
    "\\'; raise SystemExit; '",
    "{x}",
    "__import__('builtins').exec('raise SystemExit')",
    "\n    return True\n",
    "# comment",
    "x\x00y",
    "M",
    "x",
    "p",
    "out",
    "SLOW",
    "K1",
    "__builtins__",
]
GENERATOR_LITERALS = {"property '", "item '", ".", "[", "]", "", '"', '[""]'}
# Generated names: numbered temporaries and constants, a few fixed helpers, and builtins.
IDENTIFIER = re.compile(
    r"^(?:(?:t|n|ev|ok|r|hits|k|m|i|c|f|b|e|v|a|q|errors_of)\d+|(?:K|E|W|N|P|F|R|S|D|DT|DF|CHOICE|HINT|C)\d+"
    r"|x|p|out|dyn|ev|k|v|i|f|item|r|is_valid|errors"
    r"|M|UNIQUE|MULTIPLE|PICK|SLOW|TOO_DEEP|MAX_ERRORS|CAP|SUBJ|MISSING|UNEXPECTED|NOT_ALLOWED|NOTHING"
    r"|type|isinstance|len|str|int|float|bool|dict|list|tuple|set|range|min|enumerate|sum|RecursionError)$"
)


def hostile_schemas() -> list[Any]:
    found: list[Any] = []
    for text in PAYLOADS:
        found.append({"type": "object", "properties": {text: {"type": "integer"}}, "required": [text]})
        found.append({"type": "object", "properties": {text: {"type": "integer"}}, "additionalProperties": False})
        found.append({"enum": [text, 1]})
        found.append({"enum": [text]})
        found.append({"const": text})
        found.append({"const": {text: [text]}})
        found.append({"type": "object", "dependentRequired": {text: [text + "2"]}})
        found.append({"type": "object", "patternProperties": {re.escape(text): {"type": "string"}}})
        found.append({"pattern": re.escape(text)})
        found.append({"format": text})
        found.append(
            {"$defs": {text: {"type": "string"}}, "$ref": "#/$defs/" + text.replace("~", "~0").replace("/", "~1")}
        )
        found.append({"title": text, "description": text, "default": text, "examples": [text]})
        found.append({"anyOf": [{"type": "object", "properties": {text: {"const": text}}}, {"type": "null"}]})
        found.append(
            {"type": "object", "properties": {"a": {"type": "object", "properties": {text: {"enum": [text]}}}}}
        )
    for number in (10**400, -(10**400), 1e308, 5e-324):
        found.append({"minimum": number, "maximum": number, "multipleOf": abs(number) or 1})
    return found


def _literals(source: str) -> tuple[set[str], set[Any], set[str]]:
    tree = ast.parse(source)
    strings = {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    others = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and not isinstance(node.value, str) and node.value is not None
    }
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return strings, others, names


@pytest.mark.parametrize("schema", hostile_schemas(), ids=lambda schema: repr(schema)[:40])
def test_no_schema_value_reaches_the_generated_source(schema: Any) -> None:
    try:
        validator = compile_schema(schema)
    except Exception as error:  # a refused schema is fine, as long as it is refused as a schema
        assert type(error).__name__ == "SchemaError"
        return
    strings, others, names = _literals(validator.source)
    assert strings <= GENERATOR_LITERALS
    # The only numbers in the source are small ones the generator counted (indices, lengths, True/False).
    assert all(isinstance(value, (bool, int)) and abs(value) < 64 for value in others), others
    assert all(IDENTIFIER.match(name) for name in names), names - {n for n in names if IDENTIFIER.match(n)}
    samples: list[Any] = [None, 0, "x", {}, [], {"a": 1}]
    for sample in samples:
        assert validator.is_valid(sample) == (validator.errors(sample) == [])


@pytest.mark.parametrize("text", PAYLOADS)
def test_hostile_property_names_are_validated_as_data(text: str) -> None:
    schema = {
        "type": "object",
        "properties": {text: {"type": "integer"}},
        "required": [text],
        "additionalProperties": False,
    }
    validator = compile_schema(schema)
    assert validator.is_valid({text: 1})
    assert validator.errors({text: "1"}) == [f"property '{text}' must be integer"]
    assert validator.errors({}) == [f"missing required property '{text}'"]
    assert validator.errors({text: 1, "other": 2}) == ["unexpected property 'other'"]


@pytest.mark.parametrize("text", PAYLOADS)
def test_hostile_enum_and_const_values_compare_as_data(text: str) -> None:
    assert compile_schema({"enum": [text]}).is_valid(text)
    assert not compile_schema({"enum": [text]}).is_valid(text + " ")
    assert compile_schema({"const": {text: text}}).is_valid({text: text})
    assert compile_schema({"pattern": "^" + re.escape(text) + "$"}).is_valid(text)


def test_nothing_crafted_ran(capfd: pytest.CaptureFixture[str]) -> None:
    for schema in hostile_schemas():
        try:
            validator = compile_schema(schema)
        except Exception:
            continue
        validator.errors({"a": 1})
    assert "pwned" not in capfd.readouterr().out
