"""Definition-time errors: each names the tool, the function, the parameter, and says how to fix it."""

import datetime
import decimal
import enum
import re
import sys
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypedDict

import pytest
from typing_extensions import NotRequired, TypeAliasType, Unpack

from mcptools._context import Context
from mcptools._errors import ToolDefinitionError
from mcptools._schema import Param, derive_tool


def error_of(fn: Callable[..., Any], **options: Any) -> str:
    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(fn, **options)
    return str(info.value)


def prefix(fn: Callable[..., Any], name: str | None = None) -> str:
    return f"tool {name or fn.__name__!r} (function {fn.__module__}.{fn.__qualname__})"


def when_tool(when: complex) -> None:
    pass


def test_unmappable_annotation_message_is_exact() -> None:
    assert error_of(when_tool, name="weather") == (
        "tool 'weather' (function test_derive_errors.when_tool): parameter 'when' has annotation "
        "complex, which mcptools cannot map to JSON Schema; use a JSON-shaped type (str, int, float, bool, "
        "list, dict, Literal, an Enum, a TypedDict, a dataclass, a pydantic model, or a datetime, date, time, "
        "timedelta, UUID, Decimal, Path, bytes or IP address), or pass input_schema=..."
    )


@pytest.mark.parametrize(
    ("annotation", "fix"),
    [
        (datetime.tzinfo, "use a JSON-shaped type"),
        (memoryview, "use a JSON-shaped type"),
        (decimal.Context, "use a JSON-shaped type"),
        (bytearray, "use a JSON-shaped type"),
        (complex, "use a JSON-shaped type"),
        (Callable[[int], int], "use a JSON-shaped type"),
        (type[int], "use a JSON-shaped type"),
    ],
    ids=repr,
)
def test_unmappable_annotations_suggest_a_fix(annotation: Any, fix: str) -> None:
    def tool(value: Any) -> None:
        pass

    tool.__annotations__ = {"value": annotation}
    message = error_of(tool)
    assert message.startswith(prefix(tool) + ": parameter 'value' has annotation ")
    assert "which mcptools cannot map to JSON Schema; " + fix in message


def test_nested_unmappable_type_says_where() -> None:
    class Event(TypedDict):
        when: datetime.tzinfo

    def plan(events: list[dict[str, Event]]) -> None:
        pass

    message = error_of(plan)
    assert message.startswith(prefix(plan) + ": parameter 'events' (in the items of list[dict[str, ")
    assert "field 'when' of test_derive_errors.test_nested_unmappable_type_says_where.<locals>.Event" in message
    assert (
        "Event) has annotation datetime.tzinfo, which mcptools cannot map to JSON Schema; use a JSON-shaped type"
        in message
    )


def test_var_positional_is_refused() -> None:
    def tool(*values: int) -> None:
        pass

    assert error_of(tool) == (
        f"{prefix(tool)}: parameter '*values' collects positional arguments, but MCP passes arguments by "
        "name; take a list parameter instead (e.g. values: list[str])"
    )


def test_positional_only_is_refused() -> None:
    def tool(a: int, /, b: int) -> None:
        pass

    assert error_of(tool) == (
        f"{prefix(tool)}: parameter 'a' is positional-only, but MCP passes arguments by name; remove the '/' "
        "from the signature"
    )


def test_unresolvable_annotation_names_the_name() -> None:
    def tool(a: "Missing") -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    message = error_of(tool)
    assert message.startswith(prefix(tool) + ": its annotations cannot be resolved (NameError: ")
    assert "'Missing'" in message
    assert message.endswith("define or import the names they use at module level, or pass input_schema=...")


