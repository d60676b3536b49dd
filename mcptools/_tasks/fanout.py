"""In-process delivery of published messages to every local subscriber, on whichever event loop it waits.

Each store feeds it what this process publishes (at once) and what other processes publish (the SQLite store's
poller, the Redis store's reader); subscribers may live on different event loops and threads (a server's loop, a
worker's), so a message is handed to each subscriber's own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, final

from .store import Message

__all__ = ["Fanout"]


@final
class _Queue:
    """One subscription: its channels and the queue its loop reads."""

    __slots__ = ("channels", "loop", "queue")

    def __init__(self, channels: frozenset[str]) -> None:
        self.channels = channels
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Message] = asyncio.Queue()

    def put(self, message: Message) -> None:
        if self.loop.is_closed():
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody reads any more
            self.loop.call_soon_threadsafe(self.queue.put_nowait, message)

    async def get(self, timeout: float | None = None) -> Message | None:
        if timeout is None:
            return await self.queue.get()
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except asyncio.TimeoutError:
            return None

    async def __aiter__(self) -> AsyncIterator[Message]:
        while True:
            yield await self.queue.get()


@final
class Fanout:
    """The subscribers of one store in this process."""

    __slots__ = ("_lock", "_queues")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._queues: set[_Queue] = set()

    @property
    def active(self) -> bool:
        return bool(self._queues)

    def deliver(self, channel: str, payload: dict[str, Any]) -> None:
        """Hand a message to every subscriber of ``channel``; safe from any thread."""
        with self._lock:
            targets = [queue for queue in self._queues if channel in queue.channels]
        message = Message(channel, payload)
        for queue in targets:
            queue.put(message)

    @contextlib.asynccontextmanager
    async def subscribe(
        self, channels: tuple[str, ...], on_empty: Callable[[], None] | None = None
    ) -> AsyncIterator[_Queue]:
        """A subscription, registered before the block starts; ``on_empty`` runs when the last one ends."""
        queue = _Queue(frozenset(channels))
        with self._lock:
            self._queues.add(queue)
        try:
            yield queue
        finally:
            with self._lock:
                self._queues.discard(queue)
                empty = not self._queues
            if empty and on_empty is not None:
                on_empty()
