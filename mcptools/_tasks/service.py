"""The tasks side of one registry: its settings, its store, and what runs in this process while it serves.

    registry.running()  ->  TaskService.running():  the store opened (``task_store``), then
        workers     ``task_workers`` slots claiming tasks and running them through the call pipeline (``worker``)
        reaper      every half lease: tasks whose worker stopped renewing are retried or failed; expired ones go
        replication with a shared store (SQLite, Redis): this registry's runtime tool changes reach every replica,
                    and theirs reach it (``replicate``)

A registry without a task tool and without a shared store never starts any of it: nothing is imported, opened or
run. The settings come from the serving options (``task_*`` keys of ``ServeSettings``: ``mcptools serve``,
``mcptools worker``, ``registry.run``); a test client (``mcptools.testing.Client``) gets the defaults: tasks in
memory, run in the client's own process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, final

from .._errors import UsageError
from .config import TaskConfig

if TYPE_CHECKING:
    from .host import TaskHost
    from .store import TaskStore

__all__ = ["TaskService"]


@final
class TaskService:
    """One registry's tasks (``registry.task_service``): made on first use, started by ``registry.running()``."""

    __slots__ = ("_depth", "_registry", "_running", "_store", "config")

    def __init__(self, registry: TaskHost) -> None:
        self._registry = registry
        self.config = TaskConfig()
        self._store: TaskStore | None = None
        self._depth = 0
        self._running: list[asyncio.Task[None]] = []

    def configure(self, config: TaskConfig) -> None:
        """Use ``config`` from the next start on (``registry.run``, ``mcptools serve``, ``mcptools worker``)."""
        if self._depth:
            raise UsageError("the task settings cannot change while the registry is running")
        self.config = config

    @property
    def offered(self) -> bool:
        """Whether the registry serves a tool that may run as a task (so the capability is advertised)."""
        return self._registry.offers_tasks

    @property
    def accepting(self) -> bool:
        """Whether a call may become a task now: the store is open and the registry is being served (a bare
        ``registry.handle`` outside ``registry.running()`` runs no workers, so an optional task tool answers
        directly there)."""
        return self._store is not None and self._depth > 0

    @property
    def store(self) -> TaskStore | None:
        """The open store; ``None`` while the registry is not running."""
        return self._store

    def needed(self) -> bool:
        """Whether serving this registry runs anything for tasks: a task tool, or a shared store to replicate
        the tool list through."""
        return self.config.shared or self.offered

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Open the store and run the workers, the reaper and the replication around the block; entered once at
        a time (by the registry's lifespan runner, which counts nested ``registry.running()`` blocks)."""
        if not self.needed():
            yield
            return
        from .connect import open_store

        self._store = open_store(self.config.store)
        self._depth = 1
        try:
            await self._start()
            yield
        finally:
            self._depth = 0
            await self._stop()

    async def _start(self) -> None:
        from .worker import Workers

        config = self.config
        workers = Workers(self._registry, self)
        if self.offered and config.workers > 0:
            self._running.append(asyncio.ensure_future(workers.run(config.workers)))
        else:
            self._running.append(asyncio.ensure_future(workers.reap_forever()))
        if config.shared:
            from .replicate import Replication

            replication = Replication(self._registry, self)
            replicating = asyncio.ensure_future(replication.run())
            self._running.append(replicating)
            # Serve the tool list every replica serves from the start: the earlier changes applied first.
            ready = asyncio.ensure_future(replication.ready.wait())
            await asyncio.wait((replicating, ready), timeout=10.0, return_when=asyncio.FIRST_COMPLETED)
            ready.cancel()

    async def _stop(self) -> None:
        running, self._running = self._running, []
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        store, self._store = self._store, None
        if store is not None:
            await store.close()
