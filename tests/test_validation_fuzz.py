"""Differential fuzzing: the compiled validator and the slow reference validator must always agree.

Hypothesis draws small schemas (every keyword family, nested, with $defs/$ref and unevaluated*) and small JSON
instances from the same little vocabulary of names and values, so both valid and invalid pairs are common. For
each pair: ``is_valid`` equals the reference's answer, ``errors`` is empty exactly when valid, and every error is
a non-empty string.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from reference_validator import ReferenceValidator

from mcptools._validation import compile_schema

NAMES = ["a", "b", "c"]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([0.0, 1.0, 1.5, -2.5, 0.1]),
    st.text(alphabet="ab1", max_size=3),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
    ),
    max_leaves=8,
)

leaf_schemas = st.one_of(
    st.booleans(),
    st.builds(lambda t: {"type": t}, st.sampled_from(TYPES)),
    st.builds(lambda ts: {"type": ts}, st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True)),
    st.builds(lambda values: {"enum": values}, st.lists(scalars, min_size=1, max_size=3)),
    st.builds(lambda value: {"const": value}, json_values),
    st.builds(
        lambda keyword, bound: {keyword: bound},
        st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
        st.sampled_from([-1, 0, 1, 1.5]),
    ),
    st.builds(lambda step: {"multipleOf": step}, st.sampled_from([1, 2, 0.5, 0.1])),
    st.builds(
        lambda keyword, size: {keyword: size},
        st.sampled_from(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]),
        st.integers(min_value=0, max_value=2),
    ),
    st.builds(lambda p: {"pattern": p}, st.sampled_from(["^a", "b$", "^[ab]*$", "1", "^\\d+$"])),
    st.builds(lambda names: {"required": names}, st.lists(st.sampled_from(NAMES), max_size=2, unique=True)),
    st.just({"uniqueItems": True}),
    st.builds(
        lambda trigger, names: {"dependentRequired": {trigger: names}},
        st.sampled_from(NAMES),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
    ),
)


def _merge(parts: list[dict[str, Any] | bool]) -> dict[str, Any] | bool:
    merged: dict[str, Any] = {}
    for part in parts:
        if isinstance(part, bool):
            return merged if merged else part
        merged.update(part)
    return merged


def _composite(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    small_list = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda props: {"properties": props}, st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
        st.builds(lambda s: {"additionalProperties": s}, inner),
        st.builds(
            lambda props, extra: {"properties": props, "additionalProperties": extra},
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=2),
            inner,
        ),
        st.builds(lambda s: {"patternProperties": {"^[ab]": s}}, inner),
        st.builds(lambda s: {"propertyNames": s}, inner),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda schemas: {"prefixItems": schemas}, small_list),
        st.builds(lambda s, lo: {"contains": s, "minContains": lo}, inner, st.integers(min_value=0, max_value=2)),
        st.builds(lambda s: {"contains": s, "maxContains": 1}, inner),
        st.builds(lambda schemas: {"allOf": schemas}, small_list),
        st.builds(lambda schemas: {"anyOf": schemas}, small_list),
        st.builds(lambda schemas: {"oneOf": schemas}, small_list),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda a, b, c: {"if": a, "then": b, "else": c}, inner, inner, inner),
        st.builds(lambda s: {"dependentSchemas": {"a": s}}, inner),
        st.builds(lambda s, u: {"allOf": [s], "unevaluatedProperties": u}, inner, inner),
        st.builds(lambda s, u: {"anyOf": [s, {"prefixItems": [True]}], "unevaluatedItems": u}, inner, inner),
        st.builds(_merge, st.lists(inner, min_size=2, max_size=3)),
    )


schemas = st.recursive(leaf_schemas, _composite, max_leaves=6)


def with_reference(body: Any, definition: Any) -> Any:
    """Put ``definition`` under $defs and reach it through $ref (also recursively, through '#')."""
    return {"$defs": {"d": definition}, "allOf": [{"$ref": "#/$defs/d"}, body]}


def check_agreement(schema: Any, instance: Any) -> None:
    compiled = compile_schema(schema)
    expected = ReferenceValidator(schema).is_valid(instance)
    assert compiled.is_valid(instance) == expected, (schema, instance)
    errors = compiled.errors(instance)
    assert (errors == []) == expected, (schema, instance, errors)
    assert all(isinstance(error, str) and error for error in errors)


FUZZ = settings(max_examples=scaled(600), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(schemas, json_values)
def test_compiled_agrees_with_reference(schema: Any, instance: Any) -> None:
    check_agreement(schema, instance)


@FUZZ
@given(schemas, schemas, json_values)
def test_compiled_agrees_with_reference_through_refs(body: Any, definition: Any, instance: Any) -> None:
    check_agreement(with_reference(body, definition), instance)


@settings(max_examples=scaled(200), deadline=None)
@given(json_values)
def test_recursive_schema_agrees(instance: Any) -> None:
    tree = {
        "type": ["object", "integer"],
        "properties": {"a": {"$ref": "#"}, "b": {"type": "array", "items": {"$ref": "#"}}},
        "unevaluatedProperties": {"type": "string"},
    }
    check_agreement(tree, instance)


@FUZZ
@given(
    st.dictionaries(st.sampled_from(NAMES), leaf_schemas, max_size=3),
    st.lists(st.sampled_from(NAMES), max_size=3, unique=True),
    st.booleans(),
    st.dictionaries(st.sampled_from([*NAMES, "x"]), json_values, max_size=4),
)
def test_tool_shaped_schemas_agree(properties: Any, required: list[str], closed: bool, arguments: Any) -> None:
    """The shape tools declare: the generated errors path, compared property by property."""
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if closed:
        schema["additionalProperties"] = False
    check_agreement(schema, arguments)
    errors = compile_schema(schema).errors(arguments)
    missing = [f"missing required property '{name}'" for name in required if name not in arguments]
    assert errors[: len(missing)] == missing
    # At most one error per argument, in the arguments' own order (nested ones carry a dotted path).
    locations = [error.split("'")[1] for error in errors[len(missing) :]]
    top_level = [location for location in locations if "." not in location and "[" not in location]
    assert len(top_level) == len(set(top_level))
    order = list(arguments)
    assert top_level == sorted(top_level, key=order.index)


def _per_location(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(
            lambda props, required, closed: {
                "type": "object",
                "properties": props,
                "required": required,
                **({"additionalProperties": False} if closed else {}),
            },
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
            st.lists(st.sampled_from(NAMES), max_size=2, unique=True),
            st.booleans(),
        ),
        st.builds(lambda s: {"type": "array", "items": s}, inner),
        st.builds(lambda a, b: {"prefixItems": [a], "items": b}, inner, inner),
        st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner),
        st.builds(lambda a, b: {"oneOf": [a, b]}, inner, inner),
        st.builds(lambda s: {"additionalProperties": s}, inner),
    )


per_location_schemas = st.recursive(leaf_schemas, _per_location, max_leaves=6)


@FUZZ
@given(per_location_schemas, json_values)
def test_generated_errors_path_and_collectors_say_the_same(schema: Any, instance: Any) -> None:
    """Tool-shaped schemas get generated error code; wrapped in allOf they go through the collectors instead.

    Both must produce the same messages in the same order.
    """
    generated = compile_schema(schema).errors(instance)
    collected = compile_schema({"allOf": [schema, True]}).errors(instance)
    assert generated == collected, (schema, instance)


WIDE_NAMES = [f"p{i}" for i in range(40)]


@settings(max_examples=scaled(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(leaf_schemas, min_size=40, max_size=40),
    st.lists(st.sampled_from(WIDE_NAMES), max_size=4, unique=True),
    st.sampled_from([None, False, True, {"type": "integer"}]),
    st.dictionaries(st.sampled_from([*WIDE_NAMES[:6], "x"]), json_values, max_size=5),
)
def test_wide_objects_agree(children: list[Any], required: list[str], extra: Any, arguments: Any) -> None:
    """Above 32 declared properties the valid path walks the arguments instead of fetching each property."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(zip(WIDE_NAMES, children, strict=True)),
        "required": required,
    }
    if extra is not None:
        schema["additionalProperties"] = extra
    check_agreement(schema, arguments)
    check_agreement({"allOf": [schema, True]}, arguments)
