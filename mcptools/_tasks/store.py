"""The ``TaskStore`` protocol: what a server and its workers need from wherever tasks are kept.

Three implementations: ``MemoryTaskStore`` (the default), ``SqliteTaskStore`` and ``RedisTaskStore``;
``connect.open_store(url)`` picks one by URL.

A store reads and writes ``TaskRecord``s atomically and decides nothing: ``update`` and ``claim`` take a
``transitions.Change`` and apply it to the current record with the store's clock, refusing (and retrying) a
write made from a stale read, so two replicas never both win. ``claim`` walks the queue of runnable tasks oldest
first. Every change made with ``announce=True`` is published on ``TASKS_CHANNEL`` as ``{"taskId", "status",
"rev", "runnable"}``, and ``publish``/``subscribe`` carry other messages between replicas (the tool list's changes
on ``TOOLS_CHANNEL``). Delivery is best effort: a subscriber that may have missed messages reads
the state again (``get``, ``get_shared``). ``put_shared``/``get_shared`` keep small JSON documents every replica
can read, each write numbered, for state a replica starting later must catch up with.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, Final, NamedTuple, Protocol

from .._errors import TaskStoreError
from .record import TaskRecord
from .transitions import Change

__all__ = [
    "TASKS_CHANNEL",
    "TOOLS_CHANNEL",
    "Message",
    "Subscription",
    "TaskStore",
    "TaskStoreError",
    "Updated",
    "task_event",
]

TASKS_CHANNEL: Final = "tasks"
TOOLS_CHANNEL: Final = "tools"


class Message(NamedTuple):
    channel: str
    payload: dict[str, Any]


class Updated(NamedTuple):
    """What ``update`` did: the record as it is now (``None``: no such task) and whether the change applied."""

    record: TaskRecord | None
    changed: bool


class Subscription(Protocol):
    """Messages published on the channels subscribed to, from this process and every other one sharing the
    store, in the order each publisher sent them."""

    async def get(self, timeout: float | None = None) -> Message | None:
        """The next message; ``None`` when ``timeout`` seconds pass first."""
        ...

    def __aiter__(self) -> AsyncIterator[Message]: ...


class TaskStore(Protocol):
    """Where tasks are kept; see the module's docstring."""

    async def create(self, make: Callable[[float], TaskRecord]) -> TaskRecord:
        """Store the record ``make(now)`` builds, durably: once this returns, ``get`` finds it from any replica.
        Raises ``TaskStoreError`` if its id is taken."""
        ...

    async def get(self, task_id: str) -> TaskRecord | None:
        """The task, or ``None`` when there is none (never created, deleted, or past its TTL)."""
        ...

    async def update(self, task_id: str, change: Change, *, announce: bool = True) -> Updated:
        """Apply ``change`` atomically to the task as it is now."""
        ...

    async def claim(self, change: Change) -> TaskRecord | None:
        """Apply ``change`` (``transitions.claimed``) to the oldest runnable task it applies to; ``None`` when
        the queue is empty."""
        ...

    async def list_scope(self, scope: str) -> list[TaskRecord]:
        """The live tasks made by the caller ``scope`` names, oldest first (2025-11-25's ``tasks/list``)."""
        ...

    async def expired_leases(self) -> list[str]:
        """The tasks whose worker's lease has run out (candidates for ``transitions.lease_lost``)."""
        ...

    async def purge(self) -> int:
        """Delete the tasks past their TTL (and whatever else the store keeps only for a while); how many."""
        ...

    async def delete(self, task_id: str) -> bool: ...

    async def publish(self, channel: str, payload: dict[str, Any]) -> None: ...

    def subscribe(self, *channels: str) -> AbstractAsyncContextManager[Subscription]:
        """Messages on ``channels`` published after the ``async with`` has been entered."""
        ...

    async def put_shared(self, name: str, value: Any, *, expected: int | None = None) -> int | None:
        """Replace the shared document ``name`` (JSON); returns its new revision (1, 2, ...). With ``expected``:
        only while its revision is still that one (0: never written), else nothing changes and the answer is
        ``None``, so a read-change-write that another writer overtook starts again instead of undoing it."""
        ...

    async def get_shared(self, name: str) -> tuple[Any, int] | None:
        """The shared document ``name`` and its revision; ``None`` when never written."""
        ...

    async def close(self) -> None: ...


def task_event(record: TaskRecord) -> dict[str, Any]:
    """What ``TASKS_CHANNEL`` says about a change: enough to decide whether to read the task again, and whether a
    worker could claim it now (``runnable``: idle workers wake only for those)."""
    return {"taskId": record.task_id, "status": record.status, "rev": record.rev, "runnable": record.runnable}
