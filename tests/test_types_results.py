"""Results people return (models, dataclasses, TypedDicts, plain annotated classes, datetimes, UUIDs, ...) become
JSON: ``structuredContent`` checked against an ``outputSchema`` derived from the return annotation, and JSON text
in ``content``, never Python's repr. Typed elicitation: ``ctx.elicit(message, T)``.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import ipaddress
import json
import pathlib
import time
import uuid
from collections.abc import Iterator
from typing import Any, Literal, NamedTuple, TypedDict

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from memory_support import MemoryClient
from protocol_support import run

from mcptools import Context, ElicitationError, Elicited, ToolDefinitionError, ToolRegistry, call_tool
from mcptools._schema.jsonify import NotJSON, jsonify
from mcptools._validation import checker_for


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Weather(pydantic.BaseModel):
    """Weather at one place."""

    temperature: float = pydantic.Field(description="Degrees Celsius")
    conditions: str
    observed: datetime.datetime
    station: uuid.UUID


class Forecast(pydantic.BaseModel):
    days: list[Weather]
    tags: set[str] = pydantic.Field(default_factory=set)


@dataclasses.dataclass
class Reading:
    when: datetime.date
    value: decimal.Decimal
    source: pathlib.Path
    color: Color = Color.RED


class Location(TypedDict):
    name: str
    at: datetime.time


class Span(NamedTuple):
    start: int
    end: int


class UserProfile:
    """The official SDK's plain class: annotated attributes, no dataclass, no model."""

    name: str
    age: int
    email: str | None

    def __init__(self, name: str, age: int, email: str | None = None) -> None:
        self.name = name
        self.age = age
        self.email = email


WHEN = datetime.datetime(2026, 12, 2, 10, 0, tzinfo=datetime.timezone.utc)
STATION = uuid.UUID("12345678-1234-5678-1234-567812345678")


def _call(registry: ToolRegistry, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    response = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments or {}}}
    )
    assert response is not None
    result: dict[str, Any] = response["result"]
    return result


def _listing(registry: ToolRegistry, name: str) -> dict[str, Any]:
    response = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert response is not None
    tools = response["result"]["tools"]
    entry: dict[str, Any] = next(tool for tool in tools if tool["name"] == name)
    return entry


