"""A task store on Redis, through redis-py's asyncio client (the ``redis`` extra): every replica and worker on
every machine that reaches the server shares the tasks.

Plain Redis primitives, no scripts and no queue library (the design note says why not pydocket): each task is
one JSON string (``{prefix}task:{id}``, expiring with the task's TTL), and three sorted sets index them: the
runnable ones by when they became runnable (``ready``, the queue), the claimed ones by lease expiry (``leased``)
and all by TTL expiry (``expiry``). A change is optimistic: ``WATCH`` the task, read it and the server's clock
(``TIME``: one clock for every machine, so leases and TTLs never depend on a replica's own), apply the
``Change``, and write the record, its index entries and its announcement in one ``MULTI``/``EXEC``; a write
from a stale read is refused by Redis and the change is applied again to the new record. ``claim`` tries the
oldest runnable tasks in turn, so two workers racing for one task cannot both win.

Messages go through Redis pub/sub (``{prefix}channel:{name}``): one pattern subscription per store, started with
its first subscriber, hands every message to this process's subscribers, its own published ones included. A
store may be used from several event loops (a client is made per loop, as redis-py's connections belong to the
loop that opened them).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import weakref
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, final

from .fanout import Fanout
from .record import TaskRecord
from .store import TASKS_CHANNEL, Subscription, TaskStoreError, Updated, task_event
from .transitions import Change, apply

if TYPE_CHECKING:
    from redis.asyncio import Redis
    from redis.asyncio.client import Pipeline

__all__ = ["RedisTaskStore"]

_CANDIDATES = 64  # runnable tasks a claim reads at a time


def _import_redis() -> Any:
    try:
        import redis.asyncio
    except ImportError:
        raise TaskStoreError("the Redis task store needs the redis client: pip install 'mcptools[redis]'") from None
    return redis.asyncio


@final
class RedisTaskStore:
    """A ``TaskStore`` on the Redis server at ``url``, its keys under ``prefix``."""

    __slots__ = ("_clients", "_fanout", "_options", "_prefix", "_reader", "_reader_ready", "_url")

    def __init__(self, url: str, *, prefix: str = "mcptools:", **options: Any) -> None:
        _import_redis()  # fail here, with the fix, rather than at the first call
        self._url = url
        self._prefix = prefix
        self._options = options
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Redis] = weakref.WeakKeyDictionary()
        self._fanout = Fanout()
        self._reader: asyncio.Task[None] | None = None
        self._reader_ready: concurrent.futures.Future[None] | None = None

    @classmethod
    def from_url(cls, url: str, *, prefix: str = "mcptools:") -> RedisTaskStore:
        return cls(url, prefix=prefix)

    def _client(self) -> Redis:
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            client = _import_redis().Redis.from_url(self._url, **self._options)
            self._clients[loop] = client
        return client

    def _key(self, kind: str, name: str = "") -> str:
        return f"{self._prefix}{kind}:{name}" if name else f"{self._prefix}{kind}"

    # -- tasks ------------------------------------------------------------------------------------------

    async def create(self, make: Callable[[float], TaskRecord]) -> TaskRecord:
        client = self._client()
        async with client.pipeline(transaction=True) as pipe:
            while True:
                try:
                    now = await _clock(client)
                    record = make(now)
                    key = self._key("task", record.task_id)
                    await pipe.watch(key)
                    if await pipe.exists(key):
                        raise TaskStoreError(f"a task with id {record.task_id!r} exists already")
                    pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                    self._write(pipe, record, None, now, announce=True)
                    await pipe.execute()
                    return record
                except _watch_error():
                    continue

    async def get(self, task_id: str) -> TaskRecord | None:
        # A task past its TTL is gone: Redis expires its key at that moment (PXAT).
        raw = await self._client().get(self._key("task", task_id))
        return None if raw is None else TaskRecord.from_json(raw)

    async def update(self, task_id: str, change: Change, *, announce: bool = True) -> Updated:
        key = self._key("task", task_id)
        async with self._client().pipeline(transaction=True) as pipe:
            while True:
                try:
                    await pipe.watch(key)
                    raw = await pipe.get(key)
                    if raw is None:
                        return Updated(None, False)
                    record = TaskRecord.from_json(raw)
                    now = await _clock(pipe)
                    changed = apply(change, record, now)
                    if changed is None:
                        return Updated(record, False)
                    pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
                    self._write(pipe, changed, record, now, announce=announce)
                    await pipe.execute()
                    return Updated(changed, True)
                except _watch_error():
                    continue

    def _write(
        self, pipe: Pipeline, record: TaskRecord, before: TaskRecord | None, now: float, *, announce: bool
    ) -> None:
        """Queue the record, its index entries and its announcement on a pipeline in MULTI mode."""
        task_id = record.task_id
        expires_at = record.expires_at
        if expires_at is not None:
            pipe.set(self._key("task", task_id), record.to_json(), pxat=max(int(expires_at * 1000), 1))
            pipe.zadd(self._key("expiry"), {task_id: expires_at})
        else:
            pipe.set(self._key("task", task_id), record.to_json())
        if record.runnable:
            # NX: a task that stays runnable keeps its place in the queue.
            pipe.zadd(self._key("ready"), {task_id: now}, nx=before is not None and before.runnable)
        else:
            pipe.zrem(self._key("ready"), task_id)
        if record.lease_until is not None:
            pipe.zadd(self._key("leased"), {task_id: record.lease_until})
        else:
            pipe.zrem(self._key("leased"), task_id)
        if before is None and record.scope is not None:
            pipe.zadd(self._key("scope", record.scope), {task_id: record.created_at})
        if announce:
            pipe.publish(self._key("channel", TASKS_CHANNEL), json.dumps(task_event(record)))

    async def claim(self, change: Change) -> TaskRecord | None:
        client = self._client()
        for raw in await client.zrange(self._key("ready"), 0, _CANDIDATES - 1):
            task_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            updated = await self.update(task_id, change, announce=False)
            if updated.record is None:
                await client.zrem(self._key("ready"), task_id)  # expired (Redis dropped the key) or deleted
            elif updated.changed:
                return updated.record
        return None

    async def list_scope(self, scope: str) -> list[TaskRecord]:
        client = self._client()
        index = self._key("scope", scope)
        ids = [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in await client.zrange(index, 0, -1)]
        if not ids:
            return []
        found = await client.mget([self._key("task", task_id) for task_id in ids])
        gone = [task_id for task_id, raw in zip(ids, found, strict=True) if raw is None]
        if gone:
            await client.zrem(index, *gone)  # expired (Redis dropped the key) or deleted
        return [TaskRecord.from_json(raw) for raw in found if raw is not None]

    async def expired_leases(self) -> list[str]:
        client = self._client()
        now = await _clock(client)
        found = await client.zrangebyscore(self._key("leased"), "-inf", now)
        return [raw.decode() if isinstance(raw, bytes) else str(raw) for raw in found]

    async def purge(self) -> int:
        client = self._client()
        now = await _clock(client)
        expired = await client.zrangebyscore(self._key("expiry"), "-inf", now)
        for raw in expired:
            await self._drop(raw.decode() if isinstance(raw, bytes) else str(raw))
        return len(expired)

    async def delete(self, task_id: str) -> bool:
        return await self._drop(task_id)

    async def _drop(self, task_id: str) -> bool:
        async with self._client().pipeline(transaction=True) as pipe:
            pipe.delete(self._key("task", task_id))
            for index in ("ready", "leased", "expiry"):
                pipe.zrem(self._key(index), task_id)
            deleted, *_ = await pipe.execute()
        return bool(deleted)

    # -- messages ---------------------------------------------------------------------------------------

    async def publish(self, channel: str, payload: dict[str, Any]) -> None:
        await self._client().publish(self._key("channel", channel), json.dumps(payload))

    def subscribe(self, *channels: str) -> AbstractAsyncContextManager[Subscription]:
        return self._subscription(channels)

    @asynccontextmanager
    async def _subscription(self, channels: tuple[str, ...]) -> AsyncIterator[Subscription]:
        async with self._fanout.subscribe(channels, on_empty=self._stop_reading) as queue:
            if self._reader is None or self._reader.done():
                self._reader_ready = concurrent.futures.Future()
                self._reader = asyncio.ensure_future(self._read(self._reader_ready))
            assert self._reader_ready is not None
            # Subscribed at Redis before the block starts, so no message published after it can be missed.
            await asyncio.wrap_future(self._reader_ready)
            yield queue

    def _stop_reading(self) -> None:
        reader, self._reader = self._reader, None
        if reader is not None and not reader.done():
            loop = reader.get_loop()
            with contextlib.suppress(RuntimeError):  # that loop is closed: the reader is gone with it
                loop.call_soon_threadsafe(reader.cancel)

    async def _read(self, ready: concurrent.futures.Future[None]) -> None:
        pattern = self._key("channel", "*")
        skip = len(self._key("channel", "x")) - 1
        pubsub = self._client().pubsub()
        try:
            await pubsub.psubscribe(pattern)
            while True:
                message = await pubsub.get_message(timeout=1.0)
                if message is None:
                    continue
                if message["type"] == "psubscribe":
                    if not ready.done():
                        ready.set_result(None)
                elif message["type"] == "pmessage":
                    channel = message["channel"]
                    name = (channel.decode() if isinstance(channel, bytes) else str(channel))[skip:]
                    self._fanout.deliver(name, json.loads(message["data"]))
        except BaseException as problem:
            if not ready.done():
                ready.set_exception(problem if isinstance(problem, Exception) else asyncio.CancelledError())
            raise
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    # -- shared documents -------------------------------------------------------------------------------

    async def put_shared(self, name: str, value: Any, *, expected: int | None = None) -> int | None:
        key = self._key("shared", name)
        async with self._client().pipeline(transaction=True) as pipe:
            if expected is not None:
                # Optimistic, as a task's change: a write after another writer's is refused by Redis (WATCH).
                await pipe.watch(key)
                current = await pipe.hget(key, "rev")
                if int(current or 0) != expected:
                    return None
                pipe.multi()  # type: ignore[no-untyped-call]  # redis-py leaves it unannotated
            pipe.hset(key, "value", json.dumps(value))
            pipe.hincrby(key, "rev", 1)
            try:
                _, revision = await pipe.execute()
            except _watch_error():
                return None
        return int(revision)

    async def get_shared(self, name: str) -> tuple[Any, int] | None:
        value, revision = await self._client().hmget(self._key("shared", name), ["value", "rev"])
        if value is None or revision is None:
            return None
        return json.loads(value), int(revision)

    async def close(self) -> None:
        self._stop_reading()
        loop = asyncio.get_running_loop()
        client = self._clients.pop(loop, None)
        if client is not None:
            await client.aclose()


async def _clock(client: Any) -> float:
    """The Redis server's time, in seconds since the epoch."""
    seconds, microseconds = await client.time()
    return float(seconds) + float(microseconds) / 1_000_000


def _watch_error() -> type[Exception]:
    from redis.exceptions import WatchError

    return WatchError
