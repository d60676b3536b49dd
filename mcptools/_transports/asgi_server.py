"""How ``mcptools serve --http`` runs the ASGI app on uvicorn: the listening socket, the HTTP stack, and the guard
against slow clients.

* The socket is created as a TCP socket (``IPPROTO_TCP``), so asyncio sets ``TCP_NODELAY`` on every accepted
  connection. Created with protocol 0 it does not, and uvicorn writes a response's headers and body in two
  sends: on a kept-alive connection the second waits for the client's delayed ACK, about 40 ms per request.
* Stacks: ``standard`` is uvicorn's h11 parser on asyncio's loop; ``fast`` is httptools on uvloop (extra
  ``http-fast``); ``auto`` picks ``fast`` when both are installed.
* Slow clients: uvicorn closes idle keep-alive connections (``--timeout-keep-alive``) but bounds neither how
  long a request's headers may take to arrive nor its body: a client sending one byte every few seconds holds
  a connection (and its buffers) forever. The guard is a subclass of uvicorn's protocol with one timer per
  connection: the headers of each request must arrive within ``header_timeout`` of the connection becoming
  ready for it, and its body within ``body_timeout`` of the headers; otherwise the client gets 408 and the
  connection is closed (a connection on which nothing at all arrived is just closed, as an idle one).
* Endless headers: the guard also caps a request's head (request line and headers) at ``MAX_HEAD_BYTES``, 16 KiB
  as h11 and Node allow by default, before the parser sees a byte past it: a longer head gets 431 and the
  connection is closed. httptools has no limit of its own (four connections sending headers without end took
  the server past a gigabyte in three seconds) and h11's is a setting of uvicorn's, so the cap is counted here
  the same way on every stack: the bytes that arrive while no request is being read past its headers.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable, Mapping
from typing import Any, Final

__all__ = ["MAX_HEAD_BYTES", "fast_available", "listen", "uvicorn_options"]

# The most a request's head (request line and headers) may hold: past it, 431 and the connection closes.
MAX_HEAD_BYTES: Final = 16 * 1024

_TIMEOUT_BODY: Final = b"the request did not arrive in time\n"
_TIMED_OUT: Final = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain\r\nconnection: close\r\n"
    + b"content-length: %d\r\n\r\n" % len(_TIMEOUT_BODY)
    + _TIMEOUT_BODY
)
_HEAD_BODY: Final = b"the request's headers are longer than %d bytes\n" % MAX_HEAD_BYTES
_HEAD_TOO_LARGE: Final = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: text/plain\r\nconnection: close\r\n"
    + b"content-length: %d\r\n\r\n" % len(_HEAD_BODY)
    + _HEAD_BODY
)


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` the way uvicorn binds one (address reuse, IPv6 for a colon)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP, not 0: asyncio turns on TCP_NODELAY for accepted sockets only when the protocol says TCP.
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Linux hands the flag on to accepted sockets too, for servers that never look at the protocol.
        listener.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listener.bind((host.strip("[]"), port))
    except OSError:
        listener.close()
        raise
    listener.set_inheritable(True)
    return listener


def fast_available() -> bool:
    """Whether the ``fast`` stack (uvloop and httptools, extra ``http-fast``) is installed."""
    try:
        import httptools  # noqa: F401
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


def uvicorn_options(options: Mapping[str, Any], *, by_name: bool) -> dict[str, Any]:
    """uvicorn's settings for resolved serving options: the loop and the guarded HTTP protocol of the chosen
    stack, its keep-alive. With one process the protocol class is handed over with the header and body limits
    set on it; worker processes import it ``by_name``, and it reads the limits from the worker's options."""
    fast = options["stack"] == "fast" or (options["stack"] == "auto" and fast_available())
    name = "GuardedHttpTools" if fast else "GuardedH11"
    protocol: Any = f"{__name__}:{name}"
    if not by_name:
        protocol = type(name, (__getattr__(name),), {"limits": (options["timeout_headers"], options["timeout_body"])})
    return {
        "loop": "uvloop" if fast else "asyncio",
        "http": protocol,
        "timeout_keep_alive": options["timeout_keep_alive"],
        # Past it uvicorn cancels what is still running and closes the app's lifespan: SIGTERM always ends.
        "timeout_graceful_shutdown": options["timeout_shutdown"],
        "log_level": "warning",
    }


def _worker_limits() -> tuple[float, float]:
    """The header and body limits in a worker process (``mcptools._options.to_worker`` wrote them)."""
    from .._options import from_worker

    _, _, options = from_worker()
    return options["timeout_headers"], options["timeout_body"]


