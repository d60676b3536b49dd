"""Format checks, used only when a validator is compiled with ``format_assertion=True``.

By default ``format`` is an annotation, as draft 2020-12 says; a server that wants ``"format": "date-time"``
to reject ``"tomorrow"`` opts in. Each check takes a string and answers whether it is in the format; the
compiled validator skips non-strings itself. Regular expressions are compiled on first use so importing stays
cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import re

__all__ = ["FORMAT_CHECKS", "is_base64", "is_path"]

_compiled: dict[str, re.Pattern[str]] = {}
# A duration's time part: T then H[M[S]] / M[S] / S.
_TIME = "(?:[0-9]+H(?:[0-9]+M(?:[0-9]+S)?)?|[0-9]+M(?:[0-9]+S)?|[0-9]+S)"
_SOURCES = {
    "date": r"([0-9]{4})-([0-9]{2})-([0-9]{2})",
    "time": r"([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]+)?(?:[Zz]|([+-])([0-9]{2}):([0-9]{2}))",
    "uuid": r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    "label": r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?",
    "local": r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"|\"(?:[^\"\\\r\n]|\\.)*\"",
    "uri": r"[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*",
    "ipv4": r"(?:0|[1-9][0-9]{0,2})(?:\.(?:0|[1-9][0-9]{0,2})){3}",
    # RFC 3339 appendix A, the grammar JSON Schema names: P then a date part (Y[M[D]] / M[D] / D) with an
    # optional time part, a time part alone, or weeks alone; whole numbers only (no "PT0.5S").
    "duration": rf"P(?:(?:[0-9]+Y(?:[0-9]+M(?:[0-9]+D)?)?|[0-9]+M(?:[0-9]+D)?|[0-9]+D)(?:T{_TIME})?|T{_TIME}|[0-9]+W)",
    # mcptools' own: what Python's Decimal reads, without NaN and Infinity (no JSON number is either).
    "decimal": r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?",
    "base64": r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?",
}


def _match(name: str, text: str) -> re.Match[str] | None:
    pattern = _compiled.get(name)
    if pattern is None:
        import re

        pattern = _compiled[name] = re.compile(_SOURCES[name])
    return pattern.fullmatch(text)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        return 29 if year % 4 == 0 and (year % 100 != 0 or year % 400 == 0) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def is_date(text: str) -> bool:
    match = _match("date", text)
    if match is None:
        return False
    year, month, day = (int(group) for group in match.groups())
    return 1 <= month <= 12 and 1 <= day <= _days_in_month(year, month)


def is_time(text: str) -> bool:
    match = _match("time", text)
    if match is None:
        return False
    hour, minute, second = int(match[1]), int(match[2]), int(match[3])
    offset_hour = int(match[5]) if match[5] else 0
    offset_minute = int(match[6]) if match[6] else 0
    if hour > 23 or minute > 59 or second > 60 or offset_hour > 23 or offset_minute > 59:
        return False
    if second == 60:
        # A leap second only exists at 23:59:60 UTC.
        sign = -1 if match[4] == "+" else 1
        utc_minutes = (hour * 60 + minute + sign * (offset_hour * 60 + offset_minute)) % (24 * 60)
        return utc_minutes == 23 * 60 + 59
    return True


def is_date_time(text: str) -> bool:
    if len(text) < 11 or text[10] not in "Tt":
        return False
    return is_date(text[:10]) and is_time(text[11:])


def is_uuid(text: str) -> bool:
    return _match("uuid", text) is not None


def is_hostname(text: str) -> bool:
    if not text or len(text) > 253:
        return False
    return all(_match("label", label) is not None for label in text.split("."))


def is_ipv4(text: str) -> bool:
    return _match("ipv4", text) is not None and all(int(part) <= 255 for part in text.split("."))


def is_ipv6(text: str) -> bool:
    if "%" in text or not text.isascii():
        return False
    import ipaddress

    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def is_email(text: str) -> bool:
    local, at, domain = text.rpartition("@")
    if not at or not local or _match("local", local) is None:
        return False
    if domain.startswith("[") and domain.endswith("]"):
        literal = domain[1:-1]
        return is_ipv6(literal[5:]) if literal.startswith("IPv6:") else is_ipv4(literal)
    return is_hostname(domain)


def is_uri(text: str) -> bool:
    return _match("uri", text) is not None


def is_duration(text: str) -> bool:
    return _match("duration", text) is not None


def is_decimal(text: str) -> bool:
    return _match("decimal", text) is not None


def is_path(text: str) -> bool:
    """mcptools' own ``path`` format (``Path`` / ``PurePath``): non-empty (``Path("")`` would be the current
    directory, which nobody sends on purpose) and no NUL, which no operating system allows in a path."""
    return bool(text) and "\0" not in text


def is_base64(text: str) -> bool:
    """Standard base64 with padding: what ``contentEncoding: base64`` promises (checked for derived schemas)."""
    return _match("base64", text) is not None


FORMAT_CHECKS: dict[str, Callable[[str], bool]] = {
    "date-time": is_date_time,
    "date": is_date,
    "time": is_time,
    "email": is_email,
    "uri": is_uri,
    "uuid": is_uuid,
    "ipv4": is_ipv4,
    "ipv6": is_ipv6,
    "hostname": is_hostname,
    "duration": is_duration,
    "decimal": is_decimal,
    "path": is_path,
}
