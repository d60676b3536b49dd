"""The ``tasks/*`` methods, both generations, answered from the store (so any replica answers for any task), and
the task feed of a ``subscriptions/listen`` stream.

2026-07-28 (the Tasks extension): ``tasks/get`` (the task, with its questions, result or error), ``tasks/update``
(answers: an acknowledgement only) and ``tasks/cancel`` (an acknowledgement, also for a finished task). A request
that did not declare the extension is refused with -32021 before anything else is looked at.
2025-11-25: ``tasks/get`` and ``tasks/cancel`` (the ``Task``; cancelling a finished task is -32602),
``tasks/result`` (waits for the end, then the tool's result or the JSON-RPC error; while the task waits for
answers, its questions are asked on this request's stream and the answers written to the task) and ``tasks/list``
(only for a verified caller, listing that caller's tasks).

Every method looks the task up the same way: unknown, expired and someone else's tasks are all the same -32602, so
a task id cannot be probed. A task made by a verified caller is that caller's alone; one made without a verified
caller belongs to whoever holds its id (ids are 256 random bits).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, final

from .._errors import ClientRequestError, ProtocolError
from .._jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND
from . import operations
from .store import TASKS_CHANNEL
from .wire import LEGACY_TASKS_VERSION, RELATED_TASK, detailed, extension_declared, extension_required, legacy_task

if TYPE_CHECKING:
    from .._call import Call
    from .record import TaskRecord
    from .store import TaskStore

__all__ = ["TaskFeed", "serve_task_method", "task_feed"]

_ACK: Final = {"resultType": "complete"}
# How long tasks/result waits for an announcement before it reads the task again anyway.
_RECHECK_SECONDS: Final = 2.0
_LIST_PAGE: Final = 100


async def serve_task_method(call: Call) -> dict[str, Any]:
    """Answer one ``tasks/*`` request (the engine's method tables say which generation serves which)."""
    if not call.legacy:
        if not extension_declared(call):
            raise extension_required(call.method)
    elif call.session.protocol_version != LEGACY_TASKS_VERSION:
        raise ProtocolError(METHOD_NOT_FOUND, f"Method not found: {call.method} (tasks came with 2025-11-25)")
    store = call.source.task_service.store
    if call.method == "tasks/list":
        return await _list(call, store)
    task_id = call.params.get("taskId")
    if type(task_id) is not str:
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'taskId' must be a string")
    method = call.method
    if method == "tasks/get":
        record = await _visible(call, store, task_id)
        return {"resultType": "complete", **detailed(record)} if not call.legacy else legacy_task(record)
    if method == "tasks/update":
        return await _update(call, store, task_id)
    if method == "tasks/cancel":
        return await _cancel(call, store, task_id)
    return await _result(call, store, task_id)  # tasks/result (2025-11-25)


def _unknown(task_id: str) -> ProtocolError:
    return ProtocolError(INVALID_PARAMS, f"Invalid params: no task {task_id!r} (unknown, expired, or not yours)")


def _may_see(call: Call, record: TaskRecord) -> bool:
    if record.scope is None:
        return True
    principal = call.principal
    return principal is not None and principal.subject == record.scope


async def _visible(call: Call, store: TaskStore | None, task_id: str) -> TaskRecord:
    record = await store.get(task_id) if store is not None else None
    if record is None or not _may_see(call, record):
        raise _unknown(task_id)
    return record


async def _update(call: Call, store: TaskStore | None, task_id: str) -> dict[str, Any]:
    responses = call.params.get("inputResponses")
    if type(responses) is not dict or any(type(value) is not dict for value in responses.values()):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'inputResponses' must be an object of objects")
    await _visible(call, store, task_id)
    assert store is not None
    # Answers to nothing outstanding (never asked, answered already) change nothing and are still acknowledged.
    if await operations.answer(store, task_id, responses) is None:
        raise _unknown(task_id)
    return dict(_ACK)


async def _cancel(call: Call, store: TaskStore | None, task_id: str) -> dict[str, Any]:
    record = await _visible(call, store, task_id)
    assert store is not None
    if call.legacy and record.terminal:
        raise ProtocolError(INVALID_PARAMS, f"Invalid params: task {task_id!r} is already {record.status}")
    after = await operations.cancel(store, task_id)
    if after is None:
        raise _unknown(task_id)
    return legacy_task(after) if call.legacy else dict(_ACK)


async def _result(call: Call, store: TaskStore | None, task_id: str) -> dict[str, Any]:
    """2025-11-25 ``tasks/result``: wait for the end; meanwhile ask the task's questions on this stream."""
    record = await _visible(call, store, task_id)
    assert store is not None
    asked: set[str] = set()
    async with store.subscribe(TASKS_CHANNEL) as events:
        while not record.terminal:
            if record.status == "input_required" and call.stream.streaming:
                await _relay(call, store, record, asked)
            message = await events.get(timeout=_RECHECK_SECONDS)
            if message is not None and message.payload.get("taskId") != task_id:
                continue
            record = await _visible(call, store, task_id)
    related = {RELATED_TASK: {"taskId": task_id}}
    if record.status == "completed" and record.result is not None:
        result = {key: value for key, value in record.result.items() if key != "resultType"}
        result["_meta"] = {**result.get("_meta", {}), **related}
        return result
    if record.status == "failed" and record.error is not None:
        error = record.error
        raise ProtocolError(int(error.get("code", -32603)), str(error.get("message", "")), error.get("data"))
    raise ProtocolError(INVALID_PARAMS, f"Invalid params: task {task_id!r} was cancelled; it has no result")


async def _relay(call: Call, store: TaskStore, record: TaskRecord, asked: set[str]) -> None:
    """Ask the client the task's outstanding questions on this request's stream (each once), and write each
    answer to the task as ``tasks/update`` would, so a worker anywhere runs the tool again with it."""
    pending = {key: value for key, value in record.input_requests.items() if key not in asked}
    asked.update(pending)

    async def one(key: str, request: Any) -> None:
        params = {**dict(request.get("params") or {}), "_meta": {RELATED_TASK: {"taskId": record.task_id}}}
        try:
            answer = await call.session.request(str(request.get("method")), params, call.stream.send)
        except ClientRequestError:
            answer = {"action": "cancel"}  # the client could not answer: as if the user dismissed the question
        await operations.answer(store, record.task_id, {key: answer})

    await asyncio.gather(*(one(key, request) for key, request in pending.items()))


async def _list(call: Call, store: TaskStore | None) -> dict[str, Any]:
    """2025-11-25 ``tasks/list``: offered only to a verified caller, and lists only that caller's tasks."""
    principal = call.principal
    if principal is None:
        raise ProtocolError(METHOD_NOT_FOUND, "Method not found: tasks/list needs a verified caller (authorization)")
    records = await store.list_scope(principal.subject) if store is not None else []
    start = 0
    cursor = call.params.get("cursor")
    if cursor is not None:
        opened = call.sealer.open(cursor, purpose="tasks/list")
        position = opened.get("o") if opened is not None else None
        if type(position) is not int or position < 0:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: 'cursor' is not one this server issued")
        start = position
    page = records[start : start + _LIST_PAGE]
    result: dict[str, Any] = {"tasks": [legacy_task(record) for record in page]}
    if start + _LIST_PAGE < len(records):
        result["nextCursor"] = call.sealer.seal({"o": start + _LIST_PAGE}, purpose="tasks/list")
    return result


# -- subscriptions/listen ------------------------------------------------------------------------------------


@final
@dataclass(slots=True, eq=False)
class TaskFeed:
    """The tasks a listen stream follows: ``ids`` (those the caller may see), each change sent as
    ``notifications/tasks`` carrying the whole task (``DetailedTask``)."""

    store: TaskStore | None
    ids: list[str]
    # Set once the feed hears every change: the listen stream acknowledges only then, so none is missed.
    subscribed: asyncio.Event = field(default_factory=asyncio.Event, init=False)

    async def follow(self, send: Callable[[dict[str, Any]], Coroutine[Any, Any, None]]) -> None:
        """Send every change of the followed tasks until cancelled."""
        store = self.store
        wanted = set(self.ids)
        if store is None or not wanted:
            self.subscribed.set()
            await asyncio.get_running_loop().create_future()  # nothing to follow: wait to be cancelled
            return
        async with store.subscribe(TASKS_CHANNEL) as events:
            self.subscribed.set()
            async for message in events:
                task_id = message.payload.get("taskId")
                if task_id not in wanted:
                    continue
                record = await store.get(str(task_id))
                if record is not None:
                    await send({"jsonrpc": "2.0", "method": "notifications/tasks", "params": detailed(record)})


async def task_feed(call: Call, wanted: object) -> TaskFeed:
    """The feed of a listen request asking for ``taskIds``: -32021 without the extension, -32602 when the ids are
    no list of strings; ids of tasks the caller may not see are left out of the acknowledgement."""
    if not extension_declared(call):
        raise extension_required("subscriptions/listen with taskIds")
    if type(wanted) is not list or any(type(item) is not str for item in wanted):
        raise ProtocolError(INVALID_PARAMS, "Invalid params: 'notifications.taskIds' must be a list of strings")
    store = call.source.task_service.store
    ids: list[str] = []
    if store is not None:
        for task_id in dict.fromkeys(wanted):
            record = await store.get(task_id)
            if record is not None and _may_see(call, record):
                ids.append(task_id)
    return TaskFeed(store, ids)
