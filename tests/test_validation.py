"""The validator: the contract's strings, JSON semantics, nested paths, the cache, schema errors and options."""

from __future__ import annotations

from typing import Any

import pytest

from mcptools._errors import SchemaError
from mcptools._validation import Validator, checker_for, compile_schema, validate

WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "location": {"type": "string"},
        "days": {"type": "integer"},
        "units": {"type": "string", "enum": ["c", "f"]},
    },
    "required": ["location"],
    "additionalProperties": False,
}


# -- the contract, word for word ------------------------------------------------------------------------


def test_contract_example_errors_in_contract_order() -> None:
    assert validate({"days": 2.5, "units": "k", "x": 1}, WEATHER) == [
        "missing required property 'location'",
        "property 'days' must be integer",
        "property 'units' must be one of ['c', 'f']",
        "unexpected property 'x'",
    ]


def test_contract_valid_arguments() -> None:
    assert validate({"location": "Paris", "days": 2}, WEATHER) == []


def test_contract_bool_is_not_an_integer() -> None:
    assert validate({"location": "Paris", "days": True}, WEATHER) == ["property 'days' must be integer"]


def test_contract_call_example() -> None:
    assert validate({"location": "Paris", "days": "two"}, WEATHER) == ["property 'days' must be integer"]


def test_errors_follow_argument_order_not_schema_order() -> None:
    errors = validate({"x": 1, "units": "k", "days": "2"}, WEATHER)
    assert errors == [
        "missing required property 'location'",
        "unexpected property 'x'",
        "property 'units' must be one of ['c', 'f']",
        "property 'days' must be integer",
    ]


def test_missing_required_in_required_order() -> None:
    schema = {"type": "object", "required": ["b", "a", "c"], "properties": {"a": {}, "b": {}, "c": {}}}
    assert validate({}, schema) == [
        "missing required property 'b'",
        "missing required property 'a'",
        "missing required property 'c'",
    ]


def test_one_error_per_argument_wrong_type_hides_enum() -> None:
    assert validate({"location": "x", "units": 3}, WEATHER) == ["property 'units' must be string"]


def test_extra_names_allowed_without_additional_properties_false() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert validate({"a": "x", "b": 1}, schema) == []


@pytest.mark.parametrize(
    ("kind", "good", "bad"),
    [
        ("string", ["", "x"], [1, None, True, [], {}]),
        ("integer", [0, -3, 10**30], [2.0, 2.5, True, False, "1", None]),
        ("number", [0, 1.5, -2, 10**30], [True, False, "1.5", None, []]),
        ("boolean", [True, False], [0, 1, "true", None]),
        ("null", [None], [0, False, "", []]),
        ("array", [[], [1, "a"]], [{}, "[]", None]),
        ("object", [{}, {"a": 1}], [[], "{}", None]),
    ],
)
def test_json_types(kind: str, good: list[Any], bad: list[Any]) -> None:
    checker = compile_schema({"type": kind})
    for value in good:
        assert checker.is_valid(value), value
        assert checker.errors(value) == []
    for value in bad:
        assert not checker.is_valid(value), value
        assert checker.errors(value) == [f"value must be {kind}"]


def test_enum_uses_json_equality() -> None:
    checker = compile_schema({"enum": [1, "a", None, [1, 2], {"k": False}]})
    assert checker.is_valid(1.0)
    assert not checker.is_valid(True)
    assert checker.is_valid([1.0, 2])
    assert not checker.is_valid([True, 2])
    assert checker.is_valid({"k": False})
    assert not checker.is_valid({"k": 0})
    assert not compile_schema({"enum": [False]}).is_valid(0)
    assert not compile_schema({"const": 0}).is_valid(False)
    assert compile_schema({"const": 1}).is_valid(1.0)


def test_enum_message_is_the_python_repr_of_the_list() -> None:
    checker = compile_schema({"type": "object", "properties": {"mode": {"enum": ["a", 1, None, True]}}})
    assert checker.errors({"mode": "z"}) == ["property 'mode' must be one of ['a', 1, None, True]"]


# -- nested values: the same voice with a path --------------------------------------------------------------

ADDRESS = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
    "required": ["street", "city"],
    "additionalProperties": False,
}
ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "where": {"$ref": "#/$defs/Address"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "days": {"type": "integer", "minimum": 1},
        "name": {"type": "string", "maxLength": 20},
        "stops": {"type": "array", "items": {"$ref": "#/$defs/Address"}},
    },
    "required": ["where"],
    "additionalProperties": False,
    "$defs": {"Address": ADDRESS},
}


