"""The stdio transport: newline-delimited JSON-RPC on stdin and stdout.

Stdout carries protocol messages and nothing else: before the served code is even imported, ``claim_stdout``
moves the real stdout to a private descriptor and points fd 1 and ``sys.stdout`` at stderr (a stray ``print``
or ``os.write(1, ...)`` then lands in the log instead of corrupting the stream). A line that is not JSON
gets a ``-32700`` error and the server reads on; end of input ends the server cleanly once running calls
finish.

Requests are served concurrently: a tool waiting for the client's answer to an elicitation must not stop the
reader from receiving that answer.

A line holding a JSON array is a JSON-RPC batch. Sessions initialized at 2025-03-26 get the batch served and
one line back holding the array of responses (no line when none are owed); every other revision removed
batching, so there the line gets a single -32600 error.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Final, final

from .._errors import MissingDependency, TaskStoreError
from .._jsonrpc import RequestId
from .._protocol.engine import Engine
from .._protocol.session import QUESTION_TIMEOUT, Session
from .._protocol.wire import ParseFailure, encode_message
from .loop import Outgoing, serve_connection, until_stopped

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["StdioTransport", "claim_stdout", "serve_stdio", "serve_stdio_async"]

logger = logging.getLogger("mcptools.stdio")

_MAX_LINE: Final = 16 * 1024 * 1024
_TOO_LONG: Final = b"\x00too-long"


def _read_line(stream: BinaryIO) -> bytes | None:
    """One line of at most ``_MAX_LINE`` bytes (longer lines are consumed and reported as too long)."""
    line = stream.readline(_MAX_LINE + 1)
    if not line:
        return None
    if len(line) > _MAX_LINE and not line.endswith(b"\n"):
        while True:  # drop the rest of the oversized line
            rest = stream.readline(_MAX_LINE)
            if not rest or rest.endswith(b"\n"):
                break
        return _TOO_LONG
    return line


def _is_pipe(stream: BinaryIO) -> bool:
    """Whether ``stream`` is a pipe or socket the event loop can read or write without a thread. A terminal or a
    file is not: asyncio would switch a terminal shared with the shell to non-blocking mode, and it cannot poll
    files."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False  # no file descriptor (BytesIO, a wrapper)
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


@final
class _Lines(asyncio.Protocol):
    """Lines of a pipe, split as they arrive (with the same too-long marker as ``_read_line``)."""

    def __init__(self, lines: asyncio.Queue[bytes | None]) -> None:
        self._lines = lines
        self._pending = bytearray()
        self._discarding = False  # inside a line already reported too long: drop up to its newline

    def data_received(self, data: bytes) -> None:
        pending = self._pending
        pending += data
        start = 0
        while True:
            cut = pending.find(b"\n", start)
            if cut < 0:
                break
            if self._discarding:
                self._discarding = False
                self._lines.put_nowait(_TOO_LONG)
            elif cut + 1 - start > _MAX_LINE + 1:
                self._lines.put_nowait(_TOO_LONG)
            else:
                self._lines.put_nowait(bytes(pending[start : cut + 1]))
            start = cut + 1
        del pending[:start]
        if len(pending) > _MAX_LINE:
            pending.clear()
            self._discarding = True

    def eof_received(self) -> bool:
        if self._pending and not self._discarding:
            self._lines.put_nowait(bytes(self._pending))
        self._pending.clear()
        self._lines.put_nowait(None)
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self._lines.put_nowait(None)


@final
class _Drain(asyncio.Protocol):
    """The write side of a pipe: ``wait`` returns once the pipe takes data again (the client reads)."""

    def __init__(self) -> None:
        self._writable = asyncio.Event()
        self._writable.set()

    def pause_writing(self) -> None:
        self._writable.clear()

    def resume_writing(self) -> None:
        self._writable.set()

    def connection_lost(self, exc: Exception | None) -> None:
        self._writable.set()

    async def wait(self) -> None:
        await self._writable.wait()


@final
class StdioTransport:
    """Newline-delimited JSON-RPC on two binary streams (the process's stdin and the protocol's stdout).

    Pipes are read and written by the event loop itself; anything else (a terminal, a file, an in-memory stream)
    by a daemon thread reading lines and writes made in the loop's executor, so that a silent client never holds
    a stopping server and a slow one never blocks the loop."""

    peer: Final = "stdio"
    can_stream: Final = True

    def __init__(self, reader: BinaryIO, writer: BinaryIO) -> None:
        self._reader = reader
        self._writer = writer
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self._pipe: asyncio.WriteTransport | None = None
        self._drain: _Drain | None = None
        self._lock = asyncio.Lock()

    async def open(self) -> None:
        loop = asyncio.get_running_loop()
        lines = self._lines
        if _is_pipe(self._reader):
            await loop.connect_read_pipe(lambda: _Lines(lines), self._reader)
        else:
            _start_reader(self._reader, loop, lines)
        if _is_pipe(self._writer):
            self._pipe, self._drain = await loop.connect_write_pipe(_Drain, self._writer)

    async def receive(self) -> bytes | None:
        while True:
            line = await self._lines.get()
            if line is None:
                self._lines.put_nowait(None)  # the end stays the end for any later read
                return None
            if line == _TOO_LONG:
                raise ParseFailure(f"Parse error: the line is longer than {_MAX_LINE} bytes")
            if line.strip():
                return line

    async def send(self, message: Outgoing, related: RequestId | None = None) -> None:
        encoded = encode_message(message)
        if encoded is None:
            return
        data = encoded + b"\n"
        pipe = self._pipe
        if pipe is not None:
            if pipe.is_closing():
                raise BrokenPipeError("the client closed its end of the protocol stream")
            pipe.write(data)
            if self._drain is not None and pipe.get_write_buffer_size():
                await self._drain.wait()
            return
        async with self._lock:
            await asyncio.get_running_loop().run_in_executor(None, _write_all, self._writer, data)

    async def close(self) -> None:
        return None  # the streams are the process's: they close when it exits