@pytest.mark.parametrize(
    ("annotation", "value", "structured", "schema_part"),
    [
        (
            Weather,
            Weather(temperature=22.5, conditions="sunny", observed=WHEN, station=STATION),
            {
                "temperature": 22.5,
                "conditions": "sunny",
                "observed": "2026-12-02T10:00:00+00:00",
                "station": str(STATION),
            },
            {"observed": {"type": "string", "format": "date-time"}, "station": {"type": "string", "format": "uuid"}},
        ),
        (
            Reading,
            Reading(datetime.date(2026, 1, 2), decimal.Decimal("1.10"), pathlib.Path("/tmp/x")),
            {"when": "2026-01-02", "value": "1.10", "source": "/tmp/x", "color": "red"},
            {
                "when": {"type": "string", "format": "date"},
                "value": {"type": ["string", "number"], "format": "decimal"},
            },
        ),
        (
            Location,
            {"name": "Paris", "at": datetime.time(9, 30, tzinfo=datetime.timezone.utc)},
            {"name": "Paris", "at": "09:30:00+00:00"},
            {"at": {"type": "string", "format": "time"}},
        ),
        (
            UserProfile,
            UserProfile("Ada", 36),
            {"name": "Ada", "age": 36, "email": None},
            {"age": {"type": "integer"}},
        ),
        (Span, Span(1, 2), {"start": 1, "end": 2}, {"start": {"type": "integer"}}),
        (
            datetime.datetime,
            WHEN,
            {"result": "2026-12-02T10:00:00+00:00"},
            {"result": {"type": "string", "format": "date-time"}},
        ),
        (datetime.timedelta, datetime.timedelta(hours=1, seconds=3), {"result": "P0DT3603S"}, {}),
        (
            set[int],
            {3, 1, 2},
            {"result": [1, 2, 3]},
            {"result": {"type": "array", "items": {"type": "integer"}, "uniqueItems": True}},
        ),
        (tuple[str, uuid.UUID], ("a", STATION), {"result": ["a", str(STATION)]}, {}),
        (ipaddress.IPv4Address, ipaddress.IPv4Address("10.0.0.1"), {"result": "10.0.0.1"}, {}),
        (
            list[bytes],
            [b"\x00\xff"],
            {"result": ["AP8="]},
            {"result": {"type": "array", "items": {"type": "string", "contentEncoding": "base64"}}},
        ),
        (Color, Color.BLUE, {"result": "blue"}, {}),
        (
            dict[str, Any],
            {"at": WHEN, "ids": {STATION}},
            {"at": "2026-12-02T10:00:00+00:00", "ids": [str(STATION)]},
            {},
        ),
    ],
    ids=lambda v: getattr(v, "__name__", None) or str(v)[:20],
)
def test_returned_values_are_structured_json(
    annotation: Any, value: Any, structured: Any, schema_part: dict[str, Any]
) -> None:
    registry = ToolRegistry("results")

    def tool() -> None:
        return value  # type: ignore[no-any-return]

    tool.__annotations__ = {"return": annotation}
    registry.add(tool)
    result = _call(registry, "tool")
    assert result["isError"] is False, result
    assert result["structuredContent"] == structured
    shown = structured["result"] if list(structured) == ["result"] else structured
    text = result["content"][0]["text"]
    assert text == shown if isinstance(shown, str) else json.loads(text) == shown
    schema = _listing(registry, "tool")["outputSchema"]
    for name, part in schema_part.items():
        assert schema["properties"][name] == part
    assert checker_for(schema, format_assertion=True).errors(structured) == []


def test_a_model_result_has_our_schema_conventions() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def forecast() -> Forecast:
        return Forecast(days=[Weather(temperature=1, conditions="snow", observed=WHEN, station=STATION)])

    schema = _listing(registry, "forecast")["outputSchema"]
    weather = schema["properties"]["days"]["items"]
    assert weather["description"] == "Weather at one place."
    assert weather["properties"]["temperature"] == {"type": "number", "description": "Degrees Celsius"}
    assert weather["additionalProperties"] is False and "title" not in weather and "$defs" not in schema
    result = _call(registry, "forecast")
    assert result["structuredContent"]["days"][0]["observed"] == "2026-12-02T10:00:00+00:00"
    assert result["structuredContent"]["tags"] == []


def test_results_without_a_return_annotation_are_json_text() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def greet():  # type: ignore[no-untyped-def]
        return {"greeting": "hi", "at": WHEN}

    @registry.tool
    def numbers():  # type: ignore[no-untyped-def]
        return [1, True, None]

    @registry.tool
    def opaque():  # type: ignore[no-untyped-def]
        return object.__new__(type("Opaque", (), {"__str__": lambda self: "opaque!"}))

    assert "outputSchema" not in _listing(registry, "greet")
    greeted = _call(registry, "greet")
    assert greeted["content"][0]["text"] == '{"greeting": "hi", "at": "2026-12-02T10:00:00+00:00"}'
    assert greeted["structuredContent"] == {"greeting": "hi", "at": "2026-12-02T10:00:00+00:00"}
    listed = _call(registry, "numbers")
    assert listed["content"][0]["text"] == "[1, true, null]" and "structuredContent" not in listed
    assert _call(registry, "opaque")["content"][0]["text"] == "opaque!"


def test_the_oldest_revision_gets_no_structured_content() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def greet():  # type: ignore[no-untyped-def]
        return {"greeting": "hi"}

    client = MemoryClient(registry)
    run(client.initialize("2025-03-26"))
    result = run(client.request("tools/call", {"name": "greet"}))["result"]
    assert "structuredContent" not in result
    assert result["content"][0]["text"] == '{"greeting": "hi"}'