def test_two_context_parameters_are_refused() -> None:
    def tool(a: Context, b: Context) -> None:
        pass

    assert (
        error_of(tool)
        == f"{prefix(tool)}: parameter 'b' is a second Context parameter (the first is 'a'); keep only one"
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (
            Annotated[int, Param(min_length=1)],
            "parameter 'x': Param(min_length=1) sets min_length, which only constrains a string, but the "
            "type is "
            "int; remove min_length or change the type",
        ),
        (
            Annotated[str, Param(minimum=0)],
            "parameter 'x': Param(minimum=0) sets minimum, which only constrains a number (int or float), "
            "but the "
            "type is str; remove minimum or change the type",
        ),
        (
            Annotated[str, Param(min_items=1)],
            "parameter 'x': Param(min_items=1) sets min_items, which only constrains an array (list, tuple, "
            "set), "
            "but the type is str; remove min_items or change the type",
        ),
        (
            Annotated[list[int], Param(max_properties=1)],
            "parameter 'x': Param(max_properties=1) sets max_properties, which only constrains an object "
            "(dict, "
            "TypedDict, dataclass), but the type is list[int]; remove max_properties or change the type",
        ),
        (
            Annotated[int, Param(minimum=5, maximum=1)],
            "parameter 'x': Param(minimum=5, maximum=1): minimum (5) must not exceed maximum (1); nothing passes",
        ),
        (
            Annotated[int, Param(exclusive_minimum=1, maximum=1)],
            "parameter 'x': Param(maximum=1, exclusive_minimum=1): exclusive_minimum (1) must be below "
            "maximum "
            "(1); nothing passes",
        ),
        (
            Annotated[str, Param(min_length=3, max_length=2)],
            "parameter 'x': Param(min_length=3, max_length=2): min_length (3) must not exceed max_length "
            "(2); "
            "nothing passes",
        ),
        (
            Annotated[str, Param(min_length=-1)],
            "parameter 'x': Param(min_length=-1): min_length must be an int >= 0, not -1",
        ),
        (
            Annotated[float, Param(multiple_of=0)],
            "parameter 'x': Param(multiple_of=0): multiple_of must be greater than 0",
        ),
        (
            Annotated[float, Param(minimum=float("nan"))],
            "parameter 'x': Param(minimum=nan): minimum must be a finite int or float, not nan",
        ),
        (
            Annotated[float, Param(minimum=True)],
            "parameter 'x': Param(minimum=True): minimum must be a finite int or float, not True",
        ),
        (
            Annotated[str, Param(description=3)],  # type: ignore[arg-type]
            "parameter 'x': Param(description=3): description must be a str, not int",
        ),
        (
            Annotated[str, Param(pattern="(")],
            "parameter 'x': Param(pattern='('): pattern does not compile (missing ), unterminated "
            "subpattern at "
            "position 0); fix the regular expression",
        ),
        (
            Annotated[str, Param(examples=[b"x"])],
            "parameter 'x': Param(examples=(b'x',)): example b'x' is not a JSON value (bytes is not a JSON "
            "type); give JSON values only",
        ),
        (
            Annotated[int, Param(deprecated="yes")],  # type: ignore[arg-type]
            "parameter 'x': Param(deprecated='yes'): deprecated must be a bool, not str",
        ),
    ],
    ids=lambda value: repr(value)[:60],
)
def test_param_problems(annotation: Any, expected: str) -> None:
    def tool(x: Any) -> None:
        pass

    tool.__annotations__ = {"x": annotation}
    assert error_of(tool) == f"{prefix(tool)}: {expected}"


class Level(enum.IntEnum):
    LOW = 1


class Shade(enum.Enum):
    DARK = "dark"


class Other(enum.Enum):
    DARK = "dark"


class Cat(TypedDict):
    name: str
    mood: Shade


class Dog(TypedDict):
    name: str
    size: Level


@pytest.mark.parametrize(
    ("annotation", "members", "kind"),
    [
        (int | Level, "int and test_derive_errors.Level", "integer"),
        (str | Shade, "str and test_derive_errors.Shade", "string"),
        (Shade | Other, "test_derive_errors.Shade and test_derive_errors.Other", "string"),
        (Cat | Dog, "test_derive_errors.Cat and test_derive_errors.Dog", "object"),
        (Any | tuple[int, int], "typing.Any and tuple[int, int]", "array"),
        (list[int] | set[int], "list[int] and set[int]", "array"),
    ],
    ids=repr,
)
def test_ambiguous_unions_are_refused(annotation: Any, members: str, kind: str) -> None:
    def tool(x: Any) -> None:
        pass

    tool.__annotations__ = {"x": annotation}
    assert error_of(tool) == (
        f"{prefix(tool)}: parameter 'x': the union members {members} all arrive as JSON {kind} values and at "
        "least one of them is converted to a Python type, so mcptools cannot tell which member a value is "
        "meant "
        "to be; keep one of them, use Literal/Enum members with distinct values, or give each object member "
        "a "
        "Literal tag field with its own value"
    )


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (
            dict[int, str],
            "parameter 'x' has annotation dict[int, str], but JSON object keys are strings; use str keys "
            "(or a "
            "Literal / Enum of strings)",
        ),
        (
            Literal[1.5],
            "parameter 'x': typing.Literal[1.5] has the value 1.5, which is not a JSON string, integer, "
            "boolean or "
            "null; use one of those",
        ),
        (
            NotRequired[int],
            "parameter 'x': typing.NotRequired[int] only means something on a TypedDict key; remove it here",
        ),
    ],
    ids=repr,
)
def test_other_type_problems(annotation: Any, expected: str) -> None:
    def tool(x: Any) -> None:
        pass

    tool.__annotations__ = {"x": annotation}
    assert error_of(tool) == f"{prefix(tool)}: {expected}"


