"""The default task store: dictionaries in this process, guarded by one lock; nothing to install.

Tasks live as long as the process (a restart loses them: use SQLite or Redis for that), and every thread and
event loop of the process sees the same ones.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, final

from .fanout import Fanout
from .record import TaskRecord
from .store import TASKS_CHANNEL, Subscription, TaskStoreError, Updated, task_event
from .transitions import Change, apply

__all__ = ["MemoryTaskStore"]


@final
class MemoryTaskStore:
    """A ``TaskStore`` in this process's memory."""

    __slots__ = ("_fanout", "_lock", "_ready", "_shared", "_tasks")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tasks: dict[str, TaskRecord] = {}
        # The runnable tasks in the order they became runnable (a dict keeps insertion order).
        self._ready: dict[str, None] = {}
        self._shared: dict[str, tuple[Any, int]] = {}
        self._fanout = Fanout()

    def _put(self, record: TaskRecord) -> None:
        self._tasks[record.task_id] = record
        if record.runnable:
            self._ready.setdefault(record.task_id, None)
        else:
            self._ready.pop(record.task_id, None)

    def _current(self, task_id: str, now: float) -> TaskRecord | None:
        record = self._tasks.get(task_id)
        if record is not None and record.expired(now):
            return None
        return record

    async def create(self, make: Callable[[float], TaskRecord]) -> TaskRecord:
        record = make(time.time())
        with self._lock:
            if record.task_id in self._tasks:
                raise TaskStoreError(f"a task with id {record.task_id!r} exists already")
            self._put(record)
        self._fanout.deliver(TASKS_CHANNEL, task_event(record))
        return record

    async def get(self, task_id: str) -> TaskRecord | None:
        with self._lock:
            return self._current(task_id, time.time())

    async def update(self, task_id: str, change: Change, *, announce: bool = True) -> Updated:
        with self._lock:
            now = time.time()
            record = self._current(task_id, now)
            if record is None:
                return Updated(None, False)
            changed = apply(change, record, now)
            if changed is None:
                return Updated(record, False)
            self._put(changed)
        if announce:
            self._fanout.deliver(TASKS_CHANNEL, task_event(changed))
        return Updated(changed, True)

    async def claim(self, change: Change) -> TaskRecord | None:
        with self._lock:
            now = time.time()
            for task_id in list(self._ready):
                record = self._current(task_id, now)
                changed = apply(change, record, now) if record is not None else None
                if changed is not None:
                    self._put(changed)
                    return changed
        return None

    async def list_scope(self, scope: str) -> list[TaskRecord]:
        now = time.time()
        with self._lock:
            found = [record for record in self._tasks.values() if record.scope == scope and not record.expired(now)]
        return sorted(found, key=lambda record: record.created_at)

    async def expired_leases(self) -> list[str]:
        now = time.time()
        with self._lock:
            return [
                record.task_id
                for record in self._tasks.values()
                if record.lease_until is not None and record.lease_until <= now
            ]

    async def purge(self) -> int:
        now = time.time()
        with self._lock:
            gone = [task_id for task_id, record in self._tasks.items() if record.expired(now)]
            for task_id in gone:
                del self._tasks[task_id]
                self._ready.pop(task_id, None)
        return len(gone)

    async def delete(self, task_id: str) -> bool:
        with self._lock:
            self._ready.pop(task_id, None)
            return self._tasks.pop(task_id, None) is not None

    async def publish(self, channel: str, payload: dict[str, Any]) -> None:
        # A copy, as the other stores hand subscribers a decoded copy: no subscriber shares the publisher's dict.
        self._fanout.deliver(channel, copy.deepcopy(payload))

    def subscribe(self, *channels: str) -> AbstractAsyncContextManager[Subscription]:
        return self._subscription(channels)

    @asynccontextmanager
    async def _subscription(self, channels: tuple[str, ...]) -> AsyncIterator[Subscription]:
        async with self._fanout.subscribe(channels) as queue:
            yield queue

    async def put_shared(self, name: str, value: Any, *, expected: int | None = None) -> int | None:
        with self._lock:
            previous = self._shared.get(name)
            current = previous[1] if previous is not None else 0
            if expected is not None and current != expected:
                return None
            self._shared[name] = (copy.deepcopy(value), current + 1)
        return current + 1

    async def get_shared(self, name: str) -> tuple[Any, int] | None:
        with self._lock:
            found = self._shared.get(name)
        return None if found is None else (copy.deepcopy(found[0]), found[1])

    async def close(self) -> None:
        return None