def test_nested_errors_have_dotted_paths() -> None:
    errors = validate({"where": {"street": 5, "zip": "1"}, "tags": ["a", "b", 3]}, ORDER)
    assert errors == [
        "missing required property 'where.city'",
        "property 'where.street' must be string",
        "unexpected property 'where.zip'",
        "property 'tags[2]' must be string",
    ]


def test_nested_bounds_lengths_and_lists_of_objects() -> None:
    arguments = {"where": {"street": "a", "city": "b"}, "days": 0, "name": "x" * 21, "stops": [{"street": "s"}]}
    assert validate(arguments, ORDER) == [
        "property 'days' must be >= 1",
        "property 'name' must be at most 20 characters",
        "missing required property 'stops[0].city'",
    ]


def test_wrong_type_of_a_nested_object_is_one_error() -> None:
    assert validate({"where": "Paris"}, ORDER) == ["property 'where' must be object"]


def test_non_object_root() -> None:
    assert compile_schema({"type": "string", "minLength": 2}).errors("a") == ["value must be at least 2 characters"]
    assert validate([1], WEATHER) == ["value must be object"]
    items = compile_schema({"type": "array", "items": {"type": "object", "required": ["a"]}})
    assert items.errors([{}, 3]) == ["missing required property '[0].a'", "item '[1]' must be object"]


def test_at_most_one_error_per_location_with_all_of() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "integer"}},
        "allOf": [{"properties": {"a": {"minimum": 5}}}, {"required": ["b"]}],
    }
    assert validate({"a": "x"}, schema) == ["missing required property 'b'", "property 'a' must be integer"]
    assert validate({"a": 1}, schema) == ["missing required property 'b'", "property 'a' must be >= 5"]


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        ({"minimum": 1}, 0, "value must be >= 1"),
        ({"exclusiveMinimum": 1}, 1, "value must be > 1"),
        ({"maximum": 1}, 2, "value must be <= 1"),
        ({"exclusiveMaximum": 1}, 1, "value must be < 1"),
        ({"multipleOf": 0.5}, 0.3, "value must be a multiple of 0.5"),
        ({"minLength": 1}, "", "value must be at least 1 character"),
        ({"pattern": "^a+$"}, "b", "value must match pattern '^a+$'"),
        ({"minItems": 2}, [1], "value must have at least 2 items"),
        ({"maxItems": 0}, [1], "value must have at most 0 items"),
        ({"uniqueItems": True}, [1, 1.0], "value must not contain duplicate items"),
        ({"contains": {"type": "string"}}, [1], "value must contain at least 1 item that is string"),
        ({"minProperties": 1}, {}, "value must have at least 1 property"),
        ({"not": {"type": "string"}}, "a", "value must not be string"),
        ({"contains": {"const": 1}, "minContains": 2}, [1], "value must contain at least 2 items that are 1"),
        (
            {"allOf": [True, True], "contains": {"const": 1}, "maxContains": 1},
            [1, 1],
            "value must contain at most 1 item that is 1",
        ),
        ({"const": "on"}, "off", "value must be 'on'"),
        (
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            None,
            "value must be string or integer",
        ),
        (
            {"oneOf": [{"type": "number"}, {"type": "integer"}]},
            1,
            "value must match exactly one of: number, integer (it matches 2)",
        ),
        (False, 1, "value is not allowed"),
    ],
)
def test_message_grammar(schema: Any, value: Any, message: str) -> None:
    assert compile_schema(schema).errors(value) == [message]


def test_any_of_explains_the_branch_of_the_value_type() -> None:
    schema = {
        "type": "object",
        "properties": {"where": {"anyOf": [{"$ref": "#/$defs/Address"}, {"type": "null"}]}},
        "$defs": {"Address": ADDRESS},
    }
    assert validate({"where": {"street": 1, "city": "x"}}, schema) == ["property 'where.street' must be string"]
    assert validate({"where": None}, schema) == []


def test_unevaluated_properties_false_reports_unexpected() -> None:
    schema = {"allOf": [{"properties": {"a": True}}], "unevaluatedProperties": False}
    assert validate({"a": 1, "b": 2}, schema) == ["unexpected property 'b'"]


