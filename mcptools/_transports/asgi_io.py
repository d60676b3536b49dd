"""The ASGI plumbing under the Streamable HTTP app: the message types, request headers by name, and the ways a
response leaves (one JSON body, an empty one, or an SSE stream that stops when the client goes away).

``asgi`` decides what to answer and with which status; this module only puts the answer on the wire.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import TYPE_CHECKING, Any, Final, final

from .._jsonrpc import INVALID_REQUEST, error_response
from .._protocol.wire import encode_message
from .http_rules import SINGLE_HEADERS, HostRules

if TYPE_CHECKING:
    from ..auth import Principal

__all__ = [
    "ASGISend",
    "Answer",
    "DEFAULT_MAX_BODY",
    "Disconnected",
    "Headers",
    "Message",
    "Receive",
    "Reject",
    "SSE_HEADERS",
    "Scope",
    "check_host",
    "local_path",
    "peer_of",
    "read_body",
    "send_empty",
    "send_json",
    "until_disconnect",
    "until_expiry",
]

Scope = MutableMapping[str, Any]
# The largest request body our HTTP apps read by default (Streamable HTTP's POST, HTTP+SSE's message POST).
DEFAULT_MAX_BODY: Final = 4 * 1024 * 1024
# What a request (one response or none) or a batch (a list of them, or one error for the whole) comes to.
Answer = dict[str, Any] | list[dict[str, Any]] | None
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
ASGISend = Callable[[Message], Awaitable[None]]


@final
class Headers:
    """Request headers by lower-cased name (ASGI gives them as a list of byte pairs). Reading one of the
    ``SINGLE_HEADERS`` the request repeats refuses it (400), whichever copy a proxy before us believed."""

    __slots__ = ("_repeated", "_values")

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        values: dict[str, str] = {}
        repeated: set[str] | None = None
        for name, value in raw:
            key = name.decode("latin-1").lower()
            if key in values:
                if key in SINGLE_HEADERS:
                    repeated = {key} if repeated is None else repeated | {key}
                continue
            values[key] = value.decode("latin-1")
        self._values = values
        self._repeated = repeated

    def get(self, name: str) -> str | None:
        if self._repeated is not None and name in self._repeated:
            raise Reject(400, INVALID_REQUEST, f"Bad Request: more than one {name.title()} header")
        return self._values.get(name)


class Disconnected(Exception):
    pass


class Reject(Exception):
    """An error answer: the HTTP status, the JSON-RPC error body (with the request's id once it is known) and
    any extra headers."""

    def __init__(
        self,
        status: int,
        code: int,
        message: str,
        request_id: Any = None,
        data: Any = None,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.body = error_response(request_id, code, message, data)
        self.headers = headers or []


def local_path(scope: Scope) -> str:
    """The request's path below the mount point. ASGI servers and Starlette >= 0.33 keep the full path in
    ``path`` with the prefix in ``root_path``; older routers strip it: both are handled."""
    path: str = scope.get("path") or "/"
    root: str = scope.get("root_path") or ""
    if root and path.startswith(root):
        path = path[len(root) :]
    return path


def check_host(rules: HostRules, headers: Headers, scope: Scope) -> None:
    """The DNS-rebinding guard every request of our HTTP apps passes first: 403 for a Host or Origin that names
    a host this server does not serve."""
    if not rules.host_allowed(headers.get("host"), "443" if scope.get("scheme") == "https" else "80"):
        raise Reject(403, INVALID_REQUEST, "Forbidden: Host header is not allowed")
    if not rules.origin_allowed(headers.get("origin")):
        raise Reject(403, INVALID_REQUEST, "Forbidden: Origin header is not allowed")


async def read_body(headers: Headers, receive: Receive, limit: int) -> bytes:
    """A request's body, refused with 413 past ``limit`` bytes (declared or as it arrives)."""
    declared = headers.get("content-length")
    if declared is not None and declared.strip().isdigit() and int(declared) > limit:
        raise Reject(413, INVALID_REQUEST, f"Payload Too Large: the limit is {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise Reject(400, INVALID_REQUEST, "Bad Request: the client went away")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Reject(413, INVALID_REQUEST, f"Payload Too Large: the limit is {limit} bytes")
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def peer_of(scope: Scope) -> str | None:
    """The client's address as the ASGI server saw it: what per-client middleware counts against when no token
    names the caller (behind a proxy every client shares the proxy's address; use a key of your own there)."""
    client = scope.get("client")
    return f"address:{client[0]}" if client else None


SSE_HEADERS: Final = [
    (b"content-type", b"text/event-stream"),
    (b"cache-control", b"no-cache, no-transform"),
    (b"x-accel-buffering", b"no"),
]


async def send_json(send: ASGISend, status: int, body: Answer, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    payload = encode_message(body) if body is not None else None
    if payload is None:
        await send_empty(send, 202 if status < 300 else status, extra)
        return
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode("ascii"))]
    await send({"type": "http.response.start", "status": status, "headers": headers + (extra or [])})
    await send({"type": "http.response.body", "body": payload, "more_body": False})


async def send_empty(send: ASGISend, status: int, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    await send({"type": "http.response.start", "status": status, "headers": extra or []})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def until_disconnect(work: Awaitable[Any], receive: Receive) -> Any:
    """Run ``work`` unless the client disconnects first (then raise ``Disconnected``)."""
    job = asyncio.ensure_future(work)

    async def watch() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return

    watcher = asyncio.ensure_future(watch())
    try:
        done, _ = await asyncio.wait({job, watcher}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        job.cancel()
        watcher.cancel()
        raise
    if job in done:
        watcher.cancel()
        return job.result()
    job.cancel()
    raise Disconnected


async def until_expiry(work: Awaitable[None], principal: Principal | None, send: ASGISend) -> None:
    """Run ``work``, the sending of a stream that ends its response itself, until the token that opened the
    stream expires: then the response ends there (a client that still wants the stream comes back with a fresh
    token, which is checked like any other)."""
    expires = principal.expires_at if principal is not None else None
    if expires is None:
        await work
        return
    try:
        await asyncio.wait_for(work, max(expires - time.time(), 0.0))
    except asyncio.TimeoutError:
        await send({"type": "http.response.body", "body": b"", "more_body": False})
