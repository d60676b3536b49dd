"""The transport contract, and the one message loop every connection-shaped transport shares.

A connection-shaped transport carries JSON-RPC messages both ways on one channel for as long as a client stays:
stdio, the in-memory pair the testing client uses, the deprecated HTTP+SSE transport, a WebSocket. Like httpx's
``BaseTransport`` it implements one small protocol, ``Transport``, and ``serve_connection`` does the rest:

    receive -> decode (-32700 for what is not JSON) -> the engine (classify, route, serve) -> send
    requests are served concurrently (a tool waiting for the client's answer to its question must not stop the
    loop from receiving that answer); answers to our questions and notifications are handled at once, in the
    order they came, before the next message is received; at end of input
    questions still waiting fail and calls still running finish and send their responses; when the loop is
    cancelled (SIGTERM, Ctrl-C, the server stopping) running calls are cancelled with it; when a send finds the
    client gone, running calls are cancelled, questions fail, and nothing more is sent.

Streamable HTTP is request-shaped (a POST per message, an answer per POST) and talks to the engine's ``route``
and ``serve`` directly (``mcptools._transports.asgi``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections.abc import Awaitable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol, final

from .._call import Mode
from .._jsonrpc import PARSE_ERROR, RequestId, error_response, is_request_id
from .._protocol.session import Session
from .._protocol.wire import ParseFailure, decode_message
from .cutoff import Answered, Cutoff, cut_answers, owed_by

if TYPE_CHECKING:
    from .._protocol.engine import Engine
    from ..auth import Principal

__all__ = ["Transport", "TransportStream", "serve_connection", "until_stopped"]

logger = logging.getLogger("mcptools")

Outgoing = dict[str, Any] | list[dict[str, Any]]


class Transport(Protocol):
    """One client's connection, as ``serve_connection`` drives it.

    ``peer``: the transport's name for the client (``stdio``, ``memory``, ``address:<ip>``), what per-client
    middleware counts against when no verified principal says who it is. ``can_stream``: whether messages sent
    before a response reach the client (progress, logs, questions to the client). ``receive``: the next message,
    as text to decode (``bytes`` or ``str``) or already decoded; ``None`` at the end of input; it may raise
    ``ParseFailure`` for a message it could not frame (a line too long), which is answered with -32700.
    ``send``: one message (or a batch's responses) to the client; ``related`` is the id of the request whose
    answering sent it (a progress or log notification, a question), for transports that keep each request's
    messages apart (the in-memory one does, per call); it raises ``ConnectionError`` (``BrokenPipeError``,
    ``ConnectionResetError``, ...) once the client has gone, and ``serve_connection`` then ends the connection.
    ``close``: the server is done with it.

    The contract is for maintainers adding a transport to this package: it is not public API, and it may change.
    """

    @property
    def peer(self) -> str | None: ...
    @property
    def can_stream(self) -> bool: ...
    async def receive(self) -> bytes | str | dict[str, Any] | list[Any] | None: ...
    async def send(self, message: Outgoing, related: RequestId | None = None) -> None: ...
    async def close(self) -> None: ...


@final
class _Connection:
    """The transport as the loop sends on it. A client that has gone (the transport's send raised
    ``ConnectionError``) ends the connection once, here, rather than surfacing as an exception in whichever call,
    progress report or log line happened to send: running calls are cancelled (a tool sees ``CancelledError`` at
    its next await, as when the client cancels), waiting questions fail, and later messages are dropped."""

    __slots__ = ("cutoff", "gone", "running", "session", "transport")

    def __init__(self, transport: Transport, session: Session, cutoff: Cutoff | None) -> None:
        self.transport = transport
        self.session = session
        self.running: set[asyncio.Task[None]] = set()
        self.gone = False
        # An HTTP app's shutdown deadline: what still runs when it comes is answered with errors.
        self.cutoff = cutoff

    async def answer(self, work: Awaitable[Any], message: Any, answered: Answered | None) -> None:
        """Send what ``work`` answers to ``message`` (a request, or a batch whose finished members go to
        ``answered``), unless the shutdown deadline cuts it first: then what finished, and errors for the rest."""
        cutoff = self.cutoff
        if cutoff is None:
            answer = await work
        else:
            made = answered.responses if answered is not None else ()
            answer = await cutoff.run(work, lambda: cut_answers(owed_by(message), made))
        if answer is not None:
            await self.send(answer)

    async def send(self, message: Outgoing, related: RequestId | None = None) -> None:
        if self.gone:
            return
        try:
            await self.transport.send(message, related)
        except ConnectionError as exc:
            self.gone = True
            logger.info("mcptools: the client on %s went away (%s); its calls are cancelled", self.transport.peer, exc)
            self.session.close()
            for task in self.running:
                task.cancel()


@final
class TransportStream:
    """A connection's transport as the stream of one request served on it (``mcptools._call.Stream``)."""

    __slots__ = ("_connection", "_related", "streaming")

    def __init__(self, connection: _Connection, related: RequestId | None = None) -> None:
        self._connection = connection
        self._related = related
        self.streaming = connection.transport.can_stream

    async def send(self, message: dict[str, Any]) -> None:
        await self._connection.send(message, self._related)

    async def close(self) -> None:
        return None  # one channel for the whole connection: there is no per-request stream to end early


async def serve_connection(
    engine: Engine,
    transport: Transport,
    *,
    session: Session | None = None,
    mode: Mode = Mode.LENIENT,
    principal: Principal | None = None,
    cutoff: Cutoff | None = None,
) -> None:
    """Serve ``transport`` until its input ends (or this is cancelled); see the module docstring."""
    session = session if session is not None else Session(peer=transport.peer)
    connection = _Connection(transport, session, cutoff)
    stream = TransportStream(connection)
    # Notifications of the server's own (the tool list changed) go out on the same channel.
    session.open_outlet(stream.send)
    running = connection.running

    async def serve(message: Any) -> None:
        answered = Answered() if type(message) is list else None
        if answered is not None:
            work: Awaitable[Any] = engine.handle_batch(message, session, stream, deliver=answered)
        else:
            related = message.get("id") if type(message) is dict else None
            own = TransportStream(connection, related) if is_request_id(related) else stream
            work = engine.handle(message, session, own, mode, principal)
        await connection.answer(work, message, answered)

    try:
        while True:
            try:
                incoming = await transport.receive()
                if incoming is None or connection.gone:
                    break
                message = decode_message(incoming) if isinstance(incoming, (bytes, str)) else incoming
            except ParseFailure as failure:
                await connection.send(error_response(None, PARSE_ERROR, str(failure)))
                continue
            if type(message) is not list and not (type(message) is dict and "method" in message and "id" in message):
                # Not a request: a client's answer to one of our questions (a waiting tool depends on it), a
                # notification (initialized, cancelled), or something invalid. Handled now, in order.
                answer = await engine.handle(message, session, stream, mode, principal)
                if answer is not None:
                    await connection.send(answer)
                continue
            task = asyncio.ensure_future(serve(message))
            running.add(task)
            task.add_done_callback(running.discard)
    except asyncio.CancelledError:
        # Stopped from outside (SIGTERM, Ctrl-C): calls are cancelled; whoever entered the lifespan closes it.
        session.close()
        for task in running:
            task.cancel()
        await transport.close()
        raise
    # No more input means no answers to our questions: those fail, and calls that need none finish normally.
    session.close(cancel_running=False)
    if running:
        await asyncio.gather(*running, return_exceptions=True)
    await transport.close()


async def until_stopped(serving: Coroutine[Any, Any, None]) -> None:
    """Run a transport's ``serving`` to its end, or until SIGTERM: then it is cancelled, so running calls stop
    and the lifespan it entered closes before the process exits (Python's default for SIGTERM is to die on the
    spot, lifespan and all). Every transport that owns its process runs under this."""
    task = asyncio.ensure_future(serving)
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows, or not the main thread
        loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        await task
    except asyncio.CancelledError:
        if not task.cancelled():
            raise
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
