"""The request rules of Streamable HTTP that are about header values, not about MCP messages.

* DNS-rebinding guard: which host a ``Host`` or ``Origin`` header names. A browser on a hostile page can make
  requests to ``localhost`` under the attacker's domain name; checking the name it used stops that.
* SEP-2243 parameter headers: an ``Mcp-Param-*`` value is literal text, or ``=?base64?...?=`` for text that
  does not fit in a header; it must say the same as the argument in the body.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Final
from urllib.parse import urlsplit

__all__ = ["DEFAULT_ALLOWED_HOSTS", "decode_param_header", "header_text", "hostname", "origin_hostname"]

DEFAULT_ALLOWED_HOSTS: Final = ("localhost", "127.0.0.1", "[::1]")
_BASE64_WRAPPER: Final = ("=?base64?", "?=")


def hostname(value: str) -> str | None:
    """The host part of a ``Host`` header (``[::1]:8000`` gives ``[::1]``), lower-cased, or ``None``."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end == -1:
            return None
        rest = value[end + 1 :]
        if rest and not (rest.startswith(":") and rest[1:].isdigit()):
            return None
        return value[: end + 1]
    host, _, port = value.partition(":")
    if port and not port.isdigit():
        return None
    return host or None


def origin_hostname(origin: str) -> str | None:
    """The host an ``Origin`` header names (``http://localhost:3000`` gives ``localhost``), or ``None``."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return hostname(parts.netloc)


def header_text(value: object) -> str:
    """A header argument as the client would have written it: JSON spelling for numbers and booleans."""
    if isinstance(value, str):
        return value
    return json.dumps(value)


def decode_param_header(value: str) -> str | None:
    """An ``Mcp-Param-*`` value: ``=?base64?...?=`` is decoded (strictly), anything else is literal text."""
    prefix, suffix = _BASE64_WRAPPER
    if value.startswith(prefix) and value.endswith(suffix) and len(value) >= len(prefix) + len(suffix):
        encoded = value[len(prefix) : -len(suffix)]
        if len(encoded) % 4:
            return None
        try:
            return base64.b64decode(encoded, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            return None
    return value
