"""What the server remembers about one client between messages.

A 2025 client gets a ``Session`` at ``initialize``: the negotiated revision, its capabilities, its log level,
the server-to-client requests awaiting an answer and the calls still running (so ``notifications/cancelled``
can stop them). A 2026-07-28 request carries all of that in ``_meta`` and gets a fresh, throwaway session.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final, final

from .._errors import ClientRequestError
from .._jsonrpc import INTERNAL_ERROR, RequestId

if TYPE_CHECKING:
    import asyncio

__all__ = ["QUESTION_TIMEOUT", "ClientRequestError", "Send", "Session", "discard"]

Send = Callable[[dict[str, Any]], Awaitable[None]]


async def discard(message: dict[str, Any]) -> None:
    """The ``Send`` of a call with no stream to the client: progress and log notifications go nowhere."""
    return None


# Before a client sends logging/setLevel, every message is sent, as both peers do (the spec leaves the level to
# the server until then): a debug line a tool writes for a client reaches it without a setLevel first.
_DEFAULT_LOG_LEVEL: Final = "debug"
# How long a question to the client (elicitation, sampling, roots) waits for its answer by default: a person may
# be filling in a form, but a client that never answers must not hold the call, its session and a shutdown forever.
QUESTION_TIMEOUT: Final = 300.0


@final
class Session:
    """One client's state across messages; the transports create it, ``handle`` reads and updates it."""

    __slots__ = (
        "__weakref__",
        "_closers",
        "_id",
        "_outlet",
        "_pending",
        "_posting",
        "_running",
        "client_capabilities",
        "client_info",
        "closed",
        "initialized",
        "log_level",
        "peer",
        "protocol_version",
        "question_timeout",
        "remembers",
    )

    def __init__(
        self,
        session_id: str | None = None,
        *,
        peer: str | None = None,
        remembers: bool = True,
        question_timeout: float = QUESTION_TIMEOUT,
    ) -> None:
        self._id = session_id
        # False for the one shared session of requests that have none (``registry.handle``): calls from any
        # number of threads pass through it, and no notification can reach it to cancel them.
        self.remembers = remembers
        # The transport's name for the client on the other end (``address:<ip>``, ``stdio``, ``memory``): what
        # per-client middleware (a rate limit) counts against when no verified principal says who it is.
        self.peer = peer
        self.protocol_version: str | None = None
        self.client_capabilities: dict[str, Any] = {}
        self.client_info: dict[str, Any] = {}
        self.log_level: str | None = _DEFAULT_LOG_LEVEL
        self.initialized = False
        self.closed = False
        # Seconds a question to the client waits for its answer (the transport's serving option).
        self.question_timeout = question_timeout
        self._pending: dict[RequestId, asyncio.Future[dict[str, Any]]] = {}
        self._running: dict[RequestId, tuple[asyncio.Task[Any], Callable[[], None]]] = {}
        # Where server-initiated notifications go (stdio's output, HTTP's GET stream, a test client), and the
        # event loop that owns it: ``post`` may be called from any thread (a sync tool changing the tool list).
        self._outlet: tuple[asyncio.AbstractEventLoop | None, Send] | None = None
        self._posting: set[asyncio.Future[None]] = set()
        # What ends with the session besides calls and questions (a subscriptions/listen stream on stdio).
        self._closers: list[Callable[[], None]] = []

    @property
    def id(self) -> str:
        """A random, unguessable id of visible ASCII (as Streamable HTTP requires of Mcp-Session-Id), made on
        first use: most sessions (one per stateless request) never need one."""
        if self._id is None:
            import secrets  # lazily: see _protocol/state.py

            self._id = secrets.token_urlsafe(24)
        return self._id

    @property
    def is_legacy(self) -> bool:
        """Whether this session was opened by ``initialize`` (a 2025 revision) rather than per-request
        ``_meta``."""
        return self.protocol_version is not None

    def open_outlet(self, send: Send) -> None:
        """Let the server send this session notifications of its own (``notifications/tools/list_changed``)
        through ``send``, on the event loop running now (if any; else on the one running when one is posted).
        Transports call it for the sessions they keep open."""
        import asyncio  # lazily: asyncio is most of mcptools' import time

        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        self._outlet = (loop, send)

    def post(self, message: dict[str, Any]) -> None:
        """Send a server-initiated notification without waiting; a no-op before ``notifications/initialized``
        (the spec forbids earlier ones), after ``close`` and on sessions with no outlet. Safe from any thread:
        the send is scheduled on the outlet's loop."""
        outlet = self._outlet
        if outlet is None or self.closed or not self.initialized:
            return
        import asyncio

        loop, send = outlet
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if loop is None:
            loop = running
        if loop is None or loop.is_closed():
            return

        def start() -> None:
            future = asyncio.ensure_future(send(message))
            self._posting.add(future)
            future.add_done_callback(self._posted)

        if running is loop:
            start()
        else:
            try:
                loop.call_soon_threadsafe(start)
            except RuntimeError:  # the loop closed meanwhile: the session is ending, nobody is listening
                return

    def _posted(self, future: asyncio.Future[None]) -> None:
        self._posting.discard(future)
        # A notification the client can no longer receive (its stream went away) is no failure of the change
        # that caused it; retrieving the exception keeps asyncio from logging it as unhandled.
        if not future.cancelled():
            future.exception()

    async def request(self, method: str, params: dict[str, Any], send: Send) -> dict[str, Any]:
        """Send a request to the client on ``send`` and wait for its answer (the result object), at most
        ``question_timeout`` seconds; a transport may fail it sooner (``fail``: its stream is gone for good)."""
        if self.closed:
            raise ClientRequestError(INTERNAL_ERROR, "the session is closed")
        import asyncio  # lazily: asyncio is most of mcptools' import time
        import secrets

        # Unguessable, so that only a client that saw the question can answer it (a sequence, s-1, s-2, ..., let
        # anyone who learned the session id answer its questions).
        request_id = f"s-{secrets.token_urlsafe(16)}"
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            await send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
            return await asyncio.wait_for(future, self.question_timeout)
        except asyncio.TimeoutError:
            raise ClientRequestError(
                INTERNAL_ERROR, f"the client did not answer {method} within {self.question_timeout:g} seconds"
            ) from None
        finally:
            self._pending.pop(request_id, None)

    def waiting(self, request_id: RequestId) -> bool:
        """Whether a question under this id still waits for the client's answer."""
        future = self._pending.get(request_id)
        return future is not None and not future.done()

    def fail(self, request_id: RequestId, reason: str) -> bool:
        """End a question still waiting for its answer with ``ClientRequestError(reason)``; ``False`` if none
        waits under that id."""
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        future.set_exception(ClientRequestError(INTERNAL_ERROR, reason))
        return True

    def resolve(self, message: dict[str, Any]) -> bool:
        """Deliver a client's response to the request waiting for it; ``False`` if nothing was waiting."""
        request_id = message.get("id")
        if not isinstance(request_id, (str, int)):
            return False
        future = self._pending.get(request_id)
        if future is None or future.done():
            return False
        error = message.get("error")
        if error is not None:
            code = error.get("code") if type(error) is dict else None
            text = error.get("message") if type(error) is dict else None
            future.set_exception(
                ClientRequestError(
                    code if type(code) is int else INTERNAL_ERROR,
                    text if type(text) is str else "the client returned an error",
                    error.get("data") if type(error) is dict else None,
                )
            )
        else:
            result = message.get("result")
            future.set_result(result if type(result) is dict else {})
        return True

    def track(self, request_id: RequestId, task: asyncio.Task[Any], on_cancel: Callable[[], None]) -> None:
        if self.remembers:
            self._running[request_id] = (task, on_cancel)

    def tracks(self, request_id: RequestId) -> bool:
        """Whether a request with this id is running on this session."""
        return request_id in self._running

    def untrack(self, request_id: RequestId) -> None:
        self._running.pop(request_id, None)

    def cancel(self, request_id: object) -> bool:
        """Stop a running call (``notifications/cancelled``); its response is then never sent."""
        if not isinstance(request_id, (str, int)):
            return False
        entry = self._running.get(request_id)
        if entry is None:
            return False
        task, on_cancel = entry
        on_cancel()
        task.cancel()
        return True

    def on_close(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` when the session closes (now, if it has); returns what unregisters it."""
        if self.closed:
            callback()
            return lambda: None
        self._closers.append(callback)

        def unregister() -> None:
            if callback in self._closers:
                self._closers.remove(callback)

        return unregister

    def close(self, *, cancel_running: bool = True) -> None:
        """End the session: waiting server-to-client requests fail, ``on_close`` callbacks run (a listen stream
        ends), and running calls are cancelled unless ``cancel_running`` is false (stdio at end of input lets
        them finish and write their answers)."""
        self.closed = True
        closers, self._closers = self._closers, []
        for callback in closers:
            callback()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(ClientRequestError(INTERNAL_ERROR, "the session is closed"))
        if not cancel_running:
            return
        for task, on_cancel in list(self._running.values()):
            on_cancel()
            task.cancel()
        self._running.clear()