async def serve_stdio_async(
    registry: Served,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    engine: Engine | None = None,
    question_timeout: float = QUESTION_TIMEOUT,
) -> None:
    """Serve ``registry`` on the given binary streams (the process's own by default) until end of input, its
    lifespan entered around it (a lifespan that fails to start raises here, before anything is read). A question
    to the client waits at most ``question_timeout`` seconds for its answer."""
    engine = engine if engine is not None else registry.engine
    transport = StdioTransport(
        stdin if stdin is not None else sys.stdin.buffer, stdout if stdout is not None else sys.stdout.buffer
    )
    async with registry.running():
        await transport.open()
        await serve_connection(
            engine, transport, session=Session(peer=transport.peer, question_timeout=question_timeout)
        )


def _start_reader(reader: BinaryIO, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[bytes | None]) -> None:
    """Lines of ``reader`` as they arrive (``None`` at its end), read by a daemon thread: a read blocked on a
    silent client must not keep the process alive once the server has been told to stop (SIGTERM).

    The process's own stdin is read from its file descriptor with ``os.read``: a daemon thread blocked inside
    the buffered ``sys.stdin`` holds that object's lock, and the interpreter aborts at exit trying to take it.
    """
    source = _fd_lines(0) if reader is getattr(sys.stdin, "buffer", None) else _stream_lines(reader)

    def pump() -> None:
        for line in source:
            try:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            except RuntimeError:
                return  # the loop is gone: the server has stopped
            if line is None:
                return

    threading.Thread(target=pump, name="mcptools-stdin", daemon=True).start()


def _stream_lines(reader: BinaryIO) -> Iterator[bytes | None]:
    while True:
        try:
            line = _read_line(reader)
        except (OSError, ValueError):
            line = None  # a closed or broken stream is the end of input
        yield line
        if line is None:
            return


def _fd_lines(fd: int) -> Iterator[bytes | None]:
    """``_read_line``'s lines (the same too-long marker), read from a file descriptor in large chunks."""
    pending = bytearray()
    discarding = False  # inside a line already reported too long: drop up to its newline
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            if pending and not discarding:
                yield bytes(pending)
            yield None
            return
        pending += chunk
        while True:
            cut = pending.find(b"\n")
            if cut < 0:
                break
            line = bytes(pending[: cut + 1])
            del pending[: cut + 1]
            if discarding:
                discarding = False
                yield _TOO_LONG
            elif len(line) > _MAX_LINE + 1:
                yield _TOO_LONG
            else:
                yield line
        if len(pending) > _MAX_LINE:
            pending.clear()
            discarding = True


def _write_all(stream: BinaryIO, data: bytes) -> None:
    stream.write(data)
    stream.flush()


def claim_stdout() -> BinaryIO:
    """Take this process's stdout for the protocol alone and return the stream to write messages to.

    File descriptor 1 is duplicated to a private descriptor that only the transport writes; then fd 1 is
    pointed at stderr and ``sys.stdout`` at ``sys.stderr``. So output nobody meant for the client (a
    ``print`` while the target module is imported, ``os.write(1, ...)`` in a tool, a C extension's printf)
    lands in the log instead of splitting a JSON line. Call it before loading the code that will be served.
    """
    sys.stdout.flush()
    try:
        private = os.dup(1)
        os.dup2(2, 1)
    except OSError:
        # No usable fd 2 (a windowless process): only the Python-level redirect is possible.
        protocol = sys.stdout.buffer
    else:
        protocol = os.fdopen(private, "wb")
    sys.stdout = sys.stderr
    return protocol


def serve_stdio(
    registry: Served, stdout: BinaryIO | None = None, *, stack: str = "auto", question_timeout: float = QUESTION_TIMEOUT
) -> int:
    """Serve ``registry`` on this process's stdin and stdout; returns the exit status.

    ``stdout`` is the stream from ``claim_stdout`` when the caller claimed it before loading the registry;
    otherwise it is claimed here. ``stack``: ``auto`` runs on uvloop when it is installed (extra ``http-fast``:
    about half the time a round trip takes on asyncio's own loop), ``standard`` always on asyncio's, ``fast``
    on uvloop (an ImportError without it). ``question_timeout``: see ``serve_stdio_async``.
    """
    protocol = stdout if stdout is not None else claim_stdout()
    run = _runner(stack)
    with contextlib.redirect_stdout(sys.stderr):
        try:
            run(
                until_stopped(
                    serve_stdio_async(registry, sys.stdin.buffer, protocol, question_timeout=question_timeout)
                )
            )
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0
        except TaskStoreError as exc:
            # The task store named on the command line could not be opened: the reason is the whole story.
            logger.error("mcptools: serving %r over stdio failed: %s", registry.name, exc)
            return 1
        except Exception:
            # The lifespan failed to start or to close: said once, with its traceback, on stderr.
            logger.exception("mcptools: serving %r over stdio failed", registry.name)
            return 1
    return 0


def _runner(stack: str) -> Callable[[Coroutine[Any, Any, None]], None]:
    """How a coroutine runs to its end on the loop ``stack`` chooses."""
    if stack != "standard":
        try:
            import uvloop
        except ImportError:
            if stack == "fast":
                raise MissingDependency("stack='fast' needs uvloop: pip install 'mcptools[http-fast]'") from None
        else:
            return uvloop.run
    return asyncio.run
