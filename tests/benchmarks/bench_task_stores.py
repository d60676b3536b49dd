"""Task store benchmark: what one operation costs on each store, the three side by side in one run.

    .venv/bin/python tests/benchmarks/bench_task_stores.py            # 15 rounds of 40 operations per row
    .venv/bin/python tests/benchmarks/bench_task_stores.py --quick    # 3 rounds, for a look

Rows: ``create`` (a durable task, as a task-augmented tools/call makes one), ``get`` (tasks/get), ``claim +
complete`` (a worker's whole bookkeeping for a run without input: claim, one heartbeat, complete) and
``publish -> heard`` (a message from publisher to a subscriber of the same store). The stores' rounds are
interleaved, and each figure is the median over rounds of the per-operation mean in µs. Redis is a
redis-server started on a free loopback port (or ``MCPTOOLS_TEST_REDIS_URL``); without one, its column is
left out. Absolute times are noisy on a shared machine: read the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from redis_support import REDIS_URL_ENV, start_redis  # noqa: E402

from mcptools._tasks import operations  # noqa: E402
from mcptools._tasks.memory_store import MemoryTaskStore  # noqa: E402
from mcptools._tasks.sqlite_store import SqliteTaskStore  # noqa: E402
from mcptools._tasks.store import TOOLS_CHANNEL, TaskStore  # noqa: E402
from mcptools._tasks.transitions import TaskSpec  # noqa: E402

BATCH = 40
Op = Callable[[TaskStore], Awaitable[None]]


async def _create(store: TaskStore) -> None:
    await operations.create_task(store, TaskSpec("slow_compute", {"seconds": 1}, ttl_ms=60_000))


def _get(task_id: str) -> Op:
    async def op(store: TaskStore) -> None:
        assert await store.get(task_id) is not None

    return op


async def _claim_complete(store: TaskStore) -> None:
    claimed = await operations.claim_next(store, "bench")
    assert claimed is not None
    assert await operations.heartbeat(store, claimed.task_id, "bench")
    assert await operations.complete(store, claimed.task_id, "bench", {"content": [], "isError": False})


async def _measure(stores: dict[str, TaskStore], rounds: int) -> dict[str, dict[str, float]]:
    probe = {
        name: (await operations.create_task(store, TaskSpec("echo", {}, ttl_ms=None))).task_id
        for name, store in stores.items()
    }
    samples: dict[str, dict[str, list[float]]] = {name: {} for name in stores}
    for _ in range(rounds):
        for name, store in stores.items():
            rows: dict[str, Op] = {"create": _create, "get": _get(probe[name])}
            for row, op in rows.items():
                samples[name].setdefault(row, []).append(await _timed(store, op))
            # As many tasks as the claims below take, made outside the timing.
            for _ in range(BATCH):
                await _create(store)
            samples[name].setdefault("claim + complete", []).append(await _timed(store, _claim_complete))
            samples[name].setdefault("publish -> heard", []).append(await _round_trip(store))
    return {name: {row: statistics.median(values) for row, values in rows.items()} for name, rows in samples.items()}


async def _timed(store: TaskStore, op: Op) -> float:
    start = time.perf_counter()
    for _ in range(BATCH):
        await op(store)
    return (time.perf_counter() - start) / BATCH * 1e6


async def _round_trip(store: TaskStore) -> float:
    async with store.subscribe(TOOLS_CHANNEL) as heard:
        start = time.perf_counter()
        for n in range(BATCH):
            await store.publish(TOOLS_CHANNEL, {"n": n})
            message = await heard.get(timeout=5)
            assert message is not None and message.payload == {"n": n}
        return (time.perf_counter() - start) / BATCH * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true")
    rounds = 3 if parser.parse_args().quick else 15
    workdir = Path(tempfile.mkdtemp(prefix="bench-tasks-"))
    server = None
    redis_url = os.environ.get(REDIS_URL_ENV)
    if redis_url is None:
        started = start_redis(workdir)
        if started is not None:
            server, redis_url = started

    async def run() -> dict[str, dict[str, float]]:
        stores: dict[str, TaskStore] = {
            "memory": MemoryTaskStore(),
            "sqlite": SqliteTaskStore(workdir / "tasks.db"),
        }
        if redis_url is not None:
            from mcptools._tasks.redis_store import RedisTaskStore

            stores["redis"] = RedisTaskStore(redis_url, prefix=f"bench-{uuid.uuid4().hex[:8]}:")
        try:
            return await _measure(stores, rounds)
        finally:
            for store in stores.values():
                await store.close()

    try:
        results = asyncio.run(run())
    finally:
        if server is not None:
            server.kill()  # it saves nothing: no need to let it shut down
            server.wait(timeout=10)
    names = list(results)
    print(f"Task stores, µs per operation (median of {rounds} rounds of {BATCH}); Python {sys.version.split()[0]}\n")
    print("| operation | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for row in results[names[0]]:
        print(f"| {row} | " + " | ".join(f"{results[name][row]:,.0f}" for name in names) + " |")


if __name__ == "__main__":
    main()