def test_the_bare_call_tool_keeps_str() -> None:
    tools = {"t": ({"type": "object"}, lambda: {"a": 1})}
    response = call_tool(tools, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}})
    assert response["result"]["content"][0]["text"] == "{'a': 1}"


def test_a_value_with_no_json_form_is_an_error_that_says_where() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def leaky() -> dict[str, Any]:
        return {"items": [1, object()]}

    result = _call(registry, "leaky")
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "Tool 'leaky' returned output that cannot be sent as JSON: a object at items[1] has no JSON form"
    )


class Stamp(TypedDict):
    when: datetime.datetime
    at: list[datetime.time]


@pytest.fixture
def local_time_is_utc_plus_one(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The process's local zone is UTC+01:00 (a POSIX TZ string: no tz database needed)."""
    monkeypatch.setenv("TZ", "MCP-1")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.usefixtures("local_time_is_utc_plus_one")
def test_a_naive_datetime_or_time_result_is_local_time_sent_with_its_offset() -> None:
    # RFC 3339 (the date-time / time formats a result publishes) needs an offset; Python reads a naive value as
    # local time (datetime.astimezone()), and the official SDK's examples return datetime.now().
    registry = ToolRegistry("results")
    naive = datetime.datetime(2026, 12, 2, 10, 0)

    @registry.tool
    def stamp() -> Stamp:
        return {"when": naive, "at": [datetime.time(9), datetime.time(10, tzinfo=datetime.timezone.utc)]}

    @registry.tool
    def moment() -> datetime.datetime:
        return naive

    @registry.tool
    def keyed() -> dict[str, Any]:
        return {"seen": {naive: 1}}

    @registry.tool
    def hours():  # type: ignore[no-untyped-def]
        return {"opens": datetime.time(8), "since": [datetime.datetime(2026, 1, 1)], "on": {datetime.date(2026, 1, 2)}}

    stamped = _call(registry, "stamp")
    assert stamped["isError"] is False, stamped
    assert stamped["structuredContent"] == {
        "when": "2026-12-02T10:00:00+01:00",
        "at": ["09:00:00+01:00", "10:00:00+00:00"],
    }
    assert _call(registry, "moment")["structuredContent"] == {"result": "2026-12-02T10:00:00+01:00"}
    assert _call(registry, "keyed")["structuredContent"] == {"seen": {"2026-12-02T10:00:00+01:00": 1}}
    assert _call(registry, "hours")["structuredContent"] == {
        "opens": "08:00:00+01:00",
        "since": ["2026-01-01T00:00:00+01:00"],
        "on": ["2026-01-02"],
    }


def test_a_naive_datetime_no_local_offset_fits_is_an_error_that_says_where_and_the_fix() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def first() -> dict[str, datetime.datetime]:
        return {"when": datetime.datetime.min}

    text = _call(registry, "first")["content"][0]["text"]
    assert text.startswith("Tool 'first' returned output that cannot be sent as JSON: the datetime.datetime at when")
    assert "make it aware" in text


@pytest.mark.usefixtures("local_time_is_utc_plus_one")
def test_a_naive_default_is_published_as_local_time() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def since(when: datetime.datetime = datetime.datetime(2026, 1, 1)) -> str:
        return when.isoformat()

    assert _listing(registry, "since")["inputSchema"]["properties"]["when"]["default"] == "2026-01-01T00:00:00+01:00"
    assert _call(registry, "since")["content"][0]["text"] == "2026-01-01T00:00:00"


class Shipped(pydantic.BaseModel):
    day: datetime.date

    @pydantic.field_serializer("day")
    def european(self, day: datetime.date) -> str:
        return day.strftime("%d/%m/%Y")


def test_a_result_breaking_its_own_format_is_an_error_result() -> None:
    registry = ToolRegistry("results")

    @registry.tool
    def shipped() -> Shipped:
        return Shipped(day=datetime.date(2026, 12, 2))

    assert _listing(registry, "shipped")["outputSchema"]["properties"]["day"] == {"type": "string", "format": "date"}
    result = _call(registry, "shipped")
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "Tool 'shipped' returned output that does not match its outputSchema: property 'day' must be a date "
        "(ISO 8601), e.g. '2026-12-02'"
    )


