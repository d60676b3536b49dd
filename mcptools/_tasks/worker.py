"""Running tasks: each run rebuilds the ``Call`` from the task's record and drives it through the call pipeline's
own driver (``_pipeline.drive``), so a task's tool is looked up, validated, converted, invoked and its result built
exactly as on a direct call, and its errors end as the task's result in the same words.

    slot      claim the oldest runnable task (a lease of ``lease_ms``), run it, repeat; idle slots wake when the
              store announces a runnable task (new, answered, or requeued), or every few seconds regardless
    run       the pipeline's outcome becomes the task's: a result (``isError`` ones too) completes it, an
              ``input_required`` round parks it for ``tasks/update``, a JSON-RPC error fails it
    heartbeat every third of the lease; a refused renewal (the task was cancelled, or another worker took it
              over) or the store's announcement of a cancellation stops the run, as a client's cancellation
              stops a direct call (the tool's ``ctx.cancelled``; an async tool is cancelled)
    reaper    every half lease: tasks whose worker stopped renewing (killed, hung, cut off) are retried, or fail
              with the reason after ``max_attempts`` such losses; tasks past their TTL are deleted
    status    ``Context`` progress and logs become the task's ``statusMessage`` (at most five writes a second),
              never notifications: the extension forbids progress and log notifications for tasks

A worker stopping gracefully (SIGTERM, the end of ``registry.running()``) gives its tasks back at once, so another
worker takes them without waiting for the lease to run out.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import random
import secrets
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from .._call import Call, ProviderCall
from .._errors import ProtocolError
from .._jsonrpc import INTERNAL_ERROR
from .._pipeline import drive, route
from .._protocol.revisions import META_CLIENT_CAPABILITIES, META_LOG_LEVEL
from .._protocol.session import Session
from ..auth import Principal
from . import operations
from .store import TASKS_CHANNEL

if TYPE_CHECKING:
    from .._call import TaskAccess
    from .host import TaskHost
    from .record import TaskRecord
    from .store import Subscription, TaskStore

__all__ = ["Workers", "status_text"]

logger = logging.getLogger("mcptools")

# How long an idle slot waits for an announcement before it looks at the queue anyway (a missed message, another
# process's requeue that was not heard).
_IDLE_SECONDS: Final = 2.0
# Status messages from progress and logs: at most one write per this many seconds per task.
_STATUS_EVERY: Final = 0.2


@final
class _Running:
    """``Call.task`` of a worker's run."""

    __slots__ = ("mode",)

    def __init__(self, hands_off: bool) -> None:
        # A tool not seen handing off (ctx.continue_as_task() in a helper) is warned about when it does.
        self.mode = "running" if hands_off else "unseen"


def status_text(message: dict[str, Any]) -> str | None:
    """The ``statusMessage`` a progress or log notification from the tool's ``Context`` becomes."""
    method = message.get("method")
    params = message.get("params")
    if type(params) is not dict:
        return None
    if method == "notifications/progress":
        done, total, text = params.get("progress"), params.get("total"), params.get("message")
        head = f"{done:g}" if isinstance(done, (int, float)) else str(done)
        if isinstance(total, (int, float)):
            head += f"/{total:g}"
        return f"{head}: {text}" if isinstance(text, str) and text else head
    if method == "notifications/message":
        data = params.get("data")
        return data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    return None


@final
@dataclass(slots=True, eq=False)
class _StatusStream:
    """A task run's ``Stream``: what the tool's ``Context`` sends becomes the task's ``statusMessage``."""

    store: TaskStore
    task_id: str
    worker: str
    _latest: str | None = field(default=None, init=False)
    _flushing: asyncio.Task[None] | None = field(default=None, init=False)
    streaming: ClassVar[bool] = False

    async def send(self, message: dict[str, Any]) -> None:
        text = status_text(message)
        if text is None:
            return
        self._latest = text  # a newer message replaces one not written yet: the status is the latest word
        if self._flushing is None or self._flushing.done():
            self._flushing = asyncio.ensure_future(self._flush())

    async def _flush(self) -> None:
        while self._latest is not None:
            text, self._latest = self._latest, None
            try:
                await operations.note(self.store, self.task_id, self.worker, text)
            except Exception:
                logger.warning("could not write the status of task %s", self.task_id, exc_info=True)
            await asyncio.sleep(_STATUS_EVERY)

    async def close(self) -> None:
        return None

    def stop(self) -> None:
        if self._flushing is not None:
            self._flushing.cancel()


