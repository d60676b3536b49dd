"""pydantic v2 as an optional input: models as parameters, ``Field(...)`` metadata, annotated-types constraints.

Tools are written the way the official SDK's examples write them (nested models with ``Field`` descriptions,
``Field`` defaults on plain parameters, validators on models) and served through the registry's one call path.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import subprocess
import sys
import uuid
from typing import Annotated, Any, NamedTuple

import annotated_types
import pydantic
import pytest
from derive_support import call, text_of
from pydantic import BaseModel, ConfigDict, Field, field_validator

from mcptools import ToolDefinitionError, ToolRegistry
from mcptools._schema import derive_tool


class Shrimp(BaseModel):
    name: str = Field(max_length=10)


class Tank(BaseModel):
    """A shrimp tank."""

    shrimp: list[Shrimp]
    extra_names: list[str] = Field(description="Extra names", default_factory=list)


class Order(BaseModel):
    order_id: uuid.UUID = Field(alias="orderId")
    quantity: int = Field(1, ge=1, description="How many")
    due: dt.date | None = None

    @field_validator("quantity")
    @classmethod
    def even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("must be even")
        return value


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str


class Node(BaseModel):
    value: int
    children: list[Node] = []


@pydantic.dataclasses.dataclass
class Window:
    start: dt.datetime
    hours: int = Field(default=1, gt=0, description="Length in hours")


def test_a_model_parameter_is_inlined_closed_and_untitled() -> None:
    def name_shrimp(tank: Tank, max_names: Annotated[int, Field(description="Most names")] = 3) -> str:
        return ""

    schema = derive_tool(name_shrimp).input_schema
    assert schema == {
        "type": "object",
        "properties": {
            "tank": {
                "type": "object",
                "description": "A shrimp tank.",
                "properties": {
                    "shrimp": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {"name": {"type": "string", "maxLength": 10}},
                            "required": ["name"],
                            "additionalProperties": False,
                        },
                    },
                    "extra_names": {"type": "array", "items": {"type": "string"}, "description": "Extra names"},
                },
                "required": ["shrimp"],
                "additionalProperties": False,
            },
            "max_names": {"type": "integer", "description": "Most names", "default": 3},
        },
        "required": ["tank"],
        "additionalProperties": False,
    }


def test_aliases_extra_allow_and_recursion() -> None:
    def t(order: Order, open_: Open, tree: Node) -> None:
        pass

    schema = derive_tool(t).input_schema
    order = schema["properties"]["order"]
    assert list(order["properties"]) == ["orderId", "quantity", "due"]
    assert order["properties"]["orderId"] == {"type": "string", "format": "uuid"}
    assert order["properties"]["quantity"] == {"type": "integer", "minimum": 1, "description": "How many", "default": 1}
    assert "additionalProperties" not in schema["properties"]["open_"]
    assert schema["properties"]["tree"] == {"$ref": "#/$defs/Node"}
    assert schema["$defs"]["Node"]["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}


def test_the_tool_gets_model_instances_built_by_the_model() -> None:
    registry = ToolRegistry("pyd")
    seen: list[Any] = []

    @registry.tool
    def place(order: Order, tree: Node, window: Window | None = None) -> str:
        seen.append((order, tree, window))
        return "ok"

    arguments = {
        "order": {"orderId": "123e4567-e89b-12d3-a456-426614174000", "quantity": 2, "due": "2026-12-02"},
        "tree": {"value": 1, "children": [{"value": 2}]},
        "window": {"start": "2026-12-02T10:00:00Z"},
    }
    assert call(registry, "place", arguments).get("isError") is not True
    order, tree, window = seen[0]
    assert order == Order(
        orderId=uuid.UUID("123e4567-e89b-12d3-a456-426614174000"), quantity=2, due=dt.date(2026, 12, 2)
    )
    assert tree == Node(value=1, children=[Node(value=2)])
    assert window == Window(dt.datetime(2026, 12, 2, 10, tzinfo=dt.timezone.utc))


def test_our_validator_speaks_first_then_the_models_validators_in_our_voice() -> None:
    registry = ToolRegistry("pyd")
    seen: list[Any] = []

    @registry.tool
    def place(orders: list[Order]) -> str:
        seen.append(orders)
        return "ok"

    good = {"orderId": "123e4567-e89b-12d3-a456-426614174000", "quantity": 2}
    ours = call(registry, "place", {"orders": [good, {"orderId": "x", "quantity": 0, "other": 1}]})
    assert text_of(ours) == (
        "Invalid arguments: property 'orders[1].orderId' must be a UUID, e.g. "
        "'123e4567-e89b-12d3-a456-426614174000'; property 'orders[1].quantity' must be >= 1; "
        "unexpected property 'orders[1].other'"
    )
    theirs = call(registry, "place", {"orders": [good, {**good, "quantity": 3}]})
    assert theirs["isError"] is True
    assert text_of(theirs) == "Invalid arguments: property 'orders[1].quantity': must be even"
    assert seen == []


def test_field_metadata_in_annotated_and_as_a_default() -> None:
    registry = ToolRegistry("pyd")
    seen: list[Any] = []

    @registry.tool
    def remember(
        names: list[str] = Field(description="Names to remember"),
        code: Annotated[str, Field(max_length=3, description="A code")] = "abc",
        tags: list[str] = Field(default_factory=list, description="Tags"),
        limit: int = Field(10, ge=1, le=100, examples=[5]),
        step: Annotated[float, annotated_types.MultipleOf(0.5), annotated_types.Gt(0)] = 1.0,
    ) -> str:
        seen.append((names, code, tags, limit, step))
        return "ok"

    schema = registry.get("remember").input_schema  # type: ignore[union-attr]
    assert schema["required"] == ["names"]
    assert schema["properties"]["names"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Names to remember",
    }
    assert schema["properties"]["code"] == {"type": "string", "description": "A code", "maxLength": 3, "default": "abc"}
    assert schema["properties"]["tags"] == {"type": "array", "items": {"type": "string"}, "description": "Tags"}
    assert schema["properties"]["limit"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "examples": [5],
        "default": 10,
    }
    assert schema["properties"]["step"] == {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5, "default": 1.0}
    assert call(registry, "remember", {"names": ["a"]}).get("isError") is not True
    assert seen == [(["a"], "abc", [], 10, 1.0)]
    seen[0][2].append("changed")  # a factory's value is made per call
    call(registry, "remember", {"names": []})
    assert seen[1] == ([], "abc", [], 10, 1.0)
    refused = call(registry, "remember", {"names": [], "code": "twelve chars", "limit": 0, "step": 0.3})
    assert text_of(refused) == (
        "Invalid arguments: property 'code' must be at most 3 characters; property 'limit' must be >= 1; "
        "property 'step' must be a multiple of 0.5"
    )
    assert len(seen) == 2


@pytest.mark.parametrize(
    ("default", "problem"),
    [
        (Field(1, json_schema_extra={"x": 1}), "json_schema_extra"),
        (Field(1, alias="y"), "alias"),
        (Field(1, ge=1, max_length=2), "max_length"),
    ],
)
def test_what_cannot_be_mapped_is_a_definition_error(default: Any, problem: str) -> None:
    def t(x: int = default) -> None:
        pass

    with pytest.raises(ToolDefinitionError) as info:
        derive_tool(t)
    assert str(info.value).startswith("tool 't' (function ")
    assert "parameter 'x'" in str(info.value)
    assert problem in str(info.value)


def test_an_unmappable_constraint_in_annotated_is_a_definition_error() -> None:
    def t(x: Annotated[int, annotated_types.Predicate(lambda v: v > 0)]) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match=r"parameter 'x'.*Predicate.*Param"):
        derive_tool(t)


def test_string_constraints_and_constr_give_length_and_pattern() -> None:
    # Annotated[str, StringConstraints(...)] (what constr(...) returns) was refused as having no keyword.
    registry = ToolRegistry("pyd")

    @registry.tool
    def code(
        tag: Annotated[str, pydantic.StringConstraints(min_length=2, max_length=4, pattern=r"^[a-z]+$")],
        word: pydantic.constr(max_length=3),  # type: ignore[valid-type]
    ) -> str:
        return f"{tag}{word}"

    properties = registry.get("code").input_schema["properties"]  # type: ignore[union-attr]
    assert properties["tag"] == {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]+$"}
    assert properties["word"] == {"type": "string", "maxLength": 3}
    assert text_of(call(registry, "code", {"tag": "A", "word": "long"})) == (
        "Invalid arguments: property 'tag' must be at least 2 characters; property 'word' must be at most 3 characters"
    )
    assert "must match pattern" in text_of(call(registry, "code", {"tag": "AB", "word": "c"}))
    assert text_of(call(registry, "code", {"tag": "ab", "word": "c"})) == "abc"

    def shouts(x: Annotated[str, pydantic.StringConstraints(to_upper=True)]) -> None:
        pass

    # It changes the value in pydantic's own validation, which a parameter never goes through.
    with pytest.raises(ToolDefinitionError, match=r"parameter 'x': pydantic's to_upper=True .* remove it"):
        derive_tool(shouts)


@dataclasses.dataclass
class Options:
    count: int = Field(3, ge=1, description="How many")
    tags: list[str] = Field(default_factory=list)


class Corner(NamedTuple):
    x: int = Field(2, description="Across")


def test_a_field_default_in_a_stdlib_dataclass_or_namedtuple_is_its_default_not_the_fieldinfo() -> None:
    # The schema read Field(...) there as metadata, but a value leaving the field out was built by the class,
    # whose default is the FieldInfo itself: the tool got Options(count=FieldInfo(...)).
    registry = ToolRegistry("pyd")
    seen: list[Any] = []

    @registry.tool
    def configure(options: Options, corner: Corner) -> str:
        seen.append((options, corner))
        options.tags.append("seen")
        return "ok"

    properties = registry.get("configure").input_schema["properties"]  # type: ignore[union-attr]
    assert properties["options"]["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "description": "How many",
        "default": 3,
    }
    for _ in range(2):
        assert text_of(call(registry, "configure", {"options": {}, "corner": {}})) == "ok"
    assert seen[0] == (Options(count=3, tags=["seen"]), Corner(x=2))
    assert seen[1][0].tags == ["seen"]  # a fresh list each call
    call(registry, "configure", {"options": {"count": 5, "tags": ["a"]}, "corner": {"x": 7}})
    assert seen[2] == (Options(count=5, tags=["a", "seen"]), Corner(x=7))


def test_import_mcptools_does_not_import_pydantic() -> None:
    # Nor the modules of the standard types (stdtypes.py, a bound's check): a tool that uses them pays for them.
    lazy = ("pydantic", "annotated_types", "decimal", "datetime", "uuid", "ipaddress", "mcptools._schema.stdtypes")
    code = f"import sys, mcptools; print(sorted(m for m in {lazy!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


class Weather(BaseModel):
    temperature: float
    at: dt.datetime = Field(alias="observedAt")


def test_a_model_or_a_standard_type_returned_is_structured_json() -> None:
    registry = ToolRegistry("pyd")
    moment = dt.datetime(2026, 12, 2, 10, tzinfo=dt.timezone.utc)

    @registry.tool
    def weather() -> Weather:
        return Weather(temperature=22.5, observedAt=moment)

    @registry.tool
    def now() -> dt.datetime:
        return moment

    result = call(registry, "weather", {})
    assert result["structuredContent"] == {"temperature": 22.5, "observedAt": "2026-12-02T10:00:00+00:00"}
    assert registry.get("weather").output_schema["properties"]["observedAt"] == {  # type: ignore[union-attr,index]
        "type": "string",
        "format": "date-time",
    }
    assert call(registry, "now", {})["structuredContent"] == {"result": "2026-12-02T10:00:00+00:00"}


class Receipt(BaseModel):
    """Written as model_dump(by_alias=True) writes it, which is not how it is read."""

    net: int
    code: str = Field(validation_alias="codeIn")
    owner: str = Field(serialization_alias="ownerOut")
    token: str = Field(exclude=True)

    @pydantic.computed_field  # type: ignore[prop-decorator]
    @property
    def gross(self) -> int:
        """Net plus tax."""
        return self.net * 2


def test_a_returned_model_is_published_as_its_dump_writes_it() -> None:
    # The SDK's outputSchema is pydantic's serialization schema: a computed field is in it, an excluded field
    # and the validation alias are not. A schema read as a parameter's failed every such tool's own output.
    registry = ToolRegistry("pyd")

    @registry.tool
    def receipt(taken: Receipt) -> Receipt:
        return taken

    tool = registry.get("receipt")
    assert tool is not None and tool.output_schema is not None
    assert tool.output_schema["properties"] == {
        "net": {"type": "integer"},
        "code": {"type": "string"},
        "ownerOut": {"type": "string"},
        "gross": {"type": "integer", "description": "Net plus tax."},
    }
    assert tool.output_schema["required"] == ["net", "code", "ownerOut", "gross"]
    assert sorted(tool.input_schema["properties"]["taken"]["properties"]) == ["codeIn", "net", "owner", "token"]
    result = call(registry, "receipt", {"taken": {"net": 5, "codeIn": "c", "owner": "o", "token": "t"}})
    assert result["isError"] is False, text_of(result)
    assert result["structuredContent"] == {"net": 5, "code": "c", "ownerOut": "o", "gross": 10}


class Numbers(pydantic.RootModel[list[int]]):
    pass


class HoldsNumbers(BaseModel):
    numbers: Numbers


@pytest.mark.parametrize("hint", [Numbers, HoldsNumbers, list[Numbers]])
def test_a_root_model_is_a_definition_error_not_an_object_of_root(hint: Any) -> None:
    # It was read as {"root": ...}: the value pydantic takes ([1, 2]) was refused, and its dump ([1, 2]) broke
    # the published outputSchema.
    registry = ToolRegistry("pyd")

    def given(numbers: Any) -> int:
        return 0

    def returned() -> Any:
        return None

    given.__annotations__ = {"numbers": hint, "return": int}
    returned.__annotations__ = {"return": hint}
    for fn in (given, returned):
        with pytest.raises(ToolDefinitionError, match=r"RootModel Numbers is not mapped .*annotate with its root type"):
            registry.tool(fn)


class Even(BaseModel):
    n: int

    @field_validator("n")
    @classmethod
    def even(cls, value: int) -> int:
        if value % 2:
            raise ValueError("must be even")
        return value


def test_the_models_own_complaints_name_dict_keys_and_tuple_positions() -> None:
    registry = ToolRegistry("pyd")
    seen: list[Any] = []

    @registry.tool
    def place(
        by_name: dict[str, Even],
        pair: tuple[int, Even] = (0, Even(n=0)),
        nested: list[dict[str, Even]] = [],  # noqa: B006 (each call gets a copy)
    ) -> str:
        seen.append((by_name, pair, nested))
        return "ok"

    @registry.tool
    def rest(**named: Even) -> str:
        seen.append(named)
        return "ok"

    cases: list[tuple[str, dict[str, Any], str]] = [
        ("place", {"by_name": {"k": {"n": 1}}}, "property 'by_name.k.n': must be even"),
        ("place", {"by_name": {}, "pair": [1, {"n": 3}]}, "property 'pair[1].n': must be even"),
        ("place", {"by_name": {}, "nested": [{}, {"a.b": {"n": 5}}]}, "property 'nested[1][\"a.b\"].n': must be even"),
        ("rest", {"zz": {"n": 7}}, "property 'zz.n': must be even"),
    ]
    for name, arguments, line in cases:
        result = call(registry, name, arguments)
        assert result["isError"] is True
        assert text_of(result) == "Invalid arguments: " + line
    # Our validator's own lines use the same paths, so both voices point at the same place.
    ours = call(registry, "place", {"by_name": {"a.b": {"n": "x"}}, "pair": [1, {"n": "y"}]})
    assert text_of(ours) == (
        "Invalid arguments: property 'by_name[\"a.b\"].n' must be integer; property 'pair[1].n' must be integer"
    )
    assert seen == []
    assert call(registry, "place", {"by_name": {"k": {"n": 2}}, "pair": [1, {"n": 4}]})["isError"] is False
    assert seen == [({"k": Even(n=2)}, (1, Even(n=4)), [])]


def test_pydantic_locations_become_validator_paths() -> None:
    from mcptools._schema.pydantic_support import ModelRejected, problem_lines

    rejected = ModelRejected([(("d", "a.b", 0, "n"), "must be even"), ((), "dates out of order"), (("", 2), "no")])
    assert problem_lines(("arg",), rejected) == [
        "property 'arg.d[\"a.b\"][0].n': must be even",
        "property 'arg': dates out of order",
        "property 'arg[\"\"][2]': no",
    ]
    assert problem_lines((), ModelRejected([(("when",), "in the past")])) == ["property 'when': in the past"]


class Window2(BaseModel):
    start: dt.date
    end: dt.date

    @pydantic.model_validator(mode="after")
    def ordered(self) -> Window2:
        if self.end < self.start:
            raise ValueError("end is before start")
        return self

    @field_validator("start")
    @classmethod
    def weekday(cls, value: dt.date) -> dt.date:
        if value.weekday() >= 5:  # pydantic words an AssertionError as "Assertion failed, ..." (raised, not
            raise AssertionError("start must be a weekday")  # an assert, which pytest would rewrite here)
        return value


def test_pydantic_validation_errors_are_error_results_in_our_voice_never_a_dump() -> None:
    registry = ToolRegistry("pyd")

    @registry.tool
    def book(window: Window2, more: dict[str, Window2] | None = None) -> str:
        return "ok"

    @registry.tool
    def builds_its_own() -> str:
        Window2(start="x", end="y")  # type: ignore[arg-type]
        return "unreachable"

    cases: list[tuple[dict[str, Any], str]] = [
        ({"window": {"start": "2026-12-03", "end": "2026-12-01"}}, "property 'window': end is before start"),
        ({"window": {"start": "2026-12-05", "end": "2026-12-07"}}, "property 'window.start': start must be a weekday"),
        (
            {
                "window": {"start": "2026-12-01", "end": "2026-12-02"},
                "more": {"b": {"start": "2026-12-04", "end": "2026-12-03"}},
            },
            "property 'more.b': end is before start",
        ),
    ]
    for arguments, line in cases:
        result = call(registry, "book", arguments)
        assert result["isError"] is True
        assert text_of(result) == "Invalid arguments: " + line
    # A ValidationError the tool's own code raises is the tool's failure, not bad arguments: named by its class
    # and, as the peers send it, its message (masked: the class only, the dump in the server's log).
    inside = call(registry, "builds_its_own", {})
    assert inside["isError"] is True
    assert text_of(inside).startswith("Tool 'builds_its_own' failed: ValidationError: ")
    registry.mask_error_details = True
    assert text_of(call(registry, "builds_its_own", {})) == "Tool 'builds_its_own' failed: ValidationError"