def test_jsonify_refuses_what_has_no_json_form() -> None:
    with pytest.raises(NotJSON, match="a complex at x has no JSON form"):
        jsonify({"x": 1j})


# -- property: results round-trip to JSON that validates against the derived outputSchema ------------------

_SCALAR_TYPES: dict[Any, st.SearchStrategy[Any]] = {
    # Aware: RFC 3339 date-time needs an offset (a naive datetime is sent as local time, tested above).
    datetime.datetime: st.datetimes(
        timezones=st.sampled_from([datetime.timezone.utc, datetime.timezone(datetime.timedelta(hours=-5))])
    ),
    datetime.date: st.dates(),
    datetime.time: st.times(timezones=st.just(datetime.timezone.utc)),
    datetime.timedelta: st.timedeltas(),
    uuid.UUID: st.uuids(),
    decimal.Decimal: st.decimals(allow_nan=False, allow_infinity=False),
    pathlib.Path: st.text(st.characters(categories=["L", "N"]), min_size=1).map(pathlib.Path),
    Color: st.sampled_from(Color),
    ipaddress.IPv6Address: st.ip_addresses(v=6),
    bytes: st.binary(),
    int: st.integers(),
    float: st.floats(allow_nan=False, allow_infinity=False),
    str: st.text(),
}


@st.composite
def _typed_values(draw: st.DrawFn) -> tuple[Any, Any]:
    hint = draw(st.sampled_from(list(_SCALAR_TYPES)))
    values = _SCALAR_TYPES[hint]
    shape = draw(st.sampled_from(["bare", "list", "dict", "optional", "model", "dataclass"]))
    if shape == "bare" and hint not in (bytes, str):  # a bare -> bytes or -> str is content, not structured
        return hint, draw(values)
    if shape in ("list", "bare"):
        return list[hint], draw(st.lists(values, max_size=3))  # type: ignore[valid-type]
    if shape == "dict":
        return dict[str, hint], draw(st.dictionaries(st.text(max_size=3), values, max_size=3))  # type: ignore[valid-type]
    if shape == "optional":
        return hint | None, draw(st.none() | values)
    if shape == "model":
        model = pydantic.create_model("Holder", value=(hint, ...), more=(list[hint], []))  # type: ignore[valid-type]
        return model, model(value=draw(values), more=draw(st.lists(values, max_size=2)))
    holder = dataclasses.make_dataclass("Holder", [("value", hint), ("more", list[hint])])  # type: ignore[valid-type]
    return holder, holder(draw(values), draw(st.lists(values, max_size=2)))


@given(_typed_values())
@settings(max_examples=scaled(60), deadline=None)
def test_results_validate_against_their_output_schema(case: tuple[Any, Any]) -> None:
    annotation, value = case
    registry = ToolRegistry("results")

    def tool() -> None:
        return value  # type: ignore[no-any-return]

    tool.__annotations__ = {"return": annotation}
    registry.add(tool)
    result = _call(registry, "tool")
    assert result["isError"] is False, result
    structured = result["structuredContent"]
    assert json.loads(json.dumps(structured)) == structured
    schema = _listing(registry, "tool")["outputSchema"]
    assert checker_for(schema, format_assertion=True).errors(structured) == []


# -- typed elicitation ------------------------------------------------------------------------------------