def test_format_is_an_annotation_by_default_and_asserted_when_asked() -> None:
    schema = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}
    assert compile_schema(schema).errors({"when": "tomorrow"}) == []
    asserting = compile_schema(schema, format_assertion=True)
    assert asserting.errors({"when": "tomorrow"}) == [
        "property 'when' must be a date-time (ISO 8601 with an offset), e.g. '2026-12-02T10:00:00Z'"
    ]
    assert asserting.errors({"when": "2026-12-02T10:00:00Z"}) == []
    lasting = {"type": "object", "properties": {"for": {"type": "string", "format": "duration"}}}
    assert compile_schema(lasting).errors({"for": "P1Y2W"}) == []
    assert compile_schema(lasting, format_assertion=True).errors({"for": "P1Y2W"}) == [
        "property 'for' must be a duration (ISO 8601), e.g. 'P1DT2H30M'"
    ]
    where = {"type": "object", "properties": {"to": {"type": "string", "format": "path"}}}
    for checked in (where, {"allOf": [where, True]}):  # the generated error path, and the collectors
        assert compile_schema(checked, format_assertion=True).errors({"to": ""}) == [
            "property 'to' must be a path (not empty, no NUL character), e.g. 'reports/2026-12.csv'"
        ]


@pytest.mark.parametrize(
    ("name", "good", "bad"),
    [
        (
            "date-time",
            ["2026-02-28T23:59:60Z", "2024-02-29T10:00:00.5+02:00"],
            ["2023-02-29T10:00:00Z", "2026-01-01 10:00"],
        ),
        ("date", ["2024-02-29"], ["2024-13-01", "24-01-01"]),
        ("time", ["10:00:00Z", "23:59:60+00:00"], ["25:00:00Z", "10:00:00"]),
        ("email", ["ada@example.com", "a.b+c@[127.0.0.1]"], ["ada", "a@", "@b.c"]),
        ("uri", ["https://example.com/a?b#c", "urn:isbn:1"], ["example.com", "http://a b"]),
        ("uuid", ["123e4567-e89b-12d3-a456-426614174000"], ["123e4567e89b12d3a456426614174000"]),
        ("ipv4", ["192.168.0.1"], ["256.1.1.1", "01.1.1.1", "1.1.1"]),
        ("ipv6", ["::1", "2001:db8::8a2e:370:7334"], ["12345::", "1.2.3.4", "::1%eth0"]),
        ("hostname", ["example.com", "a-b.c"], ["-a.com", "a..b", "a" * 64]),
        (
            # RFC 3339 appendix A: whole-number components in order; weeks stand alone; a T needs a time part.
            "duration",
            ["P3Y6M4DT12H30M5S", "P1W", "PT36H", "P1M", "PT1M", "P0D", "PT1M2S", "P1Y2M"],
            ["P", "PT", "P1Y2W", "P1YT", "PT0.5S", "P2D1Y", "P1D2H", "P1Y2D", "PT1H2S", "p1d", "P1D\n", "P\u09e8Y"],
        ),
        # mcptools' own, what Decimal and Path parameters derive.
        ("decimal", ["12.50", "-1e3", ".5", "+7."], ["NaN", "Infinity", "1,5", "", "0x10", "1e"]),
        ("path", ["a", "/tmp/x y", "C:\\x", "."], ["", "a\0b"]),
    ],
)
def test_format_assertions(name: str, good: list[str], bad: list[str]) -> None:
    checker = compile_schema({"format": name}, format_assertion=True)
    for value in good:
        assert checker.is_valid(value), value
    for value in bad:
        assert not checker.is_valid(value), value
    assert checker.is_valid(12)


def test_patterns_follow_ecma_262() -> None:
    assert not compile_schema({"pattern": "^\\d+$"}).is_valid("\u0661\u0662")
    assert not compile_schema({"pattern": "^\\w+$"}).is_valid("\u00e9")
    assert not compile_schema({"pattern": "^a$"}).is_valid("a\n")
    assert compile_schema({"pattern": "^\\p{Letter}+$"}).is_valid("\u00e9t\u00e9")
    assert compile_schema({"pattern": "\\s"}).is_valid("\u2003")
    assert not compile_schema({"pattern": "^.$"}).is_valid("\u2028")


# -- hints: opt-in ------------------------------------------------------------------------------------------


