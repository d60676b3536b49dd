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
import sys
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from .._jsonrpc import PARSE_ERROR, error_response
from .._protocol.engine import Engine
from .._protocol.session import Session
from .._protocol.wire import ParseFailure, decode_message, encode_message

if TYPE_CHECKING:
    from .._registry import ToolRegistry

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
    registry: ToolRegistry,
    stdin: BinaryIO | None = None,
    stdout: BinaryIO | None = None,
    *,
    engine: Engine | None = None,
) -> None:
    """Serve ``registry`` on the given binary streams (the process's own by default) until end of input."""
    engine = engine if engine is not None else registry.engine
    reader = stdin if stdin is not None else sys.stdin.buffer
    writer = stdout if stdout is not None else sys.stdout.buffer
    loop = asyncio.get_running_loop()
    session = Session()
    write_lock = asyncio.Lock()
    running: set[asyncio.Task[None]] = set()

    async def write(message: dict[str, Any] | list[dict[str, Any]]) -> None:
        text = encode_message(message)
        if text is None:
            return
        data = text.encode("utf-8") + b"\n"
        async with write_lock:
            await loop.run_in_executor(None, _write_all, writer, data)

    async def serve_one(message: object) -> None:
        response = await engine.handle(message, session, write)
        if response is not None:
            await write(response)

    async def serve_batch(messages: list[Any]) -> None:
        responses = await engine.handle_batch(messages, session, write)
        if responses is not None:
            await write(responses)

    while True:
        line = await loop.run_in_executor(None, _read_line, reader)
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
        if isinstance(message, dict) and "method" not in message and ("result" in message or "error" in message):
            # A client's answer to one of our requests: deliver it now, a waiting tool depends on it.
            await engine.handle(message, session, write)
            continue
        task = asyncio.ensure_future(serve_batch(message) if type(message) is list else serve_one(message))
        running.add(task)
        task.add_done_callback(running.discard)
    # No more input means no answers to our questions: those fail, and calls that need none finish normally.
    session.close(cancel_running=False)
    if running:
        await asyncio.gather(*running, return_exceptions=True)


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


def serve_stdio(registry: ToolRegistry, stdout: BinaryIO | None = None) -> int:
    """Serve ``registry`` on this process's stdin and stdout; returns the exit status.

    ``stdout`` is the stream from ``claim_stdout`` when the caller claimed it before loading the registry;
    otherwise it is claimed here.
    """
    protocol = stdout if stdout is not None else claim_stdout()
    with contextlib.redirect_stdout(sys.stderr):
        try:
            asyncio.run(serve_stdio_async(registry, sys.stdin.buffer, protocol))
        except KeyboardInterrupt:
            return 130
        except BrokenPipeError:
            return 0
    return 0