class Booking(pydantic.BaseModel):
    check_alternative: bool = pydantic.Field(description="Would you like another date?")
    alternative_date: str = pydantic.Field(default="2024-12-26", description="Alternative date (YYYY-MM-DD)")
    guests: int = pydantic.Field(default=2, ge=1, le=8)
    note: str | None = None


class Contact(TypedDict):
    name: str
    channel: Literal["email", "phone"]


@dataclasses.dataclass
class Rating:
    stars: int
    color: Color = Color.RED


class Slot(pydantic.BaseModel):
    day: str

    @pydantic.field_validator("day")
    @classmethod
    def open_days_only(cls, value: str) -> str:
        if value == "sunday":
            raise ValueError("closed on sundays")
        return value


def _elicit_registry() -> ToolRegistry:
    registry = ToolRegistry("elicit")

    @registry.tool
    async def book(ctx: Context) -> str:
        answer = await ctx.elicit("Date unavailable", Booking)
        if answer.content is None:
            return f"no booking ({answer.action})"
        return f"booked {answer.content.alternative_date} for {answer.content.guests}"

    @registry.tool
    async def rebook(ctx: Context) -> str:
        # The official SDK's spelling: keywords, ``schema=``, and the answer's ``data``.
        result = await ctx.elicit(message="Date unavailable", schema=Booking)
        if result.action == "accept" and result.data:
            return f"booked {result.data.alternative_date}"
        return "cancelled"

    @registry.tool
    async def contact(ctx: Context) -> str:
        answer = await ctx.elicit("Who?", Contact)
        assert answer.content is not None
        return f"{answer.content['name']} by {answer.content['channel']}"

    @registry.tool
    async def rate(ctx: Context) -> str:
        answer = await ctx.elicit("Stars?", Rating)
        assert answer.content is not None
        return f"{answer.content.stars} {answer.content.color.name}"

    @registry.tool
    async def slot(ctx: Context) -> str:
        answer = await ctx.elicit("Which day?", Slot)
        assert answer.content is not None
        return answer.content.day

    @registry.tool
    async def raw(ctx: Context) -> str:
        form = {"type": "object", "properties": {"alternativeDate": {"type": "string"}}}
        answer = await ctx.elicit("When?", form)
        return str(answer.get("content"))

    @registry.tool
    async def nested(ctx: Context) -> str:
        await ctx.elicit("Forecast?", Forecast)
        return "unreachable"

    return registry


def _ask(tool: str, reply: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    asked: list[dict[str, Any]] = []

    async def answer(method: str, params: dict[str, Any]) -> dict[str, Any]:
        asked.append(params)
        return reply

    client = MemoryClient(_elicit_registry(), capabilities={"elicitation": {}}, on_request=answer)
    run(client.initialize())
    result: dict[str, Any] = run(client.request("tools/call", {"name": tool}))["result"]
    return result, asked


def test_a_model_is_a_form_and_its_answer_a_model() -> None:
    result, asked = _ask("book", {"action": "accept", "content": {"check_alternative": True, "guests": 3}})
    assert result["content"][0]["text"] == "booked 2024-12-26 for 3"
    assert asked[0]["requestedSchema"] == {
        "type": "object",
        "properties": {
            "check_alternative": {"type": "boolean", "description": "Would you like another date?"},
            "alternative_date": {
                "type": "string",
                "description": "Alternative date (YYYY-MM-DD)",
                "default": "2024-12-26",
            },
            "guests": {"type": "integer", "minimum": 1, "maximum": 8, "default": 2},
            "note": {"type": "string"},
        },
        "required": ["check_alternative"],
    }


def test_the_official_sdks_keywords_and_data_work_unchanged() -> None:
    result, asked = _ask("rebook", {"action": "accept", "content": {"check_alternative": True}})
    assert result["content"][0]["text"] == "booked 2024-12-26"
    assert asked[0]["requestedSchema"]["required"] == ["check_alternative"]
    result, _ = _ask("rebook", {"action": "accept", "content": {"check_alternative": "yes"}})
    assert result["content"][0]["text"].endswith("property 'check_alternative' must be boolean")
    assert _ask("rebook", {"action": "cancel"})[0]["content"][0]["text"] == "cancelled"


def test_an_invalid_answer_never_reaches_the_tool_as_valid() -> None:
    result, _ = _ask("book", {"action": "accept", "content": {"check_alternative": True, "alternative_date": 20241227}})
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "The answer to 'Date unavailable' does not fit the form: property 'alternative_date' must be string"
    )
    result, _ = _ask("book", {"action": "accept", "content": {"check_alternative": True, "guests": 9}})
    assert result["content"][0]["text"].endswith("property 'guests' must be <= 8")
    result, _ = _ask("raw", {"action": "accept", "content": {"alternativeDate": 20241227}})
    assert result["content"][0]["text"].endswith("property 'alternativeDate' must be string")
    result, _ = _ask("contact", {"action": "accept", "content": {"name": "Ada", "channel": "fax", "x": 1}})
    assert result["content"][0]["text"].endswith(
        "property 'channel' must be one of ['email', 'phone']; unexpected property 'x'"
    )