class _SlowClientGuard:
    """Mixed into a uvicorn HTTP protocol (which sets ``transport``, ``cycle`` and ``loop``): the timers against
    slow clients and the cap on a request's head."""

    transport: asyncio.Transport
    cycle: Any
    loop: asyncio.AbstractEventLoop

    _guard_timer: asyncio.TimerHandle | None = None
    _guard_cycle: Any = None
    _guard_partial = False
    # (headers, body) seconds: set on the class handed to uvicorn; in a worker process read once (see above).
    limits: tuple[float, float] | None = None
    _guard_head = 0  # bytes of the head being read: counted while no request is past its headers

    def _guard_head_fits(self, data: bytes) -> bool:
        """Whether ``data`` keeps the head within ``MAX_HEAD_BYTES``, counted before the parser buffers it."""
        cycle = self.cycle
        if cycle is not None and cycle.more_body:
            return True  # the bytes of a body, not of a head
        used = self._guard_head
        self._guard_head = used + len(data)
        if self._guard_head <= MAX_HEAD_BYTES:
            return True
        # Past the cap, unless the blank line that ends the head comes before it (the rest is body); only a
        # chunk crossing the cap is searched. A terminator split across two chunks right at the cap is refused.
        return data.find(b"\r\n\r\n", 0, max(MAX_HEAD_BYTES - used, 0)) != -1

    def _guard_refuse_head(self) -> None:
        self._guard_stop()
        cycle = self.cycle
        # A response may be under way on this connection (a pipelined request's head is the one too long): the
        # 431 would land inside it, so the connection just closes then.
        if cycle is None or cycle.response_complete:
            self.transport.write(_HEAD_TOO_LARGE)
        self.transport.close()

    def _guard_arm(self, body: bool) -> None:
        if self._guard_timer is not None:
            self._guard_timer.cancel()
        limits = self.limits
        if limits is None:
            limits = type(self).limits = _worker_limits()
        delay = limits[1 if body else 0]
        self._guard_timer = self.loop.call_later(delay, self._guard_expired, body) if delay > 0 else None

    def _guard_check(self) -> None:
        """After the parser ran: a new request's headers are complete once uvicorn made a new cycle for it."""
        cycle = self.cycle
        if cycle is not None and cycle is not self._guard_cycle:
            self._guard_cycle = cycle
            self._guard_partial = False
            self._guard_head = 0  # its head is complete; the next one counts from nothing
            self._guard_arm(body=True)

    def _guard_expired(self, body: bool) -> None:
        self._guard_timer = None
        transport = self.transport
        if transport.is_closing():
            return
        if body and not getattr(self._guard_cycle, "more_body", False):
            return  # the body is in; the application is working on the answer
        if body or self._guard_partial:
            transport.write(_TIMED_OUT)
        transport.close()

    def _guard_stop(self) -> None:
        if self._guard_timer is not None:
            self._guard_timer.cancel()
            self._guard_timer = None


def _guarded(base: type[Any]) -> type[Any]:
    class Guarded(_SlowClientGuard, base):  # type: ignore[misc]
        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            self._guard_arm(body=False)

        def data_received(self, data: bytes) -> None:
            if not self._guard_head_fits(data):
                self._guard_refuse_head()
                return
            if self._guard_cycle is self.cycle:
                self._guard_partial = True  # bytes of a request whose headers are not complete yet
            super().data_received(data)
            self._guard_check()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._guard_partial = False
                self._guard_arm(body=False)
                self._guard_check()  # a pipelined request may have started already

        def connection_lost(self, exc: Exception | None) -> None:
            self._guard_stop()
            super().connection_lost(exc)

        def shutdown(self) -> None:
            # uvicorn's graceful shutdown waits for every open response to end before the app's lifespan
            # shutdown: a subscriptions/listen stream never ends by itself, so tell the app first (it closes
            # those streams gracefully, with their final result) and how long the server will wait, so the app
            # answers what still runs before uvicorn cancels it mid-response. Called once per connection.
            stopping = _find_stopping(getattr(self, "app", None))
            if stopping is not None:
                stopping(self.config.timeout_graceful_shutdown)
            super().shutdown()

    return Guarded


def _find_stopping(app: object) -> Callable[[float | None], None] | None:
    """The served app's ``stopping(within)`` hook, under uvicorn's own wrappers (each keeps the inner app as
    ``.app``). The app is always one of ours (``mcptools._run`` builds it), and each takes the deadline."""
    for _ in range(8):
        hook = getattr(app, "stopping", None)
        if callable(hook):
            return hook  # type: ignore[no-any-return]
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


def __getattr__(name: str) -> type[Any]:
    # uvicorn is an optional dependency: the protocol classes exist only once uvicorn is asked for them.
    if name == "GuardedH11":
        from uvicorn.protocols.http.h11_impl import H11Protocol

        cls = _guarded(H11Protocol)
    elif name == "GuardedHttpTools":
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

        cls = _guarded(HttpToolsProtocol)
    else:
        raise AttributeError(name)
    cls.__name__ = cls.__qualname__ = name
    globals()[name] = cls
    return cls
