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
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from .._jsonrpc import PARSE_ERROR, error_response
from .._protocol.engine import Engine
from .._protocol.session import Session
from .._protocol.wire import ParseFailure, decode_message, encode_message

if TYPE_CHECKING:
    from .._protocol.engine import Served

__all__ = ["claim_stdout", "serve_stdio", "serve_stdio_async"]

logger = logging.getLogger("mcptools.stdio")

_MAX_LINE: Final = 16 * 1024 * 1024


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
        return b"\x00too-long"
    return line


async def serve_stdio_async(
    registry: Served,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    engine: Engine | None = None,
) -> None:
    """Serve ``registry`` on the given binary streams (the process's own by default) until end of input, its
    lifespan entered around it (a lifespan that fails to start raises here, before anything is read)."""
    engine = engine if engine is not None else registry.engine
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    loop = asyncio.get_running_loop()
    session = Session(peer="stdio")
    write_lock = asyncio.Lock()
    running: set[asyncio.Task[None]] = set()

    async def write(message: dict[str, Any] | list[dict[str, Any]]) -> None:
        text = encode_message(message)
        if text is None:
            return
        data = text.encode("utf-8") + b"\n"
        async with write_lock:
            await loop.run_in_executor(None, _write_all, writer, data)

    # Notifications of the server's own (the tool list changed) go out on the same stream.
    session.open_outlet(write)

    async def serve_one(message: object) -> None:
        response = await engine.handle(message, session, write)
        if response is not None:
            await write(response)

    async def serve_batch(messages: list[Any]) -> None:
        responses = await engine.handle_batch(messages, session, write)
        if responses is not None:
            await write(responses)

    async with registry.running():
        lines = _start_reader(reader, loop)
        try:
            while True:
                line = await lines.get()
                if line is None:
                    break
                if not line.strip():
                    continue
                try:
                    if line == b"\x00too-long":
                        raise ParseFailure(f"Parse error: the line is longer than {_MAX_LINE} bytes")
                    message = decode_message(line)
                except ParseFailure as failure:
                    await write(error_response(None, PARSE_ERROR, str(failure)))
                    continue
                if (
                    isinstance(message, dict)
                    and "method" not in message
                    and ("result" in message or "error" in message)
                ):
                    # A client's answer to one of our requests: deliver it now, a waiting tool depends on it.
                    await engine.handle(message, session, write)
                    continue
                task = asyncio.ensure_future(serve_batch(message) if type(message) is list else serve_one(message))
                running.add(task)
                task.add_done_callback(running.discard)
        except asyncio.CancelledError:
            # Stopped from outside (SIGTERM, Ctrl-C): running calls are cancelled, then the lifespan closes.
            session.close()
            for task in running:
                task.cancel()
            raise
        # No more input means no answers to our questions: those fail, and calls that need none finish normally.
        session.close(cancel_running=False)
        if running:
            await asyncio.gather(*running, return_exceptions=True)


def _start_reader(reader: BinaryIO, loop: asyncio.AbstractEventLoop) -> asyncio.Queue[bytes | None]:
    """Lines of ``reader`` as they arrive (``None`` at its end), read by a daemon thread: a read blocked on a
    silent client must not keep the process alive once the server has been told to stop (SIGTERM).

    The process's own stdin is read from its file descriptor with ``os.read``: a daemon thread blocked inside
    the buffered ``sys.stdin`` holds that object's lock, and the interpreter aborts at exit trying to take it.
    """
    lines: asyncio.Queue[bytes | None] = asyncio.Queue()
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
    return lines


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
                yield b"\x00too-long"
            elif len(line) > _MAX_LINE + 1:
                yield b"\x00too-long"
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


def serve_stdio(registry: Served, stdout: BinaryIO | None = None) -> int:
    """Serve ``registry`` on this process's stdin and stdout; returns the exit status.

    ``stdout`` is the stream from ``claim_stdout`` when the caller claimed it before loading the registry;
    otherwise it is claimed here.
    """
    protocol = stdout if stdout is not None else claim_stdout()
    with contextlib.redirect_stdout(sys.stderr):
        try:
            asyncio.run(_serve_until_stopped(registry, protocol))
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0
        except Exception:
            # The lifespan failed to start or to close: said once, with its traceback, on stderr.
            logger.exception("mcptools: serving %r over stdio failed", registry.name)
            return 1
    return 0


async def _serve_until_stopped(registry: Served, protocol: BinaryIO) -> None:
    """``serve_stdio_async``, ended cleanly by SIGTERM: the serving task is cancelled, so running calls stop and
    the lifespan closes before the process exits (Python's default for SIGTERM is to die on the spot)."""
    serving = asyncio.ensure_future(serve_stdio_async(registry, sys.stdin.buffer, protocol))
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows, or not the main thread
        loop.add_signal_handler(signal.SIGTERM, serving.cancel)
    try:
        await serving
    except asyncio.CancelledError:
        if not serving.cancelled():
            raise
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGTERM)