@final
class Workers:
    """The task workers of one process: ``run(slots)`` until cancelled (releasing what they hold)."""

    __slots__ = ("_held", "_registry", "_service", "_wake", "name")

    def __init__(self, registry: TaskHost, service: TaskAccess) -> None:
        self._registry = registry
        self._service = service
        # Unique among every worker sharing the store: the lease's owner.
        self.name = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        # The runs in progress, by task: each one's Call and what tells its heartbeat to stop it.
        self._held: dict[str, tuple[Call, asyncio.Event]] = {}
        self._wake = asyncio.Event()

    @property
    def _store(self) -> TaskStore:
        store = self._service.store
        assert store is not None  # running: the store is open
        return store

    async def run(self, slots: int) -> None:
        """Claim and run tasks in ``slots`` concurrent runs, and reap, until cancelled."""
        async with self._store.subscribe(TASKS_CHANNEL) as events:
            jobs = [asyncio.ensure_future(self._listen(events)), asyncio.ensure_future(self.reap_forever())]
            jobs += [asyncio.ensure_future(self._slot()) for _ in range(slots)]
            try:
                await asyncio.gather(*jobs)
            finally:
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)

    async def reap_forever(self) -> None:
        """Every half lease (jittered, so replicas do not reap in step): requeue or fail the tasks whose worker
        stopped renewing, delete the expired ones."""
        config = self._service.config
        while True:
            await asyncio.sleep(config.lease_ms / 2000 * random.uniform(0.75, 1.25))
            try:
                reaped = await operations.reap(self._store, max_attempts=config.max_attempts)
                for record in reaped:
                    logger.warning("task %s lost its worker: %s", record.task_id, record.status_message)
                await self._store.purge()
            except Exception:
                logger.warning("reaping tasks failed; trying again later", exc_info=True)

    async def _listen(self, events: Subscription) -> None:
        async for message in events:
            payload = message.payload
            if payload.get("runnable"):
                self._wake.set()
            elif payload.get("status") == "cancelled":
                held = self._held.get(str(payload.get("taskId")))
                if held is not None:
                    held[1].set()

    async def _slot(self) -> None:
        config = self._service.config
        while True:
            self._wake.clear()  # before looking: an announcement made while we look is not lost
            try:
                record = await operations.claim_next(self._store, self.name, lease_ms=config.lease_ms)
            except Exception:
                logger.warning("claiming a task failed; trying again shortly", exc_info=True)
                record = None
            if record is None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), _IDLE_SECONDS)
                continue
            try:
                await self._execute(record)
            except Exception:  # the store failed us while finishing: the lease runs out, and the reaper retries
                logger.exception("task %s could not be finished; it will be retried", record.task_id)

    async def _execute(self, record: TaskRecord) -> None:
        call = self._call_for(record)
        stream = call.stream
        assert isinstance(stream, _StatusStream)
        stop = asyncio.Event()
        self._held[record.task_id] = (call, stop)
        run = asyncio.ensure_future(self._drive(call, record))
        beat = asyncio.ensure_future(self._heartbeat(call, record.task_id, stop))
        try:
            await asyncio.shield(run)
        except asyncio.CancelledError:
            # The worker is stopping: the run is cancelled, and the task goes back to the queue at once.
            run.cancel()
            with contextlib.suppress(BaseException):
                await run
            with contextlib.suppress(Exception):
                await operations.release(self._store, record.task_id, self.name)
            raise
        finally:
            beat.cancel()
            stream.stop()
            self._held.pop(record.task_id, None)

    async def _heartbeat(self, call: Call, task_id: str, stop: asyncio.Event) -> None:
        """Renew the lease every third of it; stop the run when told to (the task was cancelled) or when the
        renewal is refused (cancelled, expired, or taken over by another worker after this one's lease ran out)."""
        config = self._service.config
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), config.lease_ms / 3000)
            if stop.is_set():
                break
            try:
                if not await operations.heartbeat(self._store, task_id, self.name, lease_ms=config.lease_ms):
                    stop.set()
            except Exception:
                logger.warning("renewing the lease of task %s failed", task_id, exc_info=True)
        # As a client's notifications/cancelled stops a call; the run may not have started its tool yet.
        while not call.session.cancel(call.request_id):
            await asyncio.sleep(0.01)

    def _call_for(self, record: TaskRecord) -> Call:
        """The ``Call`` of a task's run, rebuilt from its record: the tool by its served name, the arguments as
        the client sent them, the client's capabilities and log level, the caller, and every answer so far."""
        context = record.context
        meta: dict[str, Any] = {
            META_CLIENT_CAPABILITIES: dict(context.get("capabilities") or {}),
            META_LOG_LEVEL: context.get("logLevel") or "info",  # logs at info and up make the status message
            "progressToken": record.task_id,  # so progress is reported; it becomes the status message too
        }
        params = {"name": record.tool, "arguments": dict(record.arguments)}
        registry = self._registry
        call = Call()  # the fields the engine's routing sets on a request's Call
        call.request_id = f"task:{record.task_id}:{record.attempts}"
        call.method = "tools/call"
        call.params = params
        call.meta = meta
        call.legacy = False  # a task's run reads its answers from the record, as a 2026-07-28 round does
        call.session = Session(peer="task")
        call.source = registry
        call.sealer = registry.engine.sealer
        call.rounds = ({key: dict(value) for key, value in record.input_responses.items()}, None)
        call.stream = _StatusStream(self._store, record.task_id, self.name)
        caller = context.get("principal")
        if type(caller) is dict:
            call.principal = Principal(
                subject=str(caller.get("subject")),
                scopes=frozenset(caller.get("scopes") or ()),
                client_id=caller.get("clientId"),
            )
        provider = context.get("provider")
        if type(provider) is dict:
            repairs = provider.get("repairs")
            call.provider = ProviderCall(frozenset(repairs) if type(repairs) is list else None)
        return call

    async def _drive(self, call: Call, record: TaskRecord) -> None:
        """One run of the task, through the pipeline's driver; its outcome written as the task's."""
        store, task_id, worker = self._store, record.task_id, self.name
        try:
            route(call)  # the tool by its served name: one removed since reads "Unknown tool", as a call would
            tool = call.tool
            call.task = _Running(tool.hands_off)
            result = await drive(call)
        except ProtocolError as problem:
            error: dict[str, Any] = {"code": problem.code, "message": problem.message}
            if problem.data is not None:
                error["data"] = problem.data
            await operations.fail(store, task_id, worker, error, problem.message)
            return
        except Exception:
            logger.exception("internal error while running task %s", task_id)
            await operations.fail(store, task_id, worker, {"code": INTERNAL_ERROR, "message": "Internal error"})
            return
        if result is None:
            return  # stopped: the task was cancelled, or is another worker's now
        if result.get("resultType") == "input_required":
            requests = result.get("inputRequests")
            await operations.ask(store, task_id, worker, requests if type(requests) is dict else {})
            return
        await operations.complete(store, task_id, worker, result)
