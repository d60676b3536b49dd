"""The request rules of Streamable HTTP that are about header values, not about MCP messages.

* DNS-rebinding guard: which host a ``Host`` or ``Origin`` header names. A browser on a hostile page can make
  requests to ``localhost`` under the attacker's domain name; checking the name it used stops that.
* Headers that must appear once: ``Host`` (RFC 9112 section 3.2 says 400 to a request with two), ``Origin``
  (RFC 6454 section 7.3: one at most) and ``Authorization`` (one set of credentials, RFC 9110 section 11.6.2).
  Were a repeat allowed, a proxy reading the last copy and this server reading the first would judge different
  requests: one would check the host or token the other never sees.
* SEP-2243 parameter headers: an ``Mcp-Param-*`` value is literal text, or ``=?base64?...?=`` for text that
  does not fit in a header; it must say the same as the argument in the body.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Iterable
from typing import Final, final
from urllib.parse import urlsplit

from .._errors import UsageError

__all__ = [
    "DEFAULT_ALLOWED_HOSTS",
    "HostRules",
    "SINGLE_HEADERS",
    "accepts",
    "allow_list_entry",
    "decode_param_header",
    "header_text",
    "hostname",
    "is_json_content_type",
    "split_host",
    "split_origin",
]

DEFAULT_ALLOWED_HOSTS: Final = ("localhost", "127.0.0.1", "[::1]")
SINGLE_HEADERS: Final = frozenset({"host", "origin", "authorization"})
_BASE64_WRAPPER: Final = ("=?base64?", "?=")
_DEFAULT_PORTS: Final = {"http": "80", "https": "443"}


def split_host(value: str) -> tuple[str, str] | None:
    """A ``Host`` value as (host, port): ``[::1]:8000`` gives ``("[::1]", "8000")``, ``localhost`` gives
    ``("localhost", "")``; lower-cased; ``None`` when it is not a host at all."""
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
        return value[: end + 1], rest[1:]
    host, _, port = value.partition(":")
    if not host or (port and not port.isdigit()):
        return None
    return host, port


def hostname(value: str) -> str | None:
    """The host part of a ``Host`` header (``[::1]:8000`` gives ``[::1]``), lower-cased, or ``None``."""
    parts = split_host(value)
    return parts[0] if parts is not None else None


def split_origin(origin: str) -> tuple[str, str] | None:
    """The (host, port) an ``Origin`` header names, the port spelled out even when the scheme implies it
    (``https://example.com`` gives ``("example.com", "443")``); ``None`` for ``null`` and anything not
    http(s)."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    if parts.scheme not in _DEFAULT_PORTS or not parts.netloc or "@" in parts.netloc:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = split_host(parts.netloc)
    if host is None:
        return None
    return host[0], host[1] or _DEFAULT_PORTS[parts.scheme]


def allow_list_entry(entry: str) -> str | None:
    """An allow-list entry in the form ``HostRules`` compares: ``host`` or ``host:port`` (IPv6 literals in
    brackets, so ``::1`` becomes ``[::1]``), or an origin such as ``https://app.example`` reduced to its
    host; ``None`` for an entry that names no host."""
    entry = entry.strip().lower()
    if entry == "*":
        return entry
    if "://" in entry:
        origin = split_origin(entry)
        if origin is None:
            return None
        explicit = urlsplit(entry).port is not None
        return f"{origin[0]}:{origin[1]}" if explicit else origin[0]
    if entry.count(":") >= 2 and not entry.startswith("["):
        entry = f"[{entry}]"  # a bare IPv6 address
    parts = split_host(entry)
    if parts is None:
        return None
    return f"{parts[0]}:{parts[1]}" if parts[1] else parts[0]


@final
class HostRules:
    """The DNS-rebinding guard: which ``Host`` and ``Origin`` values a server accepts.

    An entry without a port accepts its host on any port; ``host:port`` accepts that port only; ``*`` turns
    the check off. A request without ``Origin`` passes (clients that are not browsers send none); one with
    ``Origin: null`` (sandboxed pages, files) does not.
    """

    __slots__ = ("hosts", "origins")

    def __init__(self, hosts: Iterable[str], origins: Iterable[str] | None = None) -> None:
        host_list = list(hosts)
        self.hosts = _normalized(host_list)
        self.origins = _normalized(origins if origins is not None else host_list)

    def host_allowed(self, value: str | None, default_port: str) -> bool:
        if "*" in self.hosts:
            return True
        parts = split_host(value) if value is not None else None
        return parts is not None and _matches(self.hosts, parts[0], parts[1] or default_port)

    def origin_allowed(self, value: str | None) -> bool:
        if value is None or "*" in self.origins:
            return True
        parts = split_origin(value)
        return parts is not None and _matches(self.origins, parts[0], parts[1])


def _normalized(entries: Iterable[str]) -> frozenset[str]:
    normalized = set()
    for entry in entries:
        cleaned = allow_list_entry(entry)
        if cleaned is None:
            raise UsageError(f"allowed host {entry!r} is not a host name, host:port or http(s) origin")
        normalized.add(cleaned)
    return frozenset(normalized)


def _matches(allowed: frozenset[str], host: str, port: str) -> bool:
    return host in allowed or (bool(port) and f"{host}:{port}" in allowed)


def accepts(header: str | None, media_type: str) -> bool:
    """Whether an ``Accept`` header lets ``media_type`` through (RFC 9110: the most specific matching range
    decides, and ``q=0`` means "not this"). No header at all accepts anything."""
    if header is None or not header.strip():
        return True
    family = media_type.partition("/")[0] + "/*"
    best: tuple[int, float] | None = None
    for part in header.split(","):
        media, *parameters = part.split(";")
        media = media.strip().lower()
        specificity = {media_type: 2, family: 1, "*/*": 0}.get(media)
        if specificity is None:
            continue
        weight = 1.0
        for parameter in parameters:
            name, _, value = parameter.partition("=")
            if name.strip().lower() == "q":
                try:
                    weight = float(value.strip())
                except ValueError:
                    weight = 1.0  # a garbled weight is no refusal
        if best is None or specificity > best[0]:
            best = (specificity, weight)
    return best is not None and best[1] > 0


def is_json_content_type(header: str | None) -> bool:
    """Whether a ``Content-Type`` says JSON that is UTF-8 (as MCP requires): ``application/json`` with no
    charset, or with ``charset=utf-8``."""
    if header is None:
        return False
    media, *parameters = header.split(";")
    if media.strip().lower() != "application/json":
        return False
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


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


def is_endpoint_path(path: object) -> bool:
    """A path an endpoint can be served at: it starts with ``/`` and holds no query, fragment or blank."""
    return type(path) is str and path.startswith("/") and not any(c in path for c in "?# \t")


def check_app_settings(where: str, paths: dict[str, object], **limits: float) -> None:
    """An HTTP app's own settings, refused when built rather than by every request after: a path that is not
    one (``path="mcp"`` would answer 404 to everything), a limit that is not a number above 0 (413 to every
    body, a session expired before its first use)."""
    for name, path in paths.items():
        if not is_endpoint_path(path):
            raise UsageError(f"{where}: {name} must be a URL path starting with '/' (e.g. '/mcp'), got {path!r}")
    for name, value in limits.items():
        if type(value) not in (int, float) or not value > 0:
            raise UsageError(f"{where}: {name} must be a number above 0, got {value!r}")
