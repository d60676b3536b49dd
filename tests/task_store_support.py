"""The stores under test, made alike for the contract tests, and a second process that uses one.

``StoreSpec`` names a store and where it keeps its tasks, so a test can open it twice (a restart) or hand it
to another process. Run as a script, this module is that other process:

    python task_store_support.py KIND LOCATION PREFIX create-and-publish   (prints the new task's id)
    python task_store_support.py KIND LOCATION PREFIX claim LEASE_MS       (prints the id, then hangs)
    python task_store_support.py KIND LOCATION PREFIX claim-all START_AT   (from then, claims until none is
                                                                            left; prints the ids it got)
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # run as a script from anywhere: mcptools from this checkout

from mcptools._tasks import operations  # noqa: E402
from mcptools._tasks.memory_store import MemoryTaskStore  # noqa: E402
from mcptools._tasks.sqlite_store import SqliteTaskStore  # noqa: E402
from mcptools._tasks.store import TOOLS_CHANNEL, TaskStore  # noqa: E402
from mcptools._tasks.transitions import TaskSpec  # noqa: E402

Kind = Literal["memory", "sqlite", "redis"]


@dataclass(frozen=True)
class StoreSpec:
    kind: Kind
    location: str = ""  # the SQLite file, or the Redis URL
    prefix: str = ""  # the Redis key prefix that keeps tests apart

    def open(self) -> TaskStore:
        if self.kind == "memory":
            return MemoryTaskStore()
        if self.kind == "sqlite":
            return SqliteTaskStore(self.location, poll_interval=0.02)
        from mcptools._tasks.redis_store import RedisTaskStore

        return RedisTaskStore(self.location, prefix=self.prefix)

    def spawn(self, *command: str) -> subprocess.Popen[str]:
        """This module as another process using the same store."""
        argv = [sys.executable, str(Path(__file__)), self.kind, self.location, self.prefix, *command]
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def drive(spec: StoreSpec, body: Callable[[TaskStore], Awaitable[Any]], timeout: float = 20) -> Any:
    """Run ``body`` with a freshly opened store on an event loop of its own, closing the store after."""

    async def main() -> Any:
        store = spec.open()
        try:
            return await asyncio.wait_for(body(store), timeout)
        finally:
            await store.close()

    return asyncio.run(main())


async def _as_process(spec: StoreSpec, command: str, argument: str | None) -> None:
    store = spec.open()
    try:
        if command == "create-and-publish":
            record = await operations.create_task(store, TaskSpec("echo", {"text": "from afar"}, ttl_ms=60_000))
            await store.publish(TOOLS_CHANNEL, {"change": "added", "tool": "echo"})
            print(record.task_id, flush=True)
        elif command == "claim":
            lease_ms = int(argument or "1000")
            claimed = await operations.claim_next(store, "doomed-worker", lease_ms=lease_ms)
            print(claimed.task_id if claimed else "-", flush=True)
            await asyncio.sleep(3600)  # the test kills this process here, lease held
        elif command == "claim-all":
            import time

            await asyncio.sleep(max(float(argument or "0") - time.time(), 0))  # both claimers start together
            claimed_ids = []
            while (claimed := await operations.claim_next(store, f"worker-{id(store)}")) is not None:
                claimed_ids.append(claimed.task_id)
            print(json.dumps(claimed_ids), flush=True)
    finally:
        await store.close()


if __name__ == "__main__":
    kind, location, prefix, command, *rest = sys.argv[1:]
    asyncio.run(_as_process(StoreSpec(kind, location, prefix), command, rest[0] if rest else None))  # type: ignore[arg-type]
