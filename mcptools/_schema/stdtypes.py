"""The standard-library types a tool may take or return beyond JSON's own: dates, UUIDs, decimals, paths, bytes.

Each type has one ``StdType`` entry: the JSON types its values arrive as, the schema keywords that say which
strings are accepted (a ``format`` the validator asserts for derived schemas, or ``contentEncoding`` for
bytes), the parser that turns a value the validator passed into the Python value, and the dumper that turns a
Python value back into JSON (results, defaults). The parsers accept exactly the strings the format checks in
``mcptools/_validation/formats.py`` accept, so a value the validator passes always converts (the property tests
in tests/test_derive_stdtypes.py hold both ends together). Choices, stated once:

- ``datetime`` and ``time`` need a UTC offset (RFC 3339 ``date-time`` / ``full-time``); the tool gets an aware
  value with that offset (``Z`` is UTC). A naive value a tool returns (``datetime.now()``, a default) is the
  server's local time, as ``datetime.astimezone()`` reads one, and is sent with that offset: RFC 3339 has no
  form without one, and the official SDK's own examples return ``datetime.now()``.
  A leap second (``:60``) becomes ``:59.999999``: Python has no second 60.
  Fractional seconds beyond microseconds are cut, not rounded.
- ``timedelta`` arrives as an ISO 8601 duration (``P1DT2H``) or a number of seconds; a year counts 365 days and
  a month 30, as pydantic counts them; it is dumped as a duration (as seconds when it has a fraction or a sign,
  which the format cannot write).
- ``Decimal`` arrives as a decimal string (exact) or a JSON number (read through its shortest repr, so ``0.1`` is
  ``Decimal('0.1')``); it is dumped as a string, to stay exact.
- ``bytes`` is standard base64 with padding (``contentEncoding: base64``).
- ``Path`` and ``PurePath`` have format ``path`` (mcptools' own, as ``decimal`` is): any non-empty string
  without NUL. Nothing narrower: what a path may hold depends on the server's OS and the tool's own rules
  (existence, a root it must stay under), which only the tool can check.

Nothing here is imported until a tool uses one of these types; the modules it needs are the standard library.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import ipaddress
import pathlib
import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, final

from .._json import JSONObject

__all__ = ["DISJOINT_FORMATS", "STD_TYPES", "StdType", "dump_std", "is_std_value", "std_type_of"]


@final
@dataclass(slots=True, eq=False)
class StdType:
    """How one standard type travels as JSON."""

    cls: type
    json_types: tuple[str, ...]
    keywords: JSONObject
    parse: Callable[[Any], Any]
    dump: Callable[[Any], Any]

    def schema(self) -> JSONObject:
        kinds = list(self.json_types)
        return {"type": kinds[0] if len(kinds) == 1 else kinds, **self.keywords}


# The same grammar as the validator's date/time formats (formats.py), with groups to build the value from.
_DATE: Final = r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
_TIME: Final = r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))"
_DATE_RE: Final = re.compile(_DATE)
_TIME_RE: Final = re.compile(_TIME)
_DATE_TIME_RE: Final = re.compile(_DATE + "[Tt]" + _TIME)
_DURATION_PART: Final = re.compile(r"([0-9]+)([YMWDHS])")


def _offset(groups: tuple[str | None, ...]) -> dt.tzinfo:
    zulu, sign, hours, minutes = groups
    if zulu:
        return dt.timezone.utc
    assert sign is not None and hours is not None and minutes is not None
    delta = dt.timedelta(hours=int(hours), minutes=int(minutes))
    return dt.timezone(-delta if sign == "-" else delta)


def _clock(groups: tuple[str | None, ...]) -> dt.time:
    hour, minute, second, fraction = groups[:4]
    assert hour is not None and minute is not None and second is not None
    micro = int((fraction or "0")[:6].ljust(6, "0"))
    seconds = int(second)
    if seconds == 60:  # a leap second: the last representable instant of that minute
        seconds, micro = 59, 999_999
    return dt.time(int(hour), int(minute), seconds, micro, tzinfo=_offset(groups[4:]))


def parse_date_time(text: str) -> dt.datetime:
    match = _DATE_TIME_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a date-time")
    groups = match.groups()
    day = dt.date(int(groups[0]), int(groups[1]), int(groups[2]))
    return dt.datetime.combine(day, _clock(groups[3:]))


def parse_date(text: str) -> dt.date:
    match = _DATE_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a date")
    return dt.date(int(match[1]), int(match[2]), int(match[3]))


def parse_time(text: str) -> dt.time:
    match = _TIME_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"{text!r} is not a time")
    return _clock(match.groups())


_DURATION_UNITS: Final = {"Y": 365 * 86400, "M": 30 * 86400, "W": 7 * 86400, "D": 86400}
_DURATION_TIME_UNITS: Final = {"H": 3600, "M": 60, "S": 1}


def parse_duration(value: object) -> dt.timedelta:
    """An ISO 8601 duration (``P3DT4H``, as the ``duration`` format checks it) or a number of seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.timedelta(seconds=value)
    if not isinstance(value, str) or not value.startswith("P"):
        raise ValueError(f"{value!r} is not a duration")
    date_part, _, time_part = value[1:].partition("T")
    seconds = 0
    for part, units in ((date_part, _DURATION_UNITS), (time_part, _DURATION_TIME_UNITS)):
        for amount, unit in _DURATION_PART.findall(part):
            seconds += int(amount) * units[unit]
    return dt.timedelta(seconds=seconds)