def test_hints_are_opt_in() -> None:
    assert validate({"locaton": "Paris"}, WEATHER)[-1] == "unexpected property 'locaton'"
    hinted = compile_schema(WEATHER, suggest_names=True)
    assert hinted.errors({"locaton": "Paris"}) == [
        "missing required property 'location'",
        "unexpected property 'locaton' (did you mean 'location'?)",
    ]
    assert hinted.errors({"location": "P", "zzzzzz": 1}) == ["unexpected property 'zzzzzz'"]


def test_hints_in_nested_objects_and_with_other_keywords() -> None:
    schema = {"type": "object", "properties": {"units": {"type": "string"}}, "additionalProperties": False}
    hinted = compile_schema({"type": "object", "properties": {"w": schema}, "allOf": [{}]}, suggest_names=True)
    assert hinted.errors({"w": {"unit": "c"}}) == ["unexpected property 'w.unit' (did you mean 'units'?)"]


# -- the cache ------------------------------------------------------------------------------------------------


def test_checker_for_returns_the_cached_validator() -> None:
    first = checker_for(WEATHER)
    assert isinstance(first, Validator)
    assert checker_for(WEATHER) is first
    copy = {**WEATHER, "properties": dict(WEATHER["properties"])}
    assert checker_for(copy) is first


def test_cache_sees_a_schema_mutated_in_place() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert validate({"a": 1}, schema) == ["property 'a' must be string"]
    schema["properties"]["a"]["type"] = "integer"
    assert validate({"a": 1}, schema) == []


def test_cache_is_keyed_by_value_when_ids_are_reused() -> None:
    # A schema without cycles is freed by reference counting at ``del`` (no gc.collect needed), so were the cache
    # not holding it, the next dict could take its id.
    for kind in ["string", "integer", "boolean", "null"] * 10:
        schema = {"type": kind}
        assert validate(None, schema) == ([] if kind == "null" else [f"value must be {kind}"])
        del schema


def test_an_entry_for_another_object_with_the_same_id_is_not_used() -> None:
    from mcptools._validation import cache

    schema = {"type": "integer"}
    stale = {"type": "integer"}
    # What a reused id looks like to the cache: an entry under this id whose object is another, equal one.
    cache._by_identity[id(schema)] = (stale, {"type": "integer"}, checker_for({"type": "string"}))
    try:
        assert validate("x", schema) == ["value must be integer"]
    finally:
        cache._by_identity.pop(id(schema), None)


def test_cache_is_bounded() -> None:
    from mcptools._validation import cache

    for i in range(cache._MAX_ENTRIES + 50):
        checker_for({"type": "object", "properties": {f"p{i}": {"type": "string"}}})
    assert len(cache._by_identity) <= cache._MAX_ENTRIES
    assert len(cache._by_value) <= cache._MAX_ENTRIES


# -- invalid schemas: SchemaError naming the keyword and where --------------------------------------------


@pytest.mark.parametrize(
    ("schema", "fragments"),
    [
        ({"type": "strin"}, ["'type'", "'#/type'"]),
        ({"properties": {"a": {"minimum": "1"}}}, ["'minimum'", "#/properties/a"]),
        ({"properties": {"a": {"minLength": -1}}}, ["'minLength'", "#/properties/a"]),
        ({"required": "a"}, ["'required'"]),
        ({"$ref": "#/$defs/missing"}, ["'$ref'", "#/$defs/missing"]),
        ({"$ref": "https://example.com/schema.json"}, ["never fetches"]),
        ({"$schema": "http://json-schema.org/draft-04/schema#"}, ["draft-04", "not supported"]),
        ({"$schema": "https://json-schema.org/draft/2019-09/schema"}, ["2019-09", "not supported"]),
        ({"pattern": "^(a{100}){200}$"}, ["more than 10000 matcher states"]),
        ({"pattern": "(a)\\1+"}, ["backreference", "exponential"]),
        ({"properties": {"a": {"patternProperties": {"x+(?=a+b)": {}}}}}, ["lookaround", "#/properties/a"]),
        ({"pattern": "[a-"}, ["not a valid regular expression"]),
        ({"properties": {"a": 3}}, ["#/properties/a", "object or a boolean"]),
        ({"allOf": []}, ["'allOf'"]),
    ],
)
def test_invalid_schemas_raise_schema_error(schema: Any, fragments: list[str]) -> None:
    with pytest.raises(SchemaError) as caught:
        compile_schema(schema)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_the_2020_12_dialect_is_accepted() -> None:
    checker = compile_schema({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "string"})
    assert checker.is_valid("a")


