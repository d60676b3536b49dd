"""One property per supported type: the derived schema accepts exactly what conversion accepts, and results
round-trip to JSON that validates against the derived ``outputSchema``.

For each type ``T`` a tool ``take(value: T)`` is fed JSON of three kinds: arbitrary JSON-ish values, the JSON
form of good values (type-directed: generated as Python values, then written as results are), and good JSON of
the *other* types (a date where a datetime is due, a UUID where a path is). Whatever the validator passes must
convert (the tool is called with a ``T``); whatever it refuses must never reach the tool. Then ``echo(value: T)
-> T`` returns generated Python values: the result must validate against its own ``outputSchema`` with formats
asserted, and sending it back as an argument must give the same value again.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import ipaddress
import pathlib
import re
import uuid
from typing import Annotated, Any, TypedDict

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_support import scaled
from typing_extensions import NotRequired

from mcptools import ToolRegistry
from mcptools._schema.jsonify import jsonify
from mcptools._validation import checker_for


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Parcel(pydantic.BaseModel):
    parcel_id: uuid.UUID = pydantic.Field(alias="parcelId")
    weight: decimal.Decimal = pydantic.Field(ge=0, description="kg")
    due: dt.date | None = None
    tags: list[str] = pydantic.Field(default_factory=list, max_length=3)


@dataclasses.dataclass
class Slot:
    start: dt.datetime
    length: dt.timedelta = dt.timedelta(hours=1)
    color: Color = Color.RED


class Stop(TypedDict):
    at: ipaddress.IPv4Address
    note: NotRequired[str]


def _fixed(value: dt.datetime) -> dt.datetime:
    """A generated aware datetime with a whole-minute offset (RFC 3339 has no seconds in an offset)."""
    offset = value.utcoffset()
    assert offset is not None
    return value.replace(tzinfo=dt.timezone(dt.timedelta(minutes=offset // dt.timedelta(minutes=1))))


_OFFSETS = st.sampled_from(
    [dt.timezone.utc, dt.timezone(dt.timedelta(hours=5, minutes=30)), dt.timezone(-dt.timedelta(hours=8))]
)
_AWARE = st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30), timezones=_OFFSETS).map(
    _fixed
)
# A fraction of a second is sent as a float number of seconds: exact to the microsecond within about 70 years.
_SPANS = st.timedeltas(min_value=-dt.timedelta(days=25_000), max_value=dt.timedelta(days=25_000)) | st.timedeltas(
    min_value=dt.timedelta(0)
).map(lambda span: dt.timedelta(days=span.days, seconds=span.seconds))
_PATH_TEXT = st.text(st.characters(exclude_characters="\0"), min_size=1, max_size=20)

# Strings shaped like each form but not always in it (February 30th, hour 24, a G in a UUID, one '=' too few):
# where a format check and its parser could disagree. Days and hours sit at the month's and the day's ends.
_NEAR_DATE = r"(0000|1900|2000|2023|2024|9999)-(00|02|04|06|09|11|12|13)-(00|01|28|29|30|31|32)"
_NEAR_TIME = r"(0[0-9]|2[3-5]):(00|59|60):(00|59|60|61)(\.[0-9]{1,8})?([Zz]|[+-](0[0-9]|2[3-5]):(00|59|60))?"
NEAR: dict[str, st.SearchStrategy[str]] = {
    "date": st.from_regex(_NEAR_DATE, fullmatch=True),
    "date-time": st.from_regex(_NEAR_DATE + r"[Tt ]" + _NEAR_TIME, fullmatch=True),
    "time": st.from_regex(_NEAR_TIME, fullmatch=True),
    "duration": st.from_regex(r"P([0-9]{1,3}[YMWD]){0,2}(T([0-9]{1,3}(\.5)?[HMS]){0,3})?", fullmatch=True),
    "uuid": st.from_regex(r"[0-9a-fA-G]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{11,13}", fullmatch=True),
    "decimal": st.from_regex(r"[+-]?[0-9]{0,4}(\.[0-9]{0,3})?([eE][+-]?[0-9]{1,3})?|NaN|-?Infinity", fullmatch=True),
    "base64": st.from_regex(r"[A-Za-z0-9+/]{0,9}={0,3}", fullmatch=True),
    "ipv4": st.from_regex(r"[0-9]{1,4}(\.[0-9]{1,4}){2,4}", fullmatch=True),
    "ipv6": st.from_regex(r"[0-9a-f:]{0,20}(%[a-z0-9]{1,4})?|::[0-9.]{7,15}", fullmatch=True),
    "path": st.sampled_from(["", "\0", "a\0b", ".", "/"]),
    "choice": st.sampled_from(["red", "RED", "blue", "Red", "1", "2"]),
}

# annotation -> (a strategy of Python values, the class every converted value must be, near-miss forms)
TYPES: dict[str, tuple[Any, st.SearchStrategy[Any], type | tuple[type, ...], tuple[str, ...]]] = {
    "datetime": (dt.datetime, _AWARE, dt.datetime, ("date-time",)),
    "date": (dt.date, st.dates(), dt.date, ("date",)),
    "time": (dt.time, st.times(timezones=_OFFSETS), dt.time, ("time",)),
    "timedelta": (dt.timedelta, _SPANS, dt.timedelta, ("duration", "decimal")),
    "UUID": (uuid.UUID, st.uuids(), uuid.UUID, ("uuid",)),
    "bounded Decimal": (
        Annotated[decimal.Decimal, pydantic.Field(ge=0, le=100, multiple_of=0.5)],
        st.decimals(min_value=0, max_value=100, places=1).filter(lambda value: value % decimal.Decimal("0.5") == 0),
        decimal.Decimal,
        ("decimal",),
    ),
    "Decimal": (decimal.Decimal, st.decimals(allow_nan=False, allow_infinity=False), decimal.Decimal, ("decimal",)),
    "Path": (pathlib.Path, _PATH_TEXT.map(pathlib.Path), pathlib.Path, ("path",)),
    "PurePath": (pathlib.PurePath, _PATH_TEXT.map(pathlib.PurePath), pathlib.PurePath, ("path",)),
    "bytes": (bytes, st.binary(max_size=20), bytes, ("base64",)),
    "IPv4Address": (ipaddress.IPv4Address, st.ip_addresses(v=4), ipaddress.IPv4Address, ("ipv4",)),
    "IPv6Address": (ipaddress.IPv6Address, st.ip_addresses(v=6), ipaddress.IPv6Address, ("ipv6", "ipv4")),
    "IPv4Address | IPv6Address": (
        ipaddress.IPv4Address | ipaddress.IPv6Address,
        st.ip_addresses(),
        (ipaddress.IPv4Address, ipaddress.IPv6Address),
        ("ipv4", "ipv6"),
    ),
    "date | datetime": (dt.date | dt.datetime, st.dates() | _AWARE, dt.date, ("date", "date-time")),
    "Enum": (Color, st.sampled_from(Color), Color, ("choice",)),
    "IntEnum": (Level, st.sampled_from(Level), Level, ("choice",)),
    "set": (set[dt.date], st.sets(st.dates(), max_size=3), set, ("date",)),
    "frozenset": (frozenset[uuid.UUID], st.frozensets(st.uuids(), max_size=3), frozenset, ("uuid",)),
    "tuple": (tuple[int, dt.date], st.tuples(st.integers(), st.dates()), tuple, ("date",)),
    "BaseModel": (
        Parcel,
        st.builds(
            Parcel,
            parcelId=st.uuids(),
            weight=st.decimals(min_value=0, allow_nan=False, allow_infinity=False),
            due=st.none() | st.dates(),
            tags=st.lists(st.text(max_size=5), max_size=3),
        ),
        Parcel,
        ("uuid", "decimal", "date"),
    ),
    "dataclass": (
        Slot,
        st.builds(Slot, start=_AWARE, length=_SPANS, color=st.sampled_from(Color)),
        Slot,
        ("date-time", "duration", "choice"),
    ),
    "TypedDict": (
        Stop,
        st.fixed_dictionaries({"at": st.ip_addresses(v=4)}, optional={"note": st.text(max_size=5)}),
        dict,
        ("ipv4",),
    ),
}

_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)
# Good JSON of every type: sent to the other types too, the values nearest to what each one accepts.
_ANY_GOOD = st.sampled_from(sorted(TYPES)).flatmap(lambda name: TYPES[name][1]).map(jsonify)


def _mutated(data: st.DataObject, value: Any, near: st.SearchStrategy[str]) -> Any:
    """``value`` (good JSON) with some leaves swapped for near-miss strings of the type's own forms."""
    if isinstance(value, list):
        return [_mutated(data, item, near) for item in value]
    if isinstance(value, dict):
        return {key: _mutated(data, item, near) for key, item in value.items()}
    return data.draw(near, label="near") if data.draw(st.integers(0, 3), label="swap") else value