def dump_duration(value: dt.timedelta) -> str | float:
    """``P<d>DT<s>S``; a negative duration or one with microseconds as a number of seconds, since the
    ``duration`` format (RFC 3339 appendix A) has neither signs nor fractions."""
    if value < dt.timedelta(0) or value.microseconds:
        return value.total_seconds()
    return f"P{value.days}DT{value.seconds}S"


def parse_decimal(value: object) -> decimal.Decimal:
    if isinstance(value, bool):
        raise ValueError("a boolean is not a decimal")
    if isinstance(value, float):
        return decimal.Decimal(repr(value))
    if isinstance(value, (int, str)):
        return decimal.Decimal(value)
    raise ValueError(f"{value!r} is not a decimal")


def parse_base64(text: str) -> bytes:
    return base64.b64decode(text, validate=True)


def _dump_base64(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


def _text(value: object) -> str:
    return str(value)


def _iso(value: dt.date) -> str:
    return value.isoformat()


def _aware_iso(value: dt.datetime | dt.time) -> str:
    """ISO 8601 with the value's own offset; a naive value is local time and gets the local offset (a naive
    ``time``: the offset local time has today)."""
    if value.utcoffset() is None:
        try:
            if isinstance(value, dt.datetime):
                value = value.astimezone()
            else:
                value = dt.datetime.combine(dt.date.today(), value).astimezone().timetz()
        except (OverflowError, ValueError, OSError):  # datetime.min/max: no local offset can be applied
            raise ValueError("is naive and too near the ends of time to read as local time; make it aware") from None
    return value.isoformat()


def _string(
    cls: type, keywords: JSONObject, parse: Callable[[Any], Any], dump: Callable[[Any], Any] = _text
) -> StdType:
    return StdType(cls, ("string",), keywords, parse, dump)


# Most specific first: datetime is a subclass of date, and std_type_of answers the first match.
STD_TYPES: Final[tuple[StdType, ...]] = (
    _string(dt.datetime, {"format": "date-time"}, parse_date_time, _aware_iso),
    _string(dt.date, {"format": "date"}, parse_date, _iso),
    _string(dt.time, {"format": "time"}, parse_time, _aware_iso),
    StdType(dt.timedelta, ("string", "number"), {"format": "duration"}, parse_duration, dump_duration),
    _string(uuid.UUID, {"format": "uuid"}, uuid.UUID),
    StdType(decimal.Decimal, ("string", "number"), {"format": "decimal"}, parse_decimal, _text),
    _string(pathlib.Path, {"format": "path"}, pathlib.Path),
    _string(pathlib.PurePath, {"format": "path"}, pathlib.PurePath),
    _string(bytes, {"contentEncoding": "base64"}, parse_base64, _dump_base64),
    _string(ipaddress.IPv4Address, {"format": "ipv4"}, ipaddress.IPv4Address),
    _string(ipaddress.IPv6Address, {"format": "ipv6"}, ipaddress.IPv6Address),
)

_BY_CLASS: Final = {entry.cls: entry for entry in STD_TYPES}

# Formats of string-only types that no string satisfies two of (a date has no 'T', a time no '-', an IPv4
# address no ':', ...), so a union of such types (``IPv4Address | IPv6Address``, ``date | datetime``) is told
# apart by the form of the value. ``decimal``, ``duration``, ``path`` and base64 overlap each other and plain
# strings ("1234" is all four), so a union holding one of them stays ambiguous.
DISJOINT_FORMATS: Final = frozenset({"date-time", "date", "time", "uuid", "ipv4", "ipv6"})


def std_type_of(cls: object) -> StdType | None:
    """The entry for an annotation naming one of these types exactly (``bytes``, ``Path``), else None.

    Exact, not ``issubclass``: a subclass may need arguments these parsers do not give, except the concrete
    paths (``PosixPath``) a ``Path`` value is at run time, which only results meet.
    """
    return _BY_CLASS.get(cls) if isinstance(cls, type) else None


def is_std_value(value: object) -> bool:
    """Whether ``value`` is an instance of one of these types (results: something ``dump_std`` turns to JSON)."""
    return isinstance(value, tuple(_BY_CLASS))


def dump_std(value: object) -> Any:
    """A value of one of these types -> its JSON form (the inverse of the parse); ``value`` itself otherwise.

    Raises ``ValueError`` (its text follows the value's name) for a value the form cannot hold: a naive
    ``datetime`` at the very ends of its range, which no local offset fits."""
    for entry in STD_TYPES:
        if isinstance(value, entry.cls):
            return entry.dump(value)
    return value