def test_resources_are_used_but_never_fetched() -> None:
    remote: dict[str, Any] = {"$id": "https://example.com/name.json", "type": "string", "minLength": 1}
    checker = compile_schema({"$ref": "https://example.com/name.json"}, resources={remote["$id"]: remote})
    assert checker.is_valid("a")
    assert checker.errors("") == ["value must be at least 1 character"]


# -- bounds -----------------------------------------------------------------------------------------------


def test_deep_instance_against_recursive_schema_is_an_error_not_a_crash() -> None:
    tree = compile_schema({"type": "array", "items": {"$ref": "#"}})
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert tree.is_valid(deep) is False
    assert tree.errors(deep) == ["value nests too deeply to validate"]
    assert tree.is_valid([[[]]])


def test_deep_instance_on_the_collector_path() -> None:
    # A two-branch allOf sends errors through the closure collectors rather than the generated errors path.
    tree = compile_schema({"allOf": [{"type": ["array", "integer"], "items": {"$ref": "#"}}, True]})
    assert "SLOW" in tree.source
    deep: list[Any] = [1]
    for _ in range(100_000):
        deep = [deep]
    assert tree.errors(deep) == ["value nests too deeply to validate"]
    assert tree.errors([[["x"]]]) == ["item '[0][0][0]' must be array or integer"]
    either = compile_schema({"anyOf": [{"type": "array", "items": {"$ref": "#"}}, {"type": "integer"}]})
    assert either.errors([[["x"]]]) == ["item '[0][0][0]' must be array or integer"]


def test_deep_schema_is_refused_and_moderately_deep_one_compiles() -> None:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(40):
        schema = {"type": "array", "items": schema}
    checker = compile_schema(schema)
    value: Any = "x"
    for _ in range(40):
        value = [value]
    assert checker.is_valid(value)
    for _ in range(300):
        schema = {"type": "array", "items": schema}
    with pytest.raises(SchemaError, match="deeper than"):
        compile_schema(schema)


def test_huge_array_unique_items_is_linear() -> None:
    checker = compile_schema({"uniqueItems": True})
    assert checker.is_valid(list(range(200_000)))
    assert not checker.is_valid([*range(200_000), 5.0])
    assert checker.is_valid([[i] for i in range(50_000)])


def test_self_containing_schema_is_refused() -> None:
    schema: dict[str, Any] = {"type": "object", "properties": {}}
    schema["properties"]["self"] = schema
    with pytest.raises(SchemaError):
        compile_schema(schema)


def test_const_matchers_are_not_shared_between_different_values() -> None:
    # Found by the differential fuzz: constants were once keyed by id() of a temporary list.
    schema = {"$defs": {"d": {"const": []}}, "allOf": [{"$ref": "#/$defs/d"}, {"const": None}]}
    assert not compile_schema(schema).is_valid(None)
    assert not compile_schema({"prefixItems": [{"const": None}, {"const": []}]}).is_valid([[]])
    # Also found by the fuzz: a schema with both anyOf and oneOf once reported only the anyOf.
    assert compile_schema({"anyOf": [{"const": None}], "oneOf": [False]}).errors(None) == ["value is not allowed"]


def test_checker_for_options_are_cached_apart() -> None:
    plain = checker_for(WEATHER)
    hinted = checker_for(WEATHER, suggest_names=True)
    assert hinted is not plain
    assert checker_for(WEATHER, suggest_names=True) is hinted
    assert hinted.errors({"location": "x", "unit": "c"}) == ["unexpected property 'unit' (did you mean 'units'?)"]
    assert plain.errors({"location": "x", "unit": "c"}) == ["unexpected property 'unit'"]
    dated = checker_for({"format": "date"}, format_assertion=True)
    assert not dated.is_valid("soon")
    assert checker_for({"format": "date"}).is_valid("soon")


def test_public_types() -> None:
    from typing_extensions import assert_type

    checker = compile_schema({"type": "string"})
    assert_type(checker, Validator)
    assert_type(checker.is_valid("a"), bool)
    assert_type(checker.errors("a"), list[str])
    assert_type(validate({}, WEATHER), list[str])
    assert_type(checker_for(WEATHER), Validator)
    assert compile_schema({"not": {"minimum": 3}}).errors(5) == ["value must not be >= 3"]