def _tool(annotation: Any, returns: Any = str) -> tuple[ToolRegistry, list[Any]]:
    seen: list[Any] = []

    def take(value: Any) -> Any:
        seen.append(value)
        return value if returns is not str else "ok"

    take.__annotations__ = {"value": annotation, "return": returns}
    registry = ToolRegistry("properties")
    registry.add(take)
    return registry, seen


def _call(registry: ToolRegistry, arguments: dict[str, Any]) -> dict[str, Any]:
    response = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "take", "arguments": arguments}}
    )
    assert response is not None
    result: dict[str, Any] = response["result"]
    return result


@pytest.mark.parametrize("name", sorted(TYPES))
@settings(max_examples=scaled(100), deadline=None)
@given(data=st.data())
def test_the_schema_accepts_exactly_what_conversion_accepts(name: str, data: st.DataObject) -> None:
    annotation, good, cls, forms = TYPES[name]
    kind = data.draw(st.sampled_from(["json", "good", "near", "near", "other"]), label="kind")
    if kind == "near":
        sent = _mutated(data, jsonify(data.draw(good, label="good")), st.one_of([NEAR[form] for form in forms]))
    else:
        sent = data.draw({"json": _JSONISH, "good": good.map(jsonify), "other": _ANY_GOOD}[kind], label="sent")
    registry, seen = _tool(annotation)
    tool = registry.get("take")
    assert tool is not None
    passes = tool.validator.is_valid({"value": sent})
    result = _call(registry, {"value": sent})
    if not passes:
        assert result["isError"] is True, result
        assert result["content"][0]["text"].startswith("Invalid arguments: ")
        assert seen == []
        return
    if result["isError"]:
        text = result["content"][0]["text"]
        # In the published form, yet beyond what Python holds (year 0000), or a Decimal/timedelta string beyond
        # a bound (JSON Schema bounds numbers only): said in the validator's words, and never run.
        beyond = "cannot be a Python" in text and ("'0000-" in text or "timedelta" in text)
        assert beyond or re.search(r"' must be (>=|<=|>|<|a multiple of) ", text), result
        assert seen == []
        return
    assert len(seen) == 1 and isinstance(seen[0], cls), (sent, seen)
    if name == "bounded Decimal":  # in either form, the bounds hold
        got = seen[0]
        assert isinstance(got, decimal.Decimal)
        assert 0 <= got <= 100 and got % decimal.Decimal("0.5") == 0, (sent, seen)


