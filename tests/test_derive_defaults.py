"""Defaults are checked at definition time without compiling a validator, and the shortcut is never wrong.

``surely_accepts`` may only say "valid" when the compiled validator agrees: hypothesis draws schemas from the
vocabulary derivation emits (plus keywords it does not know) and values, and checks that every "yes" is a yes of
``compile_schema``. The common defaults of real tools take the shortcut (no ``compile_schema`` at all), and a
bad default is still refused at decoration with the compiled validator's message.
"""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from typing_extensions import TypedDict

import mcptools._validation
from mcptools import Param, ToolDefinitionError, ToolRegistry
from mcptools._schema import derive_tool
from mcptools._schema.defaults import surely_accepts
from mcptools._validation import compile_schema

NAMES = ["a", "b", "description"]
TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([0.0, 1.0, 1.5, -2.5, 2.0]),
    st.text(alphabet="ab", max_size=3),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
    max_leaves=8,
)
leaves = st.one_of(
    st.booleans(),
    st.builds(lambda t: {"type": t}, st.sampled_from(TYPES)),
    st.builds(lambda ts: {"type": ts}, st.lists(st.sampled_from(TYPES), min_size=1, max_size=3)),
    st.builds(lambda vs: {"enum": vs}, st.lists(scalars, min_size=1, max_size=3)),
    st.builds(lambda v: {"const": v}, values),
    st.builds(
        lambda k, b: {k: b},
        st.sampled_from(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]),
        st.sampled_from([-1, 0, 1, 1.5, True]),
    ),
    st.builds(
        lambda k, n: {k: n},
        st.sampled_from(["minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"]),
        st.sampled_from([0, 1, 2, 1.0]),
    ),
    st.builds(lambda names: {"required": names}, st.lists(st.sampled_from(NAMES), max_size=2)),
    st.builds(lambda u: {"uniqueItems": u}, st.booleans()),
    st.just({"description": "annotations never matter", "examples": [1], "format": "email"}),
    st.just({"pattern": "^a"}),
    st.just({"multipleOf": 2}),
    st.just({"$ref": "#/$defs/d"}),
)


def _composite(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    some = st.lists(inner, min_size=1, max_size=3)
    return st.one_of(
        st.builds(lambda props: {"properties": props}, st.dictionaries(st.sampled_from(NAMES), inner, max_size=3)),
        st.builds(lambda s: {"additionalProperties": s}, inner),
        st.builds(lambda s: {"propertyNames": s}, inner),
        st.builds(lambda s: {"items": s}, inner),
        st.builds(lambda ss: {"prefixItems": ss}, some),
        st.builds(lambda ss, s: {"prefixItems": ss, "items": s}, some, inner),
        st.builds(lambda ss: {"anyOf": ss}, some),
        st.builds(lambda ss: {"allOf": ss}, some),
        st.builds(lambda ss: {"oneOf": ss}, some),
        st.builds(lambda s: {"not": s}, inner),
        st.builds(lambda parts: {k: v for part in parts if isinstance(part, dict) for k, v in part.items()}, some),
    )


schemas = st.recursive(leaves, _composite, max_leaves=6)


@settings(max_examples=scaled(1500), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schemas, schemas, values)
def test_a_yes_is_always_a_yes_of_the_compiled_validator(schema: Any, definition: Any, value: Any) -> None:
    wrapper = {"type": "object", "properties": {"p": schema}, "$defs": {"d": definition}}
    try:
        validator = compile_schema(wrapper)
    except mcptools.SchemaError:
        return  # a schema no validator accepts is refused by the registry's own check
    if surely_accepts(schema, value, {"d": definition}):
        assert validator.errors({"p": value}) == [], (schema, value)


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1


class Options(TypedDict):
    fast: bool


def weather(
    location: str,
    days: Annotated[int, Param(minimum=1, maximum=14)] = 1,
    units: Literal["c", "f"] = "c",
    ratio: float = 0.5,
    tags: list[str] = [],  # noqa: B006
    unique: set[str] = set(),  # noqa: B006
    options: Options | None = None,
    line: Line | None = None,
    size: Annotated[str, Param(min_length=1, max_length=5)] = "ab",
    pair: tuple[int, str] = (1, "x"),
    mapping: dict[str, int] = {"a": 1},  # noqa: B006
) -> str:
    return location


def test_common_defaults_are_checked_without_compiling_anything(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a default check compiled a validator")

    monkeypatch.setattr(mcptools._validation, "compile_schema", refuse)
    schema = derive_tool(weather).input_schema
    assert schema["properties"]["days"]["default"] == 1
    assert schema["properties"]["pair"]["default"] == [1, "x"]


@pytest.mark.parametrize(
    ("annotation", "default", "expected"),
    [
        (Annotated[int, Param(minimum=1)], 0, "must be >= 1"),
        (Annotated[float, Param(exclusive_maximum=1.0)], 1.0, "must be < 1"),
        (Annotated[str, Param(max_length=2)], "abc", "must be at most 2 characters"),
        (Annotated[str, Param(pattern="^a")], "b", "must match pattern"),
        (Annotated[int, Param(multiple_of=3)], 4, "must be a multiple of 3"),
        (Annotated[list[int], Param(min_items=1)], [], "must have at least 1 item"),
    ],
)
def test_a_default_that_breaks_its_constraints_is_still_refused_at_decoration(
    annotation: Any, default: Any, expected: str
) -> None:
    def tool(value: Any = default) -> None:
        pass

    tool.__annotations__["value"] = annotation
    with pytest.raises(ToolDefinitionError) as info:
        ToolRegistry("s").add(tool)
    message = str(info.value)
    assert f"parameter 'value' defaults to {default!r}" in message and expected in message, message