def test_enum_problems() -> None:
    class Empty(enum.Enum):
        pass

    class Weird(enum.Enum):
        A = (1, 2)

    def empty(x: Empty) -> None:
        pass

    def weird(x: Weird) -> None:
        pass

    assert error_of(empty).endswith("parameter 'x': the Enum " + _name(Empty) + " has no members; give it at least one")
    assert error_of(weird).endswith(
        f"parameter 'x': the Enum member {_name(Weird)}.A has the value (1, 2), which is not a JSON scalar; "
        f"give "
        "the Enum str or int values"
    )


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_recursive_type_alias_is_refused() -> None:
    Json = TypeAliasType("Json", int)
    # What ``type Json = int | list[Json]`` builds on Python 3.12, made by hand to run on older versions.
    object.__setattr__(Json, "__value__", int | list[Json])

    def tool(x: Json) -> None:
        pass

    message = error_of(tool)
    assert message.startswith(prefix(tool) + ": parameter 'x' (in the union member list[")
    assert message.endswith(
        ": the type alias Json refers to itself; recursive aliases are not supported, use a recursive "
        "dataclass or TypedDict instead"
    )


def test_non_recursive_type_alias_is_read_through() -> None:
    Days = TypeAliasType("Days", Annotated[int, Param(minimum=1)])

    def tool(x: Days) -> None:
        pass

    assert derive_tool(tool).input_schema["properties"]["x"] == {"type": "integer", "minimum": 1}


def test_unpack_of_a_non_typeddict_is_refused() -> None:
    def tool(**options: Unpack[Any]) -> None:  # type: ignore[misc]
        pass

    assert error_of(tool) == (
        f"{prefix(tool)}: parameter '**options' unpacks something that is not a TypedDict; use "
        "Unpack[SomeTypedDict] or a plain **kwargs: T"
    )


def test_unpacked_key_clashing_with_a_parameter_is_refused() -> None:
    class Options(TypedDict):
        name: str

    def tool(name: str, **options: Unpack[Options]) -> None:  # type: ignore[misc]
        pass

    assert error_of(tool) == (f"{prefix(tool)}: key 'name' of '**options' repeats a parameter name; rename one of them")


# Explicit input_schema: checked against the signature, never derived.


def explicit(city: str, days: int = 1, ctx: Context | None = None) -> None:
    pass


def explicit_with_context(city: str, ctx: Context) -> None:
    pass


def explicit_kwargs(city: str, **rest: Any) -> None:
    pass


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "array"}, 'input_schema must have "type": "object" at the top; pass an object schema like'),
        ({"properties": {}}, 'input_schema must have "type": "object" at the top'),
        ({"type": "object", "properties": []}, 'input_schema\'s "properties" must be an object;'),
        ({"type": "object", "required": "city"}, 'input_schema\'s "required" must be a list of names;'),
        (
            {"type": "object", "properties": {"city": {}}, "required": ["city", "country"]},
            "input_schema declares property 'country', but the function has no parameter 'country'; add the "
            "parameter (or **kwargs), or remove 'country' from the schema",
        ),
        (
            {"type": "object", "properties": {"city": {}, "zip": {}}, "required": ["city"]},
            "input_schema declares property 'zip', but the function has no parameter 'zip'",
        ),
        (
            {"type": "object", "properties": {"city": {}}},
            "parameter 'city' has no default, but input_schema does not require it; add 'city' to "
            '"required" '
            "or give the parameter a default",
        ),
    ],
    ids=repr,
)
def test_explicit_schema_problems(schema: Any, expected: str) -> None:
    message = error_of(explicit, input_schema=schema)
    assert message.startswith(prefix(explicit) + ": " + expected)


