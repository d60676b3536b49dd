"""Standard types as parameters: the schema derived for each, the value the tool gets, the error the model reads.

The property tests hold the two ends together: a value the derived schema's validator passes always converts
(the tool is called with a Python value of the annotated type), and one it refuses never reaches the tool.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import decimal
import ipaddress
import pathlib
import uuid
from typing import Annotated, Any, TypedDict

import pydantic
import pytest
from derive_support import call, single
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled

from mcptools import Param, ToolDefinitionError, ToolRegistry
from mcptools._schema import derive_tool

UTC_PLUS_1 = dt.timezone(dt.timedelta(hours=1))


# (annotation, schema, a JSON value, the Python value the tool gets)
CASES: list[tuple[Any, dict[str, Any], Any, Any]] = [
    (
        dt.datetime,
        {"type": "string", "format": "date-time"},
        "2026-12-02T10:00:00.5+01:00",
        dt.datetime(2026, 12, 2, 10, 0, 0, 500000, tzinfo=UTC_PLUS_1),
    ),
    (dt.date, {"type": "string", "format": "date"}, "2026-12-02", dt.date(2026, 12, 2)),
    (dt.time, {"type": "string", "format": "time"}, "10:00:00Z", dt.time(10, tzinfo=dt.timezone.utc)),
    (dt.timedelta, {"type": ["string", "number"], "format": "duration"}, "P1DT2H", dt.timedelta(days=1, hours=2)),
    (dt.timedelta, {"type": ["string", "number"], "format": "duration"}, 90.5, dt.timedelta(seconds=90.5)),
    (
        uuid.UUID,
        {"type": "string", "format": "uuid"},
        "123e4567-e89b-12d3-a456-426614174000",
        uuid.UUID("123e4567-e89b-12d3-a456-426614174000"),
    ),
    (decimal.Decimal, {"type": ["string", "number"], "format": "decimal"}, "12.50", decimal.Decimal("12.50")),
    (decimal.Decimal, {"type": ["string", "number"], "format": "decimal"}, 0.1, decimal.Decimal("0.1")),
    (pathlib.Path, {"type": "string", "format": "path"}, "/tmp/x", pathlib.Path("/tmp/x")),
    (pathlib.PurePath, {"type": "string", "format": "path"}, "a/b", pathlib.PurePath("a/b")),
    (bytes, {"type": "string", "contentEncoding": "base64"}, "aGVsbG8=", b"hello"),
    (ipaddress.IPv4Address, {"type": "string", "format": "ipv4"}, "192.0.2.1", ipaddress.IPv4Address("192.0.2.1")),
    (ipaddress.IPv6Address, {"type": "string", "format": "ipv6"}, "2001:db8::1", ipaddress.IPv6Address("2001:db8::1")),
]


@pytest.mark.parametrize(("annotation", "schema", "sent", "got"), CASES, ids=lambda case: repr(case)[:40])
def test_schema_and_value(annotation: Any, schema: dict[str, Any], sent: Any, got: Any) -> None:
    registry, seen = single(annotation)
    tool = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})["result"]["tools"][0]  # type: ignore[index]
    assert tool["inputSchema"]["properties"]["value"] == schema
    assert call(registry, "t", {"value": sent}).get("isError") is not True
    assert seen == [got]
    assert type(seen[0]) is type(got)


@pytest.mark.parametrize(
    ("annotation", "sent", "message"),
    [
        (dt.datetime, "tomorrow", "must be a date-time (ISO 8601 with an offset), e.g. '2026-12-02T10:00:00Z'"),
        (dt.datetime, "2026-12-02T10:00:00", "must be a date-time (ISO 8601 with an offset)"),  # naive: refused
        (dt.date, "2026-02-30", "must be a date (ISO 8601), e.g. '2026-12-02'"),
        (dt.time, "25:00:00Z", "must be a time (ISO 8601 with an offset)"),
        (dt.timedelta, "1 day", "must be a duration (ISO 8601), e.g. 'P1DT2H30M'"),
        (uuid.UUID, "not-a-uuid", "must be a UUID, e.g. '123e4567-e89b-12d3-a456-426614174000'"),
        (decimal.Decimal, "NaN", "must be a decimal number, e.g. '12.50'"),
        (bytes, "not base64!", "must be base64 text, e.g. 'aGVsbG8='"),
        (ipaddress.IPv4Address, "256.0.0.1", "must be an IPv4 address, e.g. '192.0.2.1'"),
        (ipaddress.IPv6Address, "192.0.2.1", "must be an IPv6 address, e.g. '2001:db8::1'"),
        (pathlib.Path, 3, "must be string"),
        (pathlib.Path, "", "must be a path (not empty, no NUL character), e.g. 'reports/2026-12.csv'"),
        (pathlib.PurePath, "a\0b", "must be a path (not empty, no NUL character), e.g. 'reports/2026-12.csv'"),
    ],
)
def test_wrong_values_never_reach_the_tool(annotation: Any, sent: Any, message: str) -> None:
    registry, seen = single(annotation)
    result = call(registry, "t", {"value": sent})
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert text.startswith("Invalid arguments: property 'value' " + message), text
    assert seen == []


class Event(TypedDict):
    when: dt.datetime
    ids: list[uuid.UUID]


@dataclasses.dataclass
class Slot:
    day: dt.date
    length: dt.timedelta = dt.timedelta(hours=1)


def test_inside_typeddicts_dataclasses_and_containers_with_paths() -> None:
    registry = ToolRegistry("std")
    seen: list[Any] = []

    @registry.tool
    def plan(event: Event, slots: set[dt.date], slot: Slot | None = None) -> str:
        seen.append((event, slots, slot))
        return "ok"

    arguments = {
        "event": {"when": "2026-12-02T10:00:00Z", "ids": ["123e4567-e89b-12d3-a456-426614174000"]},
        "slots": ["2026-12-02"],
        "slot": {"day": "2026-12-03"},
    }
    assert call(registry, "plan", arguments).get("isError") is not True
    event, slots, slot = seen[0]
    assert event == {
        "when": dt.datetime(2026, 12, 2, 10, tzinfo=dt.timezone.utc),
        "ids": [uuid.UUID("123e4567-e89b-12d3-a456-426614174000")],
    }
    assert slots == {dt.date(2026, 12, 2)}
    assert slot == Slot(dt.date(2026, 12, 3))
    bad = {"event": {"when": "x", "ids": ["y"]}, "slots": [], "slot": {"day": "z"}}
    text = call(registry, "plan", bad)["content"][0]["text"]
    assert "property 'event.when' must be a date-time" in text
    assert "property 'event.ids[0]' must be a UUID" in text
    assert "property 'slot.day' must be a date" in text


class Line(pydantic.BaseModel):
    price: decimal.Decimal = pydantic.Field(ge=0)


def test_bounds_hold_for_the_string_form_of_decimals_and_durations() -> None:
    # JSON Schema bounds numbers only: "0" and "P1D" would pass minimum/maximum unchecked.
    registry = ToolRegistry("std")
    seen: list[Any] = []

    @registry.tool
    def order(
        amount: Annotated[decimal.Decimal, Param(minimum=1, multiple_of=0.01)],
        wait: Annotated[dt.timedelta | None, Param(maximum=3600)] = None,
        lines: list[Line] = [],  # noqa: B006 (each call gets a copy)
    ) -> str:
        seen.append((amount, wait, lines))
        return "ok"

    refused = {
        "amount": ("0.5", "property 'amount' must be >= 1"),
        "wait": ("P1D", "property 'wait' must be <= 3600"),
        "lines": ([{"price": "1"}, {"price": "-0.01"}], "property 'lines[1].price' must be >= 0"),
    }
    for name, (sent, line) in refused.items():
        arguments = {"amount": "2", name: sent}
        assert call(registry, "order", arguments)["content"][0]["text"] == "Invalid arguments: " + line
    assert call(registry, "order", {"amount": "1.005"})["content"][0]["text"] == (
        "Invalid arguments: property 'amount' must be a multiple of 0.01"
    )
    assert seen == []
    assert call(registry, "order", {"amount": "1.10", "wait": "PT1H", "lines": [{"price": "0"}]})["isError"] is False
    assert seen[0][:2] == (decimal.Decimal("1.10"), dt.timedelta(hours=1))


def test_a_union_of_types_whose_forms_never_overlap_converts_by_form() -> None:
    registry = ToolRegistry("std")
    seen: list[Any] = []

    @registry.tool
    def ping(
        host: ipaddress.IPv4Address | ipaddress.IPv6Address, since: dt.date | dt.datetime | None = None
    ) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        seen.append((host, since))
        return host

    schema = registry.get("ping").input_schema  # type: ignore[union-attr]
    assert schema["properties"]["host"] == {
        "anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}]
    }
    assert call(registry, "ping", {"host": "192.0.2.1"})["structuredContent"] == {"result": "192.0.2.1"}
    assert call(registry, "ping", {"host": "2001:db8::1", "since": "2026-12-02"})["isError"] is False
    assert call(registry, "ping", {"host": "::1", "since": "2026-12-02T10:00:00Z"})["isError"] is False
    assert seen == [
        (ipaddress.IPv4Address("192.0.2.1"), None),
        (ipaddress.IPv6Address("2001:db8::1"), dt.date(2026, 12, 2)),
        (ipaddress.IPv6Address("::1"), dt.datetime(2026, 12, 2, 10, tzinfo=dt.timezone.utc)),
    ]
    assert call(registry, "ping", {"host": "example.com"})["isError"] is True
    assert len(seen) == 3


@pytest.mark.parametrize(
    "annotation",
    [ipaddress.IPv4Address | str, uuid.UUID | pathlib.Path, decimal.Decimal | dt.date, bytes | uuid.UUID],
    ids=repr,
)
def test_a_union_whose_forms_overlap_stays_refused(annotation: Any) -> None:
    def t(value: Any) -> None:
        pass

    t.__annotations__ = {"value": annotation}
    with pytest.raises(ToolDefinitionError, match="cannot tell which member"):
        derive_tool(t)


def test_leap_second_and_long_fractions_are_held_as_python_can() -> None:
    registry, seen = single(dt.datetime)
    call(registry, "t", {"value": "2016-12-31T23:59:60.123456789Z"})
    assert seen == [dt.datetime(2016, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)]


def test_a_value_python_cannot_hold_is_an_invalid_argument_not_a_crash() -> None:
    registry, seen = single(dt.date)
    result = call(registry, "t", {"value": "0000-01-01"})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(
        "Invalid arguments: property 'value' cannot be a Python date: '0000-01-01' ("
    )
    assert seen == []
    nested, got = single(dict[str, list[Slot]])
    deep = call(nested, "t", {"value": {"a": [{"day": "2026-01-01"}, {"day": "0000-01-01"}]}})
    assert deep["content"][0]["text"].startswith(
        "Invalid arguments: property 'value.a[1].day' cannot be a Python date: '0000-01-01' ("
    )
    spans, _ = single(tuple[int, dt.timedelta])
    assert call(spans, "t", {"value": [1, 1e300]})["content"][0]["text"].startswith(
        "Invalid arguments: property 'value[1]' cannot be a Python timedelta: 1e+300 ("
    )
    assert got == []


def test_an_explicit_schema_keeps_format_as_an_annotation() -> None:
    def t(when: str) -> str:
        return when

    schema = {
        "type": "object",
        "properties": {"when": {"type": "string", "format": "date-time"}},
        "required": ["when"],
        "additionalProperties": False,
    }
    registry = ToolRegistry("std")
    registry.tool(input_schema=schema)(t)
    assert call(registry, "t", {"when": "tomorrow"})["content"][0]["text"] == "tomorrow"


# --- properties: the derived schema accepts exactly what conversion accepts ---------------------------------


def _whole_minute_offset(value: dt.datetime) -> bool:
    offset = value.utcoffset()
    return offset is not None and offset.seconds % 60 == 0


def _fixed_offset(value: dt.datetime) -> dt.datetime:
    offset = value.utcoffset()
    assert offset is not None
    return value.replace(tzinfo=dt.timezone(offset))


_AWARE: st.SearchStrategy[dt.datetime] = (
    st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=st.timezones())
    .filter(_whole_minute_offset)
    .map(_fixed_offset)
)

_EXACT_SECONDS = dt.timedelta(seconds=2**31 - 1)
VALUES: dict[Any, st.SearchStrategy[Any]] = {
    dt.datetime: _AWARE,
    dt.date: st.dates(),
    dt.time: st.times(timezones=st.just(dt.timezone.utc)),
    # A duration with a fraction or a sign travels as float seconds: exact to the microsecond below 2**31 s
    # (68 years); the test below pins the rounding past that.
    dt.timedelta: st.timedeltas(min_value=-_EXACT_SECONDS, max_value=_EXACT_SECONDS),
    uuid.UUID: st.uuids(),
    decimal.Decimal: st.decimals(allow_nan=False, allow_infinity=False),
    pathlib.Path: st.text(st.characters(exclude_characters="\0"), min_size=1).map(pathlib.Path),
    bytes: st.binary(),
    ipaddress.IPv4Address: st.ip_addresses(v=4),
    ipaddress.IPv6Address: st.ip_addresses(v=6),
}


@pytest.mark.parametrize("annotation", list(VALUES), ids=lambda cls: cls.__name__)
@settings(max_examples=scaled(60), deadline=None)  # a property, not a timing: the ci profile keeps a deadline
@given(data=st.data())
def test_every_value_round_trips_through_its_json_form(annotation: Any, data: st.DataObject) -> None:
    from mcptools._schema.stdtypes import dump_std

    value = data.draw(VALUES[annotation])
    registry, seen = single(annotation)
    sent = dump_std(value)
    result = call(registry, "t", {"value": sent})
    assert result.get("isError") is not True, (sent, result)
    if annotation is dt.datetime or annotation is dt.time:
        assert seen[0] == value and seen[0].utcoffset() == value.utcoffset()
    elif annotation is pathlib.Path:
        assert seen == [pathlib.Path(str(value))]
    else:
        assert seen == [value]


def test_a_fractional_duration_past_68_years_is_rounded_to_what_a_float_holds_not_lost() -> None:
    from mcptools._schema.stdtypes import dump_std

    value = dt.timedelta(days=99421, microseconds=1)
    registry, seen = single(dt.timedelta)
    sent = dump_std(value)
    assert isinstance(sent, float)
    assert call(registry, "t", {"value": sent}).get("isError") is not True
    assert abs(seen[0] - value) <= dt.timedelta(microseconds=2)


_TEXTS = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789-:TZz.+PYMWDHS", max_size=30),
    st.from_regex(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-fA-F]{4}-[0-9a-f]{4}-[0-9a-fG]{12}", fullmatch=True),
    st.from_regex(
        r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})", fullmatch=True
    ),
    st.from_regex(r"[A-Za-z0-9+/=]{0,12}", fullmatch=True),
    st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,3}){3}", fullmatch=True),
    st.floats(allow_nan=False, allow_infinity=False),
    st.integers(min_value=-(10**6), max_value=10**6),
)


@pytest.mark.parametrize("annotation", list(VALUES), ids=lambda cls: cls.__name__)
@settings(max_examples=scaled(150), deadline=None)
@given(sent=_TEXTS)
def test_what_the_validator_passes_converts_and_what_it_refuses_never_arrives(annotation: Any, sent: Any) -> None:
    registry, seen = single(annotation)
    passes = registry.get("t").validator.is_valid({"value": sent})  # type: ignore[union-attr]
    result = call(registry, "t", {"value": sent})
    if passes:
        assert result.get("isError") is not True or "cannot be a Python" in result["content"][0]["text"], result
        if result.get("isError") is not True:
            assert isinstance(seen[0], annotation)
    else:
        assert result["isError"] is True
        assert seen == []


def test_derivation_publishes_no_default_it_cannot_write() -> None:
    def t(when: dt.date = dt.date(2026, 1, 1), blob: bytes = b"hi") -> None:
        pass

    schema = derive_tool(t).input_schema
    assert schema["properties"]["when"]["default"] == "2026-01-01"
    assert schema["properties"]["blob"]["default"] == base64.b64encode(b"hi").decode()
