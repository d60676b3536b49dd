"""What a server and its workers do to tasks, each one ``transitions`` change applied through a ``TaskStore``.

The server side: ``create_task`` (a task-augmented ``tools/call``), ``answer`` (``tasks/update``) and ``cancel``
(``tasks/cancel``); ``store.get`` is ``tasks/get``. The worker side: ``claim_next``, then ``heartbeat`` while the
tool runs (it says whether the worker still holds the task: a cancelled task, or one another worker took over
after this one's lease ran out, is no longer this worker's to finish), ``note`` for progress, and one of ``ask``,
``complete``, ``fail`` or ``release`` to end the run. Anyone may ``reap``: it requeues, or fails, the tasks whose
worker stopped renewing its lease (killed, hung, or cut off from the store).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from . import transitions
from .record import TaskRecord
from .store import TaskStore

__all__ = [
    "DEFAULT_LEASE_MS",
    "DEFAULT_MAX_ATTEMPTS",
    "answer",
    "ask",
    "cancel",
    "claim_next",
    "complete",
    "create_task",
    "fail",
    "heartbeat",
    "new_task_id",
    "note",
    "reap",
    "release",
]

# A worker renews at a third of its lease, so two renewals can fail (a slow store, a pause) before it is lost.
DEFAULT_LEASE_MS: Final = 30_000
# Claims of one task that may end with the worker lost before the task fails instead of being retried.
DEFAULT_MAX_ATTEMPTS: Final = 3


def new_task_id() -> str:
    """An unguessable task id (256 bits): the extension lets a task id serve as the bearer of its task."""
    import secrets  # lazily, as everywhere in mcptools

    return secrets.token_urlsafe(32)


async def create_task(store: TaskStore, spec: transitions.TaskSpec) -> TaskRecord:
    """A new task, durably stored: ``store.get`` finds it from any replica once this returns."""
    task_id = new_task_id()
    return await store.create(lambda now: transitions.new_task(task_id, spec, now))


async def claim_next(store: TaskStore, worker: str, *, lease_ms: int = DEFAULT_LEASE_MS) -> TaskRecord | None:
    return await store.claim(transitions.claimed(worker, lease_ms))


async def heartbeat(store: TaskStore, task_id: str, worker: str, *, lease_ms: int = DEFAULT_LEASE_MS) -> bool:
    """Renew the lease; ``False`` means stop: the task was cancelled, deleted, or taken over."""
    updated = await store.update(task_id, transitions.renewed(worker, lease_ms), announce=False)
    return updated.changed


async def note(store: TaskStore, task_id: str, worker: str, message: str) -> bool:
    return (await store.update(task_id, transitions.noted(worker, message))).changed


async def ask(
    store: TaskStore, task_id: str, worker: str, requests: Mapping[str, Mapping[str, Any]], message: str | None = None
) -> bool:
    return (await store.update(task_id, transitions.asked(worker, requests, message))).changed


async def complete(store: TaskStore, task_id: str, worker: str, result: Mapping[str, Any]) -> bool:
    return (await store.update(task_id, transitions.completed(worker, result))).changed


async def fail(
    store: TaskStore, task_id: str, worker: str, error: Mapping[str, Any], message: str | None = None
) -> bool:
    return (await store.update(task_id, transitions.failed(worker, error, message))).changed


async def release(store: TaskStore, task_id: str, worker: str) -> bool:
    return (await store.update(task_id, transitions.released(worker), announce=False)).changed


async def answer(store: TaskStore, task_id: str, responses: Mapping[str, Mapping[str, Any]]) -> TaskRecord | None:
    """``tasks/update``: the task as it is after the answers (``None``: no such task). Answers to nothing
    outstanding change nothing, and are still acknowledged."""
    return (await store.update(task_id, transitions.answered(responses))).record


async def cancel(store: TaskStore, task_id: str) -> TaskRecord | None:
    """``tasks/cancel``: the task as it is after the request (``None``: no such task); idempotent."""
    return (await store.update(task_id, transitions.cancelled)).record


async def reap(store: TaskStore, *, max_attempts: int = DEFAULT_MAX_ATTEMPTS) -> list[TaskRecord]:
    """Requeue or fail every task whose lease ran out; the tasks changed. Safe to run from every replica at
    once: each change applies to the task as it is, so a task renewed or reaped meanwhile is left alone."""
    reaped = []
    for task_id in await store.expired_leases():
        updated = await store.update(task_id, transitions.lease_lost(max_attempts))
        if updated.changed and updated.record is not None:
            reaped.append(updated.record)
    return reaped