def test_explicit_schema_must_not_publish_the_context() -> None:
    schema = {"type": "object", "properties": {"city": {}, "ctx": {}}, "required": ["city"]}
    assert error_of(explicit_with_context, input_schema=schema) == (
        f"{prefix(explicit_with_context)}: parameter 'ctx' is the injected Context, but input_schema "
        f"declares "
        "it as a property; remove it from the schema"
    )


def test_explicit_schema_that_fits_is_returned_as_is() -> None:
    schema = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
        "additionalProperties": False,
    }
    derived = derive_tool(explicit_with_context, input_schema=schema)
    assert derived.input_schema == schema
    assert derived.convert is None
    assert derived.context_param == "ctx"
    loose = {"type": "object", "properties": {"city": {}, "other": {}}, "required": ["city", "other"]}
    assert derive_tool(explicit_kwargs, input_schema=loose).input_schema == loose


def test_explicit_schema_open_to_other_names_needs_kwargs() -> None:
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    message = error_of(explicit_with_context, input_schema=schema)
    assert message.startswith(prefix(explicit_with_context))
    assert "allows properties the function has no parameter for" in message
    assert '"additionalProperties": false' in message and "**kwargs" in message
    closed_by_unevaluated = {**schema, "unevaluatedProperties": False}
    assert derive_tool(explicit_with_context, input_schema=closed_by_unevaluated).input_schema == closed_by_unevaluated


def test_explicit_schema_skips_annotation_checks_but_not_signature_checks() -> None:
    def untyped(when: datetime.datetime, x) -> None:  # type: ignore[no-untyped-def]
        pass

    def star(*args: int) -> None:
        pass

    schema = {
        "type": "object",
        "properties": {"when": {}, "x": {}},
        "required": ["when", "x"],
        "additionalProperties": False,
    }
    assert derive_tool(untyped, input_schema=schema).input_schema == schema
    assert "'*args' collects positional arguments" in error_of(star, input_schema={"type": "object"})


def test_every_error_is_a_type_error_subclass() -> None:
    assert issubclass(ToolDefinitionError, TypeError)
    assert re.search(r"'\*values'", error_of(lambda *values: None))


@pytest.mark.skipif(sys.version_info < (3, 12), reason="the type statement is Python 3.12+")
def test_type_statement_aliases() -> None:
    namespace: dict[str, Any] = {"Annotated": Annotated, "Param": Param}
    exec("type Days = Annotated[int, Param(minimum=1)]\ntype Json = int | list[Json]", namespace)

    def days(x: Any) -> None:
        pass

    def json(x: Any) -> None:
        pass

    days.__annotations__ = {"x": namespace["Days"]}
    json.__annotations__ = {"x": namespace["Json"]}
    assert derive_tool(days).input_schema["properties"]["x"] == {"type": "integer", "minimum": 1}
    assert error_of(json).endswith(
        ": the type alias Json refers to itself; recursive aliases are not supported, "
        "use a recursive dataclass or TypedDict instead"
    )


def test_return_annotation_mistakes_are_errors_but_foreign_types_are_not() -> None:
    def bad() -> Annotated[int, Param(min_length=1)]:
        return 1

    def ambiguous() -> int | Level:
        return 1

    def content() -> list[datetime.tzinfo]:  # not JSON-shaped, so not structured output
        return []

    assert error_of(bad) == (
        f"{prefix(bad)}: the return annotation: Param(min_length=1) sets min_length, which only constrains a "
        "string, but the type is int; remove min_length or change the type"
    )
    assert error_of(ambiguous).startswith(f"{prefix(ambiguous)}: the return annotation: the union members int and ")
    assert derive_tool(content).output_schema is None


def test_an_unresolvable_annotation_comes_with_what_needs_no_annotations() -> None:
    def tool(*values: int, when: "Undefined") -> None:  # type: ignore[name-defined]  # noqa: F821
        pass

    message = error_of(tool)
    assert "2 definition problems" in message
    assert "'*values'" in message and "cannot be resolved" in message
