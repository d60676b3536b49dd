"""Event streams that outlive the HTTP response carrying them.

Each request answered over Server-Sent Events writes into an ``EventStream``: an ordered log of messages with
ids. A reader (the POST's response, or a later GET with ``Last-Event-ID``) follows it; the server may cut the
current reader off (``Context.close_stream``) and a new reader resumes where the client's last id left off,
so a long call survives proxies that drop idle connections.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any, final

from .._protocol.wire import encode_message

__all__ = ["EventStream", "parse_event_id", "sse_event"]


def sse_event(event_id: str | None, data: bytes, *, retry_ms: int | None = None) -> bytes:
    """One SSE event; ``data`` (UTF-8 JSON from ``encode_message``) must hold no newline, and never does."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}\n")
    if retry_ms is not None:
        lines.append(f"retry: {retry_ms}\n")
    if data:
        lines.append("event: message\n")
    return "".join(lines).encode("ascii") + b"data: " + data + b"\n\n"


def parse_event_id(value: str) -> tuple[str, int] | None:
    """Split a ``Last-Event-ID`` we issued into (stream id, count of events already seen)."""
    stream_id, sep, count = value.strip().rpartition(":")
    if not sep or not stream_id or not count.isdigit():
        return None
    return stream_id, int(count)


@final
class EventStream:
    """The messages of one request's stream, in order, with the ids the client can resume from."""

    __slots__ = ("_changed", "done", "epoch", "id", "messages", "readers", "unheard_since")

    def __init__(self) -> None:
        self.id = secrets.token_hex(8)
        self.messages: list[dict[str, Any]] = []
        self.done = False
        # Bumped to cut the current reader off; a reader follows only while the epoch it started with lasts.
        self.epoch = 0
        self._changed = asyncio.Event()
        # Who is reading now, and since when nobody has been (``time.monotonic()``; ``None`` while read): what
        # tells a question on this stream that its client is gone.
        self.readers = 0
        self.unheard_since: float | None = time.monotonic()

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Count a reader (an HTTP response following this stream) for the block."""
        self.readers += 1
        self.unheard_since = None
        try:
            yield
        finally:
            self.readers -= 1
            if not self.readers:
                self.unheard_since = time.monotonic()

    def event_id(self, seen: int) -> str:
        return f"{self.id}:{seen}"

    def push(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self._changed.set()

    def finish(self) -> None:
        self.done = True
        self._changed.set()

    def cut(self) -> None:
        self.epoch += 1
        self._changed.set()

    async def follow(self, start: int = 0, epoch: int | None = None) -> AsyncIterator[tuple[str, bytes]]:
        """Yield ``(event id, UTF-8 JSON)`` from message ``start`` on, until the stream ends or is cut (after
        ``epoch``: the reader's, when it began reading before this generator first runs)."""
        epoch = self.epoch if epoch is None else epoch
        index = start
        while True:
            while index < len(self.messages):
                data = encode_message(self.messages[index])
                index += 1
                if data is not None:
                    yield self.event_id(index), data
            if self.done or self.epoch != epoch:
                return
            self._changed.clear()
            if index < len(self.messages) or self.done or self.epoch != epoch:
                continue
            await self._changed.wait()

    async def first(self) -> None:
        """Wait until the stream has a message or has ended."""
        while not self.messages and not self.done:
            self._changed.clear()
            if self.messages or self.done:
                return
            await self._changed.wait()
