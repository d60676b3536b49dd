"""A small schema is checked by ``compile_schema`` and compiled by its first call: that call is exactly as strict.

Hypothesis draws schemas and instances; for each pair, a validator whose first call is the one under test
answers what a validator built beforehand answers, and so does every later call. Threads racing one
validator's first call all get right answers. Every definition-time error is still raised by
``compile_schema`` itself, before any call.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import SchemaError
from mcptools._validation import Validator, checker_for, compile_schema

NAMES = ["a", "b", "c"]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([0.0, 1.0, 1.5, -2.5]),
    st.text(alphabet="ab1", max_size=3),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
    max_leaves=8,
)
leaf_schemas = st.one_of(
    st.booleans(),
    st.builds(lambda t: {"type": t}, st.sampled_from(TYPES)),
    st.builds(lambda values: {"enum": values}, st.lists(scalars, min_size=1, max_size=3)),
    st.builds(lambda value: {"const": value}, json_values),
    st.builds(lambda k, b: {k: b}, st.sampled_from(["minimum", "exclusiveMaximum"]), st.sampled_from([-1, 0, 1.5])),
    st.builds(lambda k, n: {k: n}, st.sampled_from(["minLength", "maxItems", "minProperties"]), st.integers(0, 2)),
    st.builds(lambda p: {"pattern": p}, st.sampled_from(["^a", "b$", "^[ab]*$"])),
    st.builds(lambda names: {"required": names}, st.lists(st.sampled_from(NAMES), max_size=2, unique=True)),
    st.just({"uniqueItems": True}),
)


def _composite(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    some = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.builds(
            lambda props, extra: {"type": "object", "properties": props, "additionalProperties": extra},
            st.dictionaries(st.sampled_from(NAMES), inner, max_size=3),
            inner,
        ),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda schemas: {"prefixItems": schemas}, some),
        st.builds(lambda s: {"contains": s}, inner),
        st.builds(lambda schemas: {"allOf": schemas}, some),
        st.builds(lambda schemas: {"anyOf": schemas}, some),
        st.builds(lambda schemas: {"oneOf": schemas}, some),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda a, b: {"if": a, "then": b}, inner, inner),
        st.builds(lambda s, u: {"allOf": [s], "unevaluatedProperties": u}, inner, inner),
    )


nested = st.recursive(leaf_schemas, _composite, max_leaves=6)
# $defs only at the root, where "#/$defs/d" points.
schemas = st.one_of(
    nested,
    st.builds(lambda d, body: {"$defs": {"d": d}, "allOf": [{"$ref": "#/$defs/d"}, body]}, nested, nested),
)
FUZZ = settings(max_examples=scaled(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def is_built(validator: Validator) -> bool:
    # Before the first call, is_valid is the validator's own first-call hook (a bound method).
    return getattr(validator.is_valid, "__self__", None) is not validator


@FUZZ
@given(schemas, json_values)
def test_the_first_call_answers_what_every_later_call_and_an_eager_build_answer(schema: Any, instance: Any) -> None:
    eager = compile_schema(schema)
    assert eager.source  # builds it before any call
    expected_valid, expected_errors = eager.is_valid(instance), eager.errors(instance)

    first_is_valid = compile_schema(schema)
    assert first_is_valid.is_valid(instance) == expected_valid
    assert first_is_valid.errors(instance) == expected_errors
    assert first_is_valid.is_valid(instance) == expected_valid

    first_errors = compile_schema(schema)
    assert first_errors.errors(instance) == expected_errors
    assert first_errors.is_valid(instance) == expected_valid
    assert first_errors.errors(instance) == expected_errors


def test_a_small_schema_generates_no_code_until_its_first_call() -> None:
    validator = compile_schema({"type": "object", "properties": {"days": {"type": "integer", "minimum": 1}}})
    assert not is_built(validator)
    assert validator.errors({"days": 0}) == ["property 'days' must be >= 1"]
    assert is_built(validator)
    assert validator.is_valid({"days": 2})


def test_a_hook_captured_before_the_first_call_keeps_answering_after_it() -> None:
    validator = compile_schema({"type": "string"})
    captured_is_valid, captured_errors = validator.is_valid, validator.errors
    assert validator.is_valid("x")
    assert captured_is_valid("x") and not captured_is_valid(1)
    assert captured_errors(1) == ["value must be string"]


def test_a_hook_kept_from_before_the_build_forwards_without_taking_the_build_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Taking the lock on every call doubled is_valid's cost for a caller who kept the hook (as the validation
    # benchmark did); once built, the hook only forwards.
    from mcptools._validation import compile as compile_module

    validator = compile_schema({"type": "object", "properties": {"a": {"type": "integer"}}})
    kept_valid, kept_errors = validator.is_valid, validator.errors
    assert kept_valid({"a": 1})

    class NoLock:
        def __enter__(self) -> None:
            raise AssertionError("the build lock was taken after the build")

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(compile_module, "_BUILD_LOCK", NoLock())
    assert kept_valid({"a": 1}) and not kept_valid({"a": "x"})
    assert kept_errors({"a": "x"}) == ["property 'a' must be integer"]


def test_threads_racing_the_first_call_all_get_right_answers() -> None:
    schema = {
        "type": "object",
        "properties": {"location": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
        "required": ["location"],
        "additionalProperties": False,
    }
    good, bad = {"location": "Paris", "days": 2}, {"days": 0, "x": 1}
    expected_errors = compile_schema(schema).errors(bad)
    assert expected_errors
    for _ in range(20):
        validator = compile_schema(schema)
        barrier = threading.Barrier(6)
        answers: list[Any] = []

        def race(
            which: int,
            validator: Validator = validator,
            barrier: threading.Barrier = barrier,
            answers: list[Any] = answers,
        ) -> None:
            barrier.wait()
            if which % 2:
                answers.append((validator.is_valid(good), validator.is_valid(bad)))
            else:
                answers.append((validator.errors(good), validator.errors(bad)))

        threads = [threading.Thread(target=race, args=(i,)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sorted(map(repr, answers)) == sorted([repr((True, False))] * 3 + [repr(([], expected_errors))] * 3)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "integr"}, "'type' at '#/type'"),
        ({"properties": {"a": {"minimum": "1"}}}, "'minimum' at '#/properties/a/minimum'"),
        ({"pattern": "("}, "pattern '('"),
        ({"$ref": "#/$defs/missing"}, "$defs/missing"),
        ({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}, "$ref"),
        ({"$defs": {"unused": {"maxLength": -1}}}, "'maxLength' at '#/$defs/unused/maxLength'"),
    ],
)
def test_a_broken_small_schema_is_refused_by_compile_schema_itself(schema: Any, message: str) -> None:
    with pytest.raises(SchemaError) as info:
        compile_schema(schema)
    assert message in str(info.value)


@pytest.mark.parametrize("depth", [150, 200, 250])
def test_a_schema_too_deep_to_generate_code_for_is_refused_at_compile_time_not_at_its_first_call(depth: int) -> None:
    # Below the fixed 256-level schema limit, whether code generation runs out of stack depends on the
    # interpreter (3.11 does at 200 levels of this shape, 3.13 does not). What holds on every version: such a
    # schema is refused by compile_schema, or it compiled and its first calls answer; never a call-time failure.
    schema: Any = {"type": "string"}
    instance: Any = 5
    for _ in range(depth):
        schema = {"properties": {"a": schema}, "unevaluatedProperties": False}
        instance = {"a": instance}
    try:
        validator = compile_schema(schema)
    except SchemaError as refused:
        assert "nests too deeply to compile" in str(refused)
        return
    assert validator.is_valid(instance) is False
    assert validator.errors(instance) == ["property '" + ".".join(["a"] * depth) + "' must be string"]


def test_a_large_schema_is_compiled_at_once() -> None:
    properties = {f"p{i}": {"type": "integer"} for i in range(100)}
    validator = compile_schema({"type": "object", "properties": properties})
    assert is_built(validator)
    assert validator.errors({"p7": "x"}) == ["property 'p7' must be integer"]


def test_validators_from_the_cache_are_lazy_too_and_equal_schemas_share_their_code() -> None:
    schema = {"type": "object", "properties": {"lazy_cache_probe": {"enum": ["x", "y"]}}}
    first = checker_for(schema)
    second = checker_for({"type": "object", "properties": {"lazy_cache_probe": {"enum": ["x", "y"], "title": "P"}}})
    assert not is_built(first) and not is_built(second)
    assert first.errors({"lazy_cache_probe": "z"}) == ["property 'lazy_cache_probe' must be one of ['x', 'y']"]
    assert is_built(first) and not is_built(second)  # a title keeps schemas apart
    described = checker_for(
        {"type": "object", "properties": {"lazy_cache_probe": {"enum": ["x", "y"], "description": "P"}}}
    )
    assert described is not first and described.is_valid({"lazy_cache_probe": "x"})
    assert described.is_valid is first.is_valid and described.errors is first.errors  # generated once


def _tool_schema(description: str, title: str | None = None) -> dict[str, Any]:
    days: dict[str, Any] = {"type": "integer", "minimum": 1, "description": description, "default": 1}
    if title is not None:
        days["title"] = title
    return {
        "type": "object",
        "properties": {"shared_probe": {"type": "string", "description": description}, "days": days},
        "required": ["shared_probe"],
        "additionalProperties": False,
    }


def test_schemas_differing_only_in_silent_annotations_share_checks_and_code_not_their_validator() -> None:
    first, second = checker_for(_tool_schema("one")), checker_for(_tool_schema("two"))
    assert first is not second
    assert first.schema == _tool_schema("one") and second.schema == _tool_schema("two")
    assert first._checked is second._checked is not None
    assert second.errors({"days": 0}) == ["missing required property 'shared_probe'", "property 'days' must be >= 1"]
    assert first._checked is not None and first._checked.built is not None  # built once, by the second's call
    assert first.errors({"shared_probe": "x", "days": "2"}) == ["property 'days' must be integer"]


def test_a_title_or_a_reference_through_an_annotation_keeps_schemas_apart() -> None:
    # Messages may name a subschema by its title, so titled schemas never share.
    titled = checker_for(_tool_schema("three", title="Days"))
    assert titled._checked is not checker_for(_tool_schema("three", title="Days ahead"))._checked
    # A $ref that points into an annotation's value sees what the annotation holds.
    through = [
        {"properties": {"a": {"examples": [{"type": kind}]}, "b": {"$ref": "#/properties/a/examples/0"}}}
        for kind in ("string", "integer")
    ]
    as_string, as_integer = checker_for(through[0]), checker_for(through[1])
    assert as_string._checked is not as_integer._checked
    assert as_string.is_valid({"b": "x"}) and not as_integer.is_valid({"b": "x"})