def test_non_string_keys_from_python_callers_are_named_not_crashed_on() -> None:
    closed = {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}
    assert validate({1: "x"}, closed) == ["unexpected property '1'"]
    assert compile_schema(closed, suggest_names=True).errors({1: "x"}) == ["unexpected property '1'"]
    merged = {"allOf": [{}], "patternProperties": {"^1": {"type": "string"}}, "additionalProperties": False}
    assert compile_schema(merged).errors({1: 2, 3: 4}) == ["property '1' must be string", "unexpected property '3'"]
    assert not compile_schema({"patternProperties": {"^1": {"type": "string"}}}).is_valid({1: 2})


@pytest.mark.parametrize("pattern", ["^(\\d+\\.)+\\d+$", "^[a-z]+(-[a-z]+)*$", "(a|b)*c", "^(?:ab)+$", "((a)*b)*"])
def test_safe_repetitions_are_accepted(pattern: str) -> None:
    compile_schema({"pattern": pattern})


def test_draft_07_schemas_are_converted() -> None:
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {
            "point": {"type": "array", "items": [{"type": "number"}, {"type": "number"}], "additionalItems": False},
            "owner": {"$ref": "#/definitions/person", "type": "string"},
            "first": {"$ref": "#/properties/point/items/0"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "dependencies": {"owner": ["point"], "tags": {"required": ["owner"]}},
        "definitions": {"person": {"$id": "#person", "type": "object", "required": ["name"]}},
        "additionalProperties": False,
    }
    checker = compile_schema(schema)
    assert checker.is_valid({"point": [1, 2], "owner": {"name": "Ada"}, "first": 3, "tags": ["a"]})
    assert checker.errors({"point": [1, 2, 3]}) == ["unexpected item 'point[2]'"]
    # In draft-07 "$ref" ignores its siblings: "type": "string" beside it does not apply.
    assert checker.errors({"owner": {}, "point": [1]}) == ["missing required property 'owner.name'"]
    assert checker.errors({"owner": {"name": "A"}}) == ["missing property 'point' (required when 'owner' is present)"]
    assert not checker.is_valid({"tags": ["a"]})
    assert not checker.is_valid({"first": "x"})
    assert compile_schema(
        {
            "$schema": "http://json-schema.org/draft-07/schema",
            "$ref": "#/definitions/a/anyOf/0",
            "definitions": {"a": {"anyOf": [{"type": "string"}]}},
        }
    ).errors(1) == ["value must be string"]


def test_derived_wrappers_stay_on_the_generated_errors_path() -> None:
    # {"$ref": ...} with a description, and a one-branch allOf, are what derived schemas nest with.
    schema = {
        "type": "object",
        "properties": {
            "a": {"allOf": [{"$ref": "#/$defs/A"}], "description": "an A"},
            "b": {"$ref": "#/$defs/A", "title": "B"},
        },
        "$defs": {"A": {"type": "object", "required": ["z"]}},
    }
    checker = compile_schema(schema)
    assert "SLOW" not in checker.source
    assert checker.errors({"a": {}, "b": 1}) == ["missing required property 'a.z'", "property 'b' must be object"]


def test_cache_under_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    from mcptools._validation import cache

    # More distinct schemas than the cache holds, so threads race on lookups, inserts and evictions all along.
    # The cache is made small for this test: the races are the same at 32 entries as at 512, and every miss
    # compiles a schema, so a full-size cache would make this test compile thousands.
    monkeypatch.setattr(cache, "_MAX_ENTRIES", 32)
    distinct = 45

    def work(i: int) -> list[str]:
        schema = {"type": "object", "properties": {f"q{i % distinct}": {"type": "integer"}}}
        return validate({f"q{i % distinct}": "x"}, schema)

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(400)))
    assert all(result == [f"property 'q{i % distinct}' must be integer"] for i, result in enumerate(results))


def test_the_code_writer_indents_blocks_and_gives_an_empty_one_its_pass() -> None:
    from mcptools._validation.codegen import Writer

    lines: list[str] = []
    w = Writer(lines)
    with w.block("def f(x)"):
        with w.block("if x"):
            pass
        w("return 1")
    assert lines == ["def f(x):", "    if x:", "        pass", "    return 1"]
    assert w.depth == 0