def test_the_models_own_validators_refuse_an_answer_in_our_voice() -> None:
    result, _ = _ask("slot", {"action": "accept", "content": {"day": "sunday"}})
    assert result["isError"] is True
    assert result["content"][0]["text"] == (
        "The answer to 'Which day?' does not fit the form: property 'day': closed on sundays"
    )
    assert _ask("slot", {"action": "accept", "content": {"day": "monday"}})[0]["content"][0]["text"] == "monday"


class Visit(pydantic.BaseModel):
    day: datetime.date
    at: datetime.datetime | None = None


def test_a_form_may_ask_for_dates_and_they_arrive_as_dates() -> None:
    from mcptools._elicit import form_for

    form = form_for(Visit)
    assert form.schema["properties"] == {
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
    }
    visit = form.read("When?", {"day": "2026-12-24", "at": "2026-12-24T10:00:00Z"})
    assert visit == Visit(day=datetime.date(2026, 12, 24), at=WHEN.replace(day=24))
    with pytest.raises(ElicitationError) as refused:
        form.read("When?", {"day": "Christmas"})
    assert refused.value.errors == ["property 'day' must be a date (ISO 8601), e.g. '2026-12-02'"]
    with pytest.raises(ElicitationError) as beyond:  # in the form's format, but no Python date
        form.read("When?", {"day": "0000-12-24", "at": "2026-12-24T10:00:00Z"})
    assert beyond.value.errors == ["property 'day' cannot be a Python date: '0000-12-24' (year 0 is out of range)"]


def test_typeddict_and_dataclass_forms_and_a_decline() -> None:
    result, asked = _ask("contact", {"action": "accept", "content": {"name": "Ada", "channel": "email"}})
    assert result["content"][0]["text"] == "Ada by email"
    assert asked[0]["requestedSchema"]["properties"]["channel"] == {"type": "string", "enum": ["email", "phone"]}
    result, _ = _ask("rate", {"action": "accept", "content": {"stars": 4, "color": "blue"}})
    assert result["content"][0]["text"] == "4 BLUE"
    result, _ = _ask("book", {"action": "decline"})
    assert result["content"][0]["text"] == "no booking (decline)"


def test_a_form_richer_than_mcp_allows_names_the_field() -> None:
    result, _ = _ask("nested", {"action": "accept", "content": {}})
    assert result["isError"] is True
    from mcptools._elicit import form_for

    with pytest.raises(ToolDefinitionError, match=r"ctx.elicit\(\.\.\., .*Forecast\): field 'days' "):
        form_for(Forecast)
    with pytest.raises(ToolDefinitionError, match=r"field '(observed|station)'"):
        form_for(Weather)
    assert ElicitationError.__mro__[1].__name__ == "ToolError"
    assert Elicited("decline", None).content is None
