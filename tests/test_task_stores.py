"""One contract for the three task stores (memory, SQLite, Redis): the same behaviours, each test run on all.

The durable stores also face what only they promise: another process sees what one wrote and hears what it
published, a task survives closing and reopening the store (a restart), two processes claiming at once never
both get a task, and a worker killed with SIGKILL while holding a task loses it to the reaper, which retries it
or fails it with the reason. Redis is a real redis-server (see redis_support).
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from task_store_support import StoreSpec, drive

from mcptools._jsonrpc import INTERNAL_ERROR
from mcptools._tasks import operations, transitions
from mcptools._tasks.connect import open_store
from mcptools._tasks.record import TaskRecord, iso_time
from mcptools._tasks.store import TASKS_CHANNEL, TOOLS_CHANNEL, TaskStore, TaskStoreError
from mcptools._tasks.transitions import TaskSpec

ELICIT = {"method": "elicitation/create", "params": {"message": "Sure?", "requestedSchema": {"type": "object"}}}
ACCEPT = {"action": "accept", "content": {"confirm": True}}


@pytest.fixture(params=["memory", "sqlite", "redis"])
def spec(request: pytest.FixtureRequest, tmp_path: Path) -> StoreSpec:
    if request.param == "memory":
        return StoreSpec("memory")
    if request.param == "sqlite":
        return StoreSpec("sqlite", str(tmp_path / "tasks.db"))
    return StoreSpec("redis", request.getfixturevalue("redis_url"), f"test-{uuid.uuid4().hex[:12]}:")


@pytest.fixture(params=["sqlite", "redis"])
def durable(request: pytest.FixtureRequest, tmp_path: Path) -> StoreSpec:
    if request.param == "sqlite":
        return StoreSpec("sqlite", str(tmp_path / "tasks.db"))
    return StoreSpec("redis", request.getfixturevalue("redis_url"), f"test-{uuid.uuid4().hex[:12]}:")


async def _new(store: TaskStore, ttl_ms: int | None = 60_000, **options: Any) -> TaskRecord:
    return await operations.create_task(store, TaskSpec("slow_compute", {"seconds": 1}, ttl_ms, **options))


def test_a_created_task_reads_back_as_written_and_an_unknown_one_is_none(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        made = await _new(store, poll_interval_ms=500, scope="alice", context={"generation": "2026-07-28"})
        assert made.status == "working" and made.runnable and made.rev == 1
        assert await store.get(made.task_id) == made
        assert await store.get("no-such-task") is None
        with pytest.raises(TaskStoreError, match="exists already"):
            await store.create(lambda now: made)

    drive(spec, body)


def test_claims_take_the_oldest_runnable_task_once(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        first, second = await _new(store), await _new(store)
        one = await operations.claim_next(store, "w1")
        two = await operations.claim_next(store, "w2")
        assert (one and one.task_id, two and two.task_id) == (first.task_id, second.task_id)
        assert one is not None and one.owner == "w1" and one.attempts == 1 and one.lease_until is not None
        assert await operations.claim_next(store, "w3") is None

    drive(spec, body)


def test_of_many_concurrent_claimers_exactly_one_wins(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        made = await _new(store)
        claims = await asyncio.gather(*(operations.claim_next(store, f"w{n}") for n in range(8)))
        winners = [claim for claim in claims if claim is not None]
        assert [winner.task_id for winner in winners] == [made.task_id]
        stored = await store.get(made.task_id)
        assert stored is not None and stored.owner == winners[0].owner and stored.attempts == 1

    drive(spec, body)


def test_only_the_holder_renews_and_finishes_and_a_finished_task_stays_finished(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        made = await _new(store)
        await operations.claim_next(store, "w1")
        assert not await operations.heartbeat(store, made.task_id, "intruder")
        assert not await operations.complete(store, made.task_id, "intruder", {"content": []})
        assert await operations.heartbeat(store, made.task_id, "w1")
        assert await operations.note(store, made.task_id, "w1", "half way")
        result = {"content": [{"type": "text", "text": "done"}], "isError": False}
        assert await operations.complete(store, made.task_id, "w1", result)
        done = await store.get(made.task_id)
        assert done is not None and done.status == "completed" and done.result == result and done.owner is None
        assert not await operations.heartbeat(store, made.task_id, "w1")
        assert (await operations.cancel(store, made.task_id)) == done  # terminal: the cancel changes nothing
        assert not await operations.fail(store, made.task_id, "w1", {"code": INTERNAL_ERROR, "message": "late"})

    drive(spec, body)


def test_cancelling_ends_a_running_task_at_once_and_its_worker_hears_it(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        queued, running = await _new(store), await _new(store)
        assert await operations.claim_next(store, "w1") is not None  # the older one, ``queued``, is now running
        cancelled = await operations.cancel(store, queued.task_id)
        assert cancelled is not None and cancelled.status == "cancelled" and cancelled.owner is None
        assert not await operations.heartbeat(store, queued.task_id, "w1")  # the worker learns it must stop
        assert not await operations.complete(store, queued.task_id, "w1", {"content": []})
        again = await operations.cancel(store, queued.task_id)
        assert again is not None and again.rev == cancelled.rev  # idempotent
        assert await operations.cancel(store, "no-such-task") is None
        await operations.cancel(store, running.task_id)  # never claimed: cancelled in the queue
        assert await operations.claim_next(store, "w2") is None

    drive(spec, body)


def test_input_rounds_keep_outstanding_keys_until_every_one_is_answered(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        made = await _new(store, answers={"before": ACCEPT})
        await operations.claim_next(store, "w1")
        assert await operations.ask(store, made.task_id, "w1", {"first": ELICIT, "second": ELICIT, "before": ELICIT})
        waiting = await store.get(made.task_id)
        assert waiting is not None and waiting.status == "input_required" and waiting.owner is None
        assert set(waiting.input_requests) == {"first", "second"}  # an answer the task has is not asked again
        assert await operations.claim_next(store, "w2") is None  # nothing to run while input is outstanding
        unchanged = await operations.answer(store, made.task_id, {"never-asked": ACCEPT})
        assert unchanged is not None and unchanged.rev == waiting.rev
        partial = await operations.answer(store, made.task_id, {"first": ACCEPT})
        assert partial is not None and partial.status == "input_required" and set(partial.input_requests) == {"second"}
        again = await operations.answer(store, made.task_id, {"first": {"action": "decline"}})
        assert again is not None and again.rev == partial.rev  # an answered key is retired
        resumed = await operations.answer(store, made.task_id, {"second": ACCEPT})
        assert resumed is not None and resumed.status == "working" and resumed.runnable
        rerun = await operations.claim_next(store, "w2")
        assert rerun is not None and rerun.attempts == 2 and rerun.losses == 0  # waiting for answers loses nothing
        assert dict(rerun.input_responses) == {"before": ACCEPT, "first": ACCEPT, "second": ACCEPT}
        assert await operations.answer(store, "no-such-task", {"first": ACCEPT}) is None

    drive(spec, body)


def test_a_lost_lease_is_retried_then_fails_with_the_reason(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        made = await _new(store)
        await operations.claim_next(store, "w1", lease_ms=50)
        assert await operations.reap(store, max_attempts=2) == []  # the lease still runs
        await asyncio.sleep(0.12)
        assert made.task_id in await store.expired_leases()
        (retried,) = await operations.reap(store, max_attempts=2)
        assert retried.status == "working" and retried.owner is None and "Retrying" in (retried.status_message or "")
        assert not await operations.heartbeat(store, made.task_id, "w1")  # the first worker lost it
        second = await operations.claim_next(store, "w2", lease_ms=50)
        assert second is not None and second.attempts == 2 and second.losses == 1
        await asyncio.sleep(0.12)
        (failed,) = await operations.reap(store, max_attempts=2)
        assert failed.status == "failed" and failed.error is not None
        assert failed.error["code"] == INTERNAL_ERROR and "stopped renewing its lease" in failed.error["message"]
        assert "(2 attempts)" in failed.error["message"] and failed.losses == 2
        assert await store.expired_leases() == []

    drive(spec, body)


def test_a_task_past_its_ttl_is_gone_and_purged(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        brief = await _new(store, ttl_ms=100)
        lasting = await _new(store, ttl_ms=None)
        assert await store.get(brief.task_id) is not None
        await asyncio.sleep(0.15)
        assert await store.get(brief.task_id) is None
        claimed = await operations.claim_next(store, "w1")
        assert claimed is not None and claimed.task_id == lasting.task_id  # the expired one is never claimed
        assert await store.purge() == 1
        assert await store.get(lasting.task_id) is not None and await store.purge() == 0

    drive(spec, body)


def test_subscribers_hear_announced_changes_in_order_and_published_messages(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        async with store.subscribe(TASKS_CHANNEL) as tasks, store.subscribe(TOOLS_CHANNEL) as tools:
            made = await _new(store)
            await operations.claim_next(store, "w1")  # not announced: nothing a client can see changed
            await operations.heartbeat(store, made.task_id, "w1")  # nor this
            await operations.complete(store, made.task_id, "w1", {"content": []})
            await store.publish(TOOLS_CHANNEL, {"change": "removed", "tool": "old"})
            heard = [await tasks.get(timeout=5), await tasks.get(timeout=5)]
            assert [(m and m.payload["taskId"], m and m.payload["status"]) for m in heard] == [
                (made.task_id, "working"),
                (made.task_id, "completed"),
            ]
            tool_message = await tools.get(timeout=5)
            assert tool_message is not None and tool_message.payload == {"change": "removed", "tool": "old"}
            assert await tasks.get(timeout=0.1) is None and await tools.get(timeout=0.05) is None

    drive(spec, body)


def test_shared_documents_are_numbered_and_read_back(spec: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        assert await store.get_shared("tools") is None
        assert await store.put_shared("tools", {"disabled": ["a"]}) == 1
        assert await store.put_shared("tools", {"disabled": []}) == 2
        assert await store.get_shared("tools") == ({"disabled": []}, 2)
        # Written only while the revision is the one the writer read: a stale writer changes nothing.
        assert await store.put_shared("tools", {"disabled": ["b"]}, expected=1) is None
        assert await store.put_shared("tools", {"disabled": ["c"]}, expected=2) == 3
        assert await store.get_shared("tools") == ({"disabled": ["c"]}, 3)
        assert await store.put_shared("new", {}, expected=1) is None  # never written: its revision is 0
        assert await store.put_shared("new", {"a": 1}, expected=0) == 1
        assert await store.get_shared("new") == ({"a": 1}, 1)

    drive(spec, body)


# -- what only the durable stores promise -------------------------------------------------------------------


def test_a_task_survives_reopening_the_store(durable: StoreSpec) -> None:
    made = drive(durable, _new)
    reread = drive(durable, lambda store: store.get(made.task_id))
    assert reread == made


def test_another_process_sees_the_tasks_and_messages_of_this_one(durable: StoreSpec) -> None:
    async def body(store: TaskStore) -> None:
        async with store.subscribe(TASKS_CHANNEL, TOOLS_CHANNEL) as heard:
            other = durable.spawn("create-and-publish")
            stdout, stderr = await asyncio.to_thread(other.communicate, timeout=30)
            assert other.returncode == 0, stderr
            task_id = stdout.strip()
            created = await heard.get(timeout=5)
            tool_change = await heard.get(timeout=5)
        assert created is not None and created.payload == {
            "taskId": task_id,
            "status": "working",
            "rev": 1,
            "runnable": True,
        }
        assert tool_change is not None and tool_change.channel == TOOLS_CHANNEL
        record = await store.get(task_id)
        assert record is not None and record.arguments == {"text": "from afar"}

    drive(durable, body)


def test_two_processes_claiming_at_once_never_share_a_task(durable: StoreSpec) -> None:
    async def fill(store: TaskStore) -> set[str]:
        return {(await _new(store)).task_id for _ in range(30)}

    made = drive(durable, fill)
    start_at = str(time.time() + 0.35)
    claimers = [durable.spawn("claim-all", start_at) for _ in range(2)]
    outputs = [claimer.communicate(timeout=60) for claimer in claimers]
    assert all(claimer.returncode == 0 for claimer in claimers), [err for _, err in outputs]
    claimed = [json.loads(out) for out, _ in outputs]
    assert sorted(claimed[0] + claimed[1]) == sorted(made)  # every task once: none twice, none lost


def test_a_worker_killed_holding_a_task_loses_it_to_the_reaper(durable: StoreSpec) -> None:
    made = drive(durable, _new)
    worker = durable.spawn("claim", "150")
    assert worker.stdout is not None
    assert worker.stdout.readline().strip() == made.task_id
    os.kill(worker.pid, signal.SIGKILL)
    worker.wait(timeout=10)
    if worker.stderr is not None:
        worker.stderr.close()
    worker.stdout.close()

    async def after(store: TaskStore) -> None:
        held = await store.get(made.task_id)
        assert held is not None and held.owner == "doomed-worker" and held.status == "working"
        while not await operations.reap(store, max_attempts=3):  # the lease (150 ms) runs out
            await asyncio.sleep(0.05)
        retried = await operations.claim_next(store, "survivor")
        assert retried is not None and retried.task_id == made.task_id and retried.attempts == 2
        assert await operations.complete(store, made.task_id, "survivor", {"content": []})

    drive(durable, after)


# -- the parts around the stores ----------------------------------------------------------------------------


def test_open_store_reads_the_url() -> None:
    assert type(open_store("memory://")).__name__ == "MemoryTaskStore"
    for bad in ("tasks.db", "sqlite://", "postgres://db/tasks"):
        with pytest.raises(TaskStoreError):
            open_store(bad)


def test_a_record_is_plain_json_and_refuses_anything_else() -> None:
    made = transitions.new_task("t1", TaskSpec("echo", {"text": "é"}, ttl_ms=1000), 1_700_000_000.5)
    assert TaskRecord.from_json(made.to_json()) == made
    assert made.expires_at == 1_700_000_001.5
    for foreign in ('{"status": "sleeping"}', "[]", '{"status": "working", "surprise": 1}'):
        with pytest.raises(ValueError, match="not a task record"):
            TaskRecord.from_json(foreign)
    assert iso_time(1_700_000_000.5) == "2023-11-14T22:13:20.500Z"


def test_import_mcptools_loads_no_store_and_a_missing_redis_client_names_the_extra(tmp_path: Path) -> None:
    code = (
        "import sys, mcptools\n"
        "print(sorted(m for m in sys.modules if m.startswith(('mcptools._tasks', 'redis', 'sqlite3'))))\n"
        "sys.modules['redis'] = None  # as if the extra were not installed\n"
        "from mcptools._tasks.connect import open_store\n"
        "open_store('sqlite:///' + sys.argv[1])\n"
        "print('redis' in sys.modules and sys.modules['redis'] is not None)\n"
        "try:\n"
        "    open_store('redis://127.0.0.1:1/0')\n"
        "except Exception as problem:\n"
        "    print(type(problem).__name__, problem)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "t.db")],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.splitlines() == [
        "[]",
        "False",
        "TaskStoreError the Redis task store needs the redis client: pip install 'mcptools[redis]'",
    ]