@pytest.mark.parametrize("name", sorted(TYPES))
@settings(max_examples=scaled(100), deadline=None)
@given(data=st.data())
def test_results_round_trip_through_json_that_fits_the_output_schema(name: str, data: st.DataObject) -> None:
    annotation, good, _, _ = TYPES[name]
    value = data.draw(good, label="value")
    if annotation is bytes:  # a top-level -> bytes is content (a blob), not structured: look at it in a list
        annotation, value = list[bytes], [value]
    registry, seen = _tool(annotation, returns=annotation)
    listing = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert listing is not None
    tool = listing["result"]["tools"][0]
    wrapped = tool["outputSchema"].get("required") == ["result"] and "result" in tool["outputSchema"]["properties"]
    # The tool returns the generated value itself (handed in as a default-free argument of its JSON form).
    echoed = _call(registry, {"value": jsonify(value)})
    assert echoed["isError"] is False, echoed
    structured = echoed["structuredContent"]
    assert checker_for(tool["outputSchema"], format_assertion=True).errors(structured) == []
    assert seen[0] == value
    # What the result says, sent back as an argument, is the same value again: one form both ways.
    again = _call(registry, {"value": structured["result"] if wrapped else structured})
    assert again["isError"] is False, again
    assert seen[1] == value
    assert again["structuredContent"] == structured
