"""Tools that run as tasks (the MCP Tasks extension, and 2025-11-25's experimental form), end to end in memory:
the ``task=`` option, a call answered with a task's handle, the worker running it through the call pipeline, and
``tasks/get``, ``tasks/update``, ``tasks/cancel`` seen from ``mcptools.testing.Client``. The same behaviour
across processes (replicas, workers, Redis, a kill -9, a restart) is tests/test_tasks_processes.py's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, final

import pytest

from mcptools import (
    Context,
    Middleware,
    ProtocolError,
    ToolCall,
    ToolDefinitionError,
    ToolError,
    ToolRegistry,
    UsageError,
)
from mcptools._protocol.session import Session
from mcptools._tasks import operations
from mcptools._tasks.config import TaskConfig
from mcptools._tasks.memory_store import MemoryTaskStore
from mcptools._tasks.store import Subscription
from mcptools.auth import Principal
from mcptools.middleware import CallNext, CallResult
from mcptools.testing import Client, Task

EXTENSION = "io.modelcontextprotocol/tasks"
CONFIRM = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _accept(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


def run(body: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(asyncio.wait_for(body(), 20))


def _registry(**config: Any) -> ToolRegistry:
    registry = ToolRegistry("tasks-under-test")

    @registry.tool(task="optional")
    async def slow(seconds: float, ctx: Context) -> str:
        """Report progress, log, wait, answer."""
        await ctx.report_progress(1, 4, "warming up")
        await ctx.info("waiting")
        await asyncio.sleep(seconds)
        if ctx.cancelled:
            return "stopped"
        return f"slept {seconds:g}"

    @registry.tool(task="required")
    def fails() -> str:
        raise ToolError("the job failed")

    @registry.tool(task="optional")
    def crashes() -> str:
        raise ValueError("secret detail")

    @registry.tool(task="optional")
    def refuses() -> str:
        raise ProtocolError(-32002, "refused by the tool", {"why": "because"})

    @registry.tool(task="optional")
    async def asks(ctx: Context) -> str:
        answers = await ctx.ask({"a": ctx.elicitation("A?", CONFIRM), "b": ctx.elicitation("B?", CONFIRM)})
        return "answered " + ",".join(sorted(answers))

    @registry.tool(task="required")
    async def greets(ctx: Context) -> str:
        """Asks on the call, then goes on as a task."""
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {"name": {"type": "string"}}}, key="n")
        await ctx.continue_as_task()
        return f"Hello, {answer['content']['name']}"

    @registry.tool
    def plain(x: int) -> str:
        return f"plain {x}"

    if config:
        registry.task_service.configure(TaskConfig(**config))
    return registry


# -- the option -------------------------------------------------------------------------------------------


def test_the_task_option_takes_the_three_modes_and_booleans_and_names_the_fix_for_anything_else() -> None:
    registry = ToolRegistry("options")

    def one() -> str:
        return ""

    assert registry.add(one, task=True).task == "optional"
    assert registry.add(one, name="two", task="required").task == "required"
    assert registry.add(one, name="three", task="forbidden").task is None
    assert registry.add(one, name="four", task=False).task is None
    assert registry.add(one, name="five").task is None and not registry.get("five").needs_loop  # type: ignore[union-attr]
    assert registry.get("two").needs_loop  # type: ignore[union-attr]  # made in the store, on a loop
    with pytest.raises(ToolDefinitionError, match=r"test_tasks.*one.*task must be 'optional'.*got 'sometimes'"):
        registry.add(one, name="six", task="sometimes")  # type: ignore[arg-type]


def test_only_a_tool_calling_continue_as_task_in_its_body_starts_on_the_call() -> None:
    registry = _registry()
    assert registry.get("greets").hands_off  # type: ignore[union-attr]
    assert not registry.get("asks").hands_off  # type: ignore[union-attr]


def test_the_capability_and_task_support_are_advertised_only_by_a_registry_with_task_tools() -> None:
    async def body() -> None:
        for registry, offered in ((_registry(), True), (ToolRegistry("none"), False)):
            async with Client(registry, protocol="2025-11-25") as legacy:
                listed = {tool["name"]: tool.get("execution") for tool in await legacy.list_tools()}
            async with Client(registry, protocol="2026-07-28") as modern:
                discovered = await modern._request("server/discover", {})
                modern_listed = await modern.list_tools()
            assert ("extensions" in discovered["capabilities"]) is offered
            assert "tasks" not in discovered["capabilities"]  # 2026-07-28 has only the extension
            assert all("execution" not in tool for tool in modern_listed)
            if offered:
                assert discovered["capabilities"]["extensions"] == {EXTENSION: {}}
                assert listed["slow"] == {"taskSupport": "optional"} and listed["fails"] == {"taskSupport": "required"}
                assert listed["plain"] is None

    run(body)


# -- 2026-07-28 -------------------------------------------------------------------------------------------


def test_a_task_runs_to_the_result_a_direct_call_gives_and_reports_progress_and_logs_as_its_status() -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("slow", {"seconds": 0.15})
            assert task.status == "working" and task.raw["resultType"] == "task" and task.raw["ttlMs"] == 3_600_000
            assert task.raw["pollIntervalMs"] == 1000 and "result" not in task.raw
            for _ in range(100):  # the status message follows what the tool reported
                seen = await client.get_task(task.task_id)
                if seen.status_message == "waiting":
                    break
                await asyncio.sleep(0.01)
            assert seen.status == "working" and seen.status_message == "waiting", seen
            done = await client.wait_for_task(task.task_id)
            direct = await client.call_tool("slow", {"seconds": 0})
            assert done.status == "completed" and done.result is not None
            assert done.result.text == "slept 0.15" and direct.text == "slept 0"
            assert direct.progress  # a direct call still streams its progress as notifications
            # A task's progress and logs never become notifications (the extension forbids them for tasks).
            assert all(note["params"].get("progressToken") != task.task_id for note in client.notifications)
            assert all(note["method"] != "notifications/message" for note in client.notifications)

    run(body)


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_errors_end_as_the_task_s_outcome_in_the_words_of_a_direct_call(protocol: Any) -> None:
    async def body() -> None:
        async with Client(_registry(), protocol=protocol) as client:
            failed = await client.wait_for_task((await client.call_tool_as_task("fails")).task_id)
            crashed = await client.wait_for_task((await client.call_tool_as_task("crashes")).task_id)
            direct = await client.call_tool("crashes")
            refused = await client.wait_for_task((await client.call_tool_as_task("refuses")).task_id)
            with pytest.raises(UsageError) as invalid:  # invalid arguments never make a task
                await client.call_tool_as_task("slow", {"seconds": "long"})
            assert "answered at once, without a task: \"Invalid arguments: property 'seconds'" in str(invalid.value)
            invalid_direct = await client.call_tool("slow", {"seconds": "long"})
        assert failed.result is not None and failed.result.is_error and failed.result.text == "the job failed"
        # 2026-07-28: a tool error is a completed task; 2025-11-25 calls it failed, with the same result.
        assert failed.status == ("completed" if protocol == "2026-07-28" else "failed")
        # A raised message reaches the model (mask_error_details=False, the default), from a task as on the call.
        assert crashed.result is not None
        assert crashed.result.text == direct.text == "Tool 'crashes' failed: ValueError: secret detail"
        assert refused.status == "failed" and refused.result is None and refused.error is not None
        assert refused.error["code"] == -32002 and refused.error["message"] == "refused by the tool"
        assert invalid_direct.is_error and invalid_direct.text.startswith("Invalid arguments")

    run(body)


def test_a_required_task_tool_refuses_a_call_that_cannot_take_a_task() -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28") as modern:
            with pytest.raises(ProtocolError) as refused:
                await modern.call_tool("fails")
            assert (await modern.call_tool("slow", {"seconds": 0})).text == "slept 0"  # optional: runs on the call
        assert refused.value.code == -32021
        assert refused.value.data == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
        async with Client(_registry(), protocol="2025-11-25") as legacy:
            with pytest.raises(ProtocolError) as refused_legacy:
                await legacy.call_tool("fails")
        assert refused_legacy.value.code == -32601 and "taskSupport: required" in refused_legacy.value.message

    run(body)


def test_tasks_methods_need_the_extension_and_unknown_tasks_are_invalid_params() -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28") as client:
            for method in ("tasks/get", "tasks/update", "tasks/cancel"):
                with pytest.raises(ProtocolError) as undeclared:
                    await client._request(method, {"taskId": "nope"})
                assert undeclared.value.code == -32021, method
            with pytest.raises(ProtocolError) as unknown:
                await client.get_task("nope")
            assert unknown.value.code == -32602
            for method in ("tasks/result", "tasks/list"):  # 2025-11-25's only
                with pytest.raises(ProtocolError) as missing:
                    await client._request(method, {"taskId": "nope"}, tasks=True)
                assert missing.value.code == -32601

    run(body)


def test_questions_wait_for_tasks_update_and_partial_answers_keep_the_rest_outstanding() -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28", elicitation=_accept) as client:
            task = await client.call_tool_as_task("asks")
            while (seen := await client.get_task(task.task_id)).status == "working":
                await asyncio.sleep(0.01)
            assert set(seen.input_requests) == {"a", "b"}
            assert seen.input_requests["a"]["method"] == "elicitation/create"
            await client.update_task(task.task_id, {"a": {"action": "accept", "content": {"ok": True}}, "zz": {}})
            partial = await client.get_task(task.task_id)
            assert partial.status == "input_required" and set(partial.input_requests) == {"b"}
            await client.update_task(task.task_id, {"b": {"action": "decline"}})
            done = await client.wait_for_task(task.task_id)
        assert done.status == "completed" and done.result is not None and done.result.text == "answered a,b"

    run(body)


@pytest.mark.parametrize("protocol", ["2026-07-28", "2025-11-25"])
def test_a_tool_asks_on_the_call_then_continues_as_a_task_with_the_answer(protocol: Any) -> None:
    async def body() -> None:
        answer = {"action": "accept", "content": {"name": "Alice"}}
        async with Client(_registry(), protocol=protocol, elicitation=lambda params: answer) as client:
            task = await client.call_tool_as_task("greets")
            done = await client.wait_for_task(task.task_id)
            direct_refused = None
            try:
                await client.call_tool("greets")
            except ProtocolError as problem:
                direct_refused = problem.code
        assert done.status == "completed" and done.result is not None and done.result.text == "Hello, Alice"
        assert direct_refused in (-32021, -32601)

    run(body)


def test_cancel_ends_a_running_task_at_once_and_stops_its_tool() -> None:
    stopped: list[str] = []
    registry = _registry()

    @registry.tool(task="optional")
    async def long(ctx: Context) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.append("cancelled")
            raise
        return "never"

    async def body() -> None:
        async with Client(registry, protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("long")
            store = registry.task_service.store
            assert store is not None
            while (record := await store.get(task.task_id)) is not None and record.owner is None:
                await asyncio.sleep(0.01)  # until a worker runs it
            await client.cancel_task(task.task_id)
            assert (await client.get_task(task.task_id)).status == "cancelled"  # at once, before the tool stops
            for _ in range(100):
                if stopped:
                    break
                await asyncio.sleep(0.01)
            await client.cancel_task(task.task_id)  # cancelling a finished task is acknowledged again
            assert (await client.get_task(task.task_id)).status == "cancelled"
        assert stopped == ["cancelled"]

    run(body)


class Counting(Middleware):
    def __init__(self) -> None:
        self.calls: list[str] = []

    async def on_call(self, call: ToolCall, call_next: CallNext) -> CallResult:
        self.calls.append(call.tool.name)
        return await call_next(call)


def test_call_middleware_wraps_the_request_that_makes_the_task_not_the_worker_s_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mcptools.middleware import LogCalls

    registry = _registry()
    counting = Counting()
    registry.use(counting, LogCalls())

    async def body() -> Task:
        async with Client(registry, protocol="2026-07-28") as client:
            return await client.wait_for_task((await client.call_tool_as_task("slow", {"seconds": 0})).task_id)

    with caplog.at_level(logging.INFO, logger="mcptools.calls"):
        assert run(body).status == "completed"
    assert counting.calls == ["slow"]
    assert [getattr(record, "mcp_outcome", None) for record in caplog.records if record.name == "mcptools.calls"] == [
        "task"
    ]


# -- 2025-11-25 ---------------------------------------------------------------------------------------------


def test_2025_tasks_get_cancel_and_result_with_questions_relayed_on_the_result_stream() -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2025-11-25", elicitation=_accept) as client:
            handle = await client.call_tool_as_task("asks")
            assert set(handle.raw) == {"task"} and handle.raw["task"]["ttl"] == 3_600_000
            done = await client.wait_for_task(handle.task_id)  # tasks/result asks the questions on its stream
            long = await client.call_tool_as_task("slow", {"seconds": 30})
            cancelled = await client._request("tasks/cancel", {"taskId": long.task_id}, tasks=True)
            with pytest.raises(ProtocolError) as again:
                await client.cancel_task(long.task_id)
            with pytest.raises(ProtocolError) as listing:
                await client._request("tasks/list", {}, tasks=True)
        assert done.status == "completed" and done.result is not None and done.result.text == "answered a,b"
        assert done.result.raw["_meta"]["io.modelcontextprotocol/related-task"] == {"taskId": handle.task_id}
        assert cancelled["status"] == "cancelled" and again.value.code == -32602
        assert listing.value.code == -32601  # no verified caller: tasks/list is not offered

    run(body)


def test_a_caller_sees_only_its_own_tasks_and_tasks_list_lists_them() -> None:
    registry = _registry()
    engine = registry.engine
    alice, bob = Principal("alice"), Principal("bob")

    async def send(session: Session, principal: Principal | None, method: str, params: dict[str, Any]) -> Any:
        message = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        return await engine.handle(message, session, principal=principal)

    async def body() -> None:
        async with registry.running():
            sessions = {}
            for who in (alice, bob):
                session = sessions[who.subject] = Session()
                init = {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                }
                answered = await send(session, who, "initialize", init)
                assert answered["result"]["capabilities"]["tasks"]["list"] == {}
                session.initialized = True
            made = await send(
                sessions["alice"], alice, "tools/call", {"name": "slow", "arguments": {"seconds": 0}, "task": {}}
            )
            task_id = made["result"]["task"]["taskId"]
            mine = await send(sessions["alice"], alice, "tasks/get", {"taskId": task_id})
            theirs = await send(sessions["bob"], bob, "tasks/get", {"taskId": task_id})
            listed = await send(sessions["alice"], alice, "tasks/list", {})
            empty = await send(sessions["bob"], bob, "tasks/list", {})
        assert mine["result"]["taskId"] == task_id
        assert theirs["error"]["code"] == -32602  # someone else's task reads as unknown: ids cannot be probed
        assert [task["taskId"] for task in listed["result"]["tasks"]] == [task_id] and empty["result"]["tasks"] == []

    run(body)


# -- the store underneath ---------------------------------------------------------------------------------------


def test_a_lost_lease_is_retried_by_the_reaper_and_the_run_counts_as_lost() -> None:
    registry = _registry(lease_ms=100, workers=0)  # no worker here: the test plays the one that dies

    async def body() -> None:
        async with Client(registry, protocol="2026-07-28") as client:
            store = registry.task_service.store
            assert store is not None
            task = await client.call_tool_as_task("slow", {"seconds": 0})
            claimed = await operations.claim_next(store, "doomed-worker", lease_ms=100)
            assert claimed is not None and claimed.task_id == task.task_id
            for _ in range(100):  # the reaper of this replica requeues it once the lease runs out
                record = await store.get(task.task_id)
                if record is not None and record.runnable:
                    break
                await asyncio.sleep(0.02)
            assert record is not None and record.losses == 1 and "Retrying" in (record.status_message or "")

    run(body)


def test_finished_tasks_survive_a_restart_of_the_server_with_the_sqlite_store(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"

    async def first() -> str:
        async with Client(_registry(store=url), protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("slow", {"seconds": 0})
            assert (await client.wait_for_task(task.task_id)).status == "completed"
            return task.task_id

    async def second(task_id: str) -> Task:
        async with Client(_registry(store=url), protocol="2026-07-28") as client:
            return await client.get_task(task_id)

    task_id = run(first)
    again = run(lambda: second(task_id))
    assert again.status == "completed" and again.result is not None and again.result.text == "slept 0"


def test_a_task_past_its_ttl_is_gone() -> None:
    async def body() -> None:
        async with Client(_registry(ttl_ms=60), protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("slow", {"seconds": 0})
            assert task.raw["ttlMs"] == 60
            await asyncio.sleep(0.1)
            with pytest.raises(ProtocolError) as gone:
                await client.get_task(task.task_id)
        assert gone.value.code == -32602

    run(body)


def test_a_bare_registry_handle_runs_an_optional_task_tool_directly_and_refuses_a_required_one() -> None:
    registry = _registry()
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"extensions": {EXTENSION: {}}},
    }

    def call(name: str, arguments: dict[str, Any]) -> Any:
        params = {"name": name, "arguments": arguments, "_meta": meta}
        return registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})

    assert call("slow", {"seconds": 0})["result"]["content"][0]["text"] == "slept 0"
    refused = call("fails", {})["error"]
    assert refused["code"] == -32603 and "while the server is serving" in refused["message"]


def test_a_hand_off_made_in_a_helper_is_warned_about_and_still_runs(caplog: pytest.LogCaptureFixture) -> None:
    registry = ToolRegistry("helper")

    async def go_on(ctx: Context) -> None:
        await ctx.continue_as_task()

    @registry.tool(task="optional")
    async def indirect(ctx: Context) -> str:
        await go_on(ctx)
        return "ran"

    async def body() -> Task:
        async with Client(registry, protocol="2026-07-28") as client:
            return await client.wait_for_task((await client.call_tool_as_task("indirect")).task_id)

    with caplog.at_level(logging.WARNING, logger="mcptools"):
        done = run(body)
    assert done.result is not None and done.result.text == "ran"
    assert "outside the tool's own body" in caplog.text


# -- subscriptions/listen -------------------------------------------------------------------------------------


@final
class _Stream(list[dict[str, Any]]):
    """The frames of a listen stream, as the transport appends them; ``on_ack`` starts the moment the
    acknowledgment arrives (no poll in between), so a change made right after it races the server's feed."""

    def __init__(self, on_ack: Callable[[], Coroutine[Any, Any, object]]) -> None:
        super().__init__()
        self.on_ack = on_ack
        self.reaction: asyncio.Future[object] | None = None

    def append(self, frame: dict[str, Any]) -> None:
        super().append(frame)
        if self.reaction is None:
            self.reaction = asyncio.ensure_future(self.on_ack())


def test_a_listen_stream_follows_the_tasks_it_names_and_needs_the_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    # Subscribing takes a while, as on Redis a first subscription takes a connection and a round trip: the stream
    # must not be acknowledged before its feed hears every change.
    subscribe = MemoryTaskStore.subscribe

    @asynccontextmanager
    async def slowly(store: MemoryTaskStore, *channels: str) -> AsyncIterator[Subscription]:
        await asyncio.sleep(0.05)
        async with subscribe(store, *channels) as subscription:
            yield subscription

    monkeypatch.setattr(MemoryTaskStore, "subscribe", slowly)

    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28", elicitation=_accept) as client:
            task = await client.call_tool_as_task("asks")
            while (await client.get_task(task.task_id)).status == "working":
                await asyncio.sleep(0.01)
            # The answer goes in as soon as the stream is acknowledged: a feed that subscribed only after the
            # acknowledgment went out would miss the change it makes.
            answer = {"a": {"action": "accept", "content": {"ok": True}}}
            seen = _Stream(lambda: client.update_task(task.task_id, answer))
            params = {"notifications": {"taskIds": [task.task_id, "unknown"]}}
            listen = asyncio.ensure_future(client._request("subscriptions/listen", params, seen, tasks=True))
            for _ in range(200):
                if len(seen) > 1:
                    break
                await asyncio.sleep(0.01)
            listen.cancel()
            with pytest.raises(ProtocolError) as undeclared:
                await client._request("subscriptions/listen", {"notifications": {"taskIds": [task.task_id]}})
        acknowledged, *changes = seen
        assert acknowledged["params"]["notifications"]["taskIds"] == [task.task_id]  # the unknown one left out
        assert changes and changes[0]["method"] == "notifications/tasks"
        assert changes[0]["params"]["taskId"] == task.task_id and changes[0]["params"]["status"] == "input_required"
        assert set(changes[0]["params"]["inputRequests"]) == {"b"}  # the whole task, as tasks/get shows it
        assert changes[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] is not None
        assert undeclared.value.code == -32021

    run(body)


def test_a_listen_stream_whose_store_cannot_subscribe_ends_with_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    async def body() -> None:
        async with Client(_registry(), protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("slow", {"seconds": 5})

            def unreachable(store: MemoryTaskStore, *channels: str) -> AbstractAsyncContextManager[Subscription]:
                raise ConnectionError("the store is unreachable")

            monkeypatch.setattr(MemoryTaskStore, "subscribe", unreachable)
            with pytest.raises(ProtocolError) as failed:
                await asyncio.wait_for(
                    client._request("subscriptions/listen", {"notifications": {"taskIds": [task.task_id]}}, tasks=True),
                    5,
                )
            monkeypatch.undo()
            await client.cancel_task(task.task_id)
        assert failed.value.code == -32603  # an internal error, never a stream left hanging unacknowledged

    run(body)


# -- one tool list for every replica ------------------------------------------------------------------------


def added_at_run_time() -> str:
    """A module-level function: every replica can import it, so adding it travels."""
    return "added"


async def _until(check: Callable[[], Awaitable[bool]], seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if await check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the condition never held")


def test_runtime_tool_changes_reach_the_other_replica_which_tells_its_own_clients(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first, second = _registry(store=url), _registry(store=url)

    async def names(client: Client) -> set[str]:
        return {tool["name"] for tool in await client.list_tools()}

    async def body() -> None:
        async with Client(first, protocol="2025-11-25") as one, Client(second, protocol="2025-11-25") as other:
            first.add(added_at_run_time, description="Added on one replica")

            async def listed_there() -> bool:
                return "added_at_run_time" in await names(other) and other.tool_list_changes >= 1

            await _until(listed_there)
            assert second.get("added_at_run_time").description == "Added on one replica"  # type: ignore[union-attr]
            first.disable("slow")
            await _until(lambda: _absent(second, "slow"))
            second.enable("slow")  # and back the other way
            await _until(lambda: _present(first, "slow"))
            first.remove("added_at_run_time")
            await _until(lambda: _absent(second, "added_at_run_time"))
            first.add(lambda: "here only", name="local_only")
            await asyncio.sleep(0.2)
            assert "local_only" in await names(one) and "local_only" not in await names(other)

    with caplog.at_level(logging.WARNING, logger="mcptools"):
        run(body)
    assert "tool 'local_only' was added on this replica only (no other process can import it)" in caplog.text


async def _absent(registry: ToolRegistry, name: str) -> bool:
    return registry.get(name) is None


async def _present(registry: ToolRegistry, name: str) -> bool:
    return registry.get(name) is not None


def test_two_replicas_changing_the_tool_list_at_once_both_reach_the_shared_document() -> None:
    from types import SimpleNamespace

    from mcptools._tasks.replicate import Replication

    shared = MemoryTaskStore()

    class Interleaving:
        """The memory store, letting the other replica run between a read and the write that follows it."""

        async def get_shared(self, name: str) -> tuple[Any, int] | None:
            found = await shared.get_shared(name)
            await asyncio.sleep(0)
            return found

        async def put_shared(self, name: str, value: Any, *, expected: int | None = None) -> int | None:
            return await shared.put_shared(name, value, expected=expected)

    store = Interleaving()
    one, other = (Replication(_registry(), SimpleNamespace(store=store)) for _ in range(2))

    async def body() -> Any:
        await asyncio.gather(
            one._record({"op": "disable", "names": ["plain"], "tags": []}),
            other._record({"op": "disable", "names": ["slow"], "tags": ["beta"]}),
        )
        return await store.get_shared("tools")

    document, revision = asyncio.run(body())
    # Both read revision 0; the second write was refused and folded again into the first's document.
    assert (document["disabled_names"], document["disabled_tags"], revision) == (["plain", "slow"], ["beta"], 2)


def test_a_replica_starting_later_applies_the_changes_made_before_it(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'shared.db'}"
    first = _registry(store=url)

    async def body() -> set[str]:
        async with Client(first, protocol="2026-07-28"):
            first.add(added_at_run_time)
            first.disable("plain")
            store = first.task_service.store
            assert store is not None

            async def written() -> bool:
                found = await store.get_shared("tools")
                return found is not None and found[0]["disabled_names"] == ["plain"]

            await _until(written)
        late = _registry(store=url)
        async with Client(late, protocol="2026-07-28") as client:
            return {tool["name"] for tool in await client.list_tools()}

    listed = run(body)
    assert "added_at_run_time" in listed and "plain" not in listed and "slow" in listed


def test_mcptools_worker_refuses_a_store_it_cannot_share_and_a_target_without_task_tools(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from mcptools._cli import main

    monkeypatch.setattr(sys, "argv", list(sys.argv))  # the command gives the target its own sys.argv
    assert main(["worker", "tests/tasks_app.py"]) == 2
    assert "a worker needs the store its servers use, shared: --task-store" in capsys.readouterr().err
    assert main(["worker", "tests/tasks_app.py", "--task-store", "ftp://nowhere"]) == 2
    assert "--task-store must be a URL: memory://, sqlite:///path/tasks.db or redis://" in capsys.readouterr().err
    store = f"sqlite:///{tmp_path / 'tasks.db'}"
    assert main(["worker", "examples/weather.py", "--task-store", store]) == 2
    assert "has no tool with task=...; there is nothing to run" in capsys.readouterr().err


def test_a_server_stopping_gives_its_running_tasks_back_for_the_next_to_run(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'tasks.db'}"

    async def stopped_mid_run() -> str:
        registry = _registry(store=url)
        async with Client(registry, protocol="2026-07-28") as client:
            task = await client.call_tool_as_task("slow", {"seconds": 0.1})
            store = registry.task_service.store
            assert store is not None
            await _until(lambda: _claimed(store, task.task_id))
        return task.task_id  # the client's exit stopped the server, its worker mid-run

    async def next_server(task_id: str) -> Task:
        async with Client(_registry(store=url), protocol="2026-07-28") as client:
            return await client.wait_for_task(task_id)

    task_id = run(stopped_mid_run)
    done = run(lambda: next_server(task_id))
    assert done.status == "completed" and done.result is not None and done.result.text == "slept 0.1"


async def _claimed(store: Any, task_id: str) -> bool:
    record = await store.get(task_id)
    return record is not None and record.owner is not None


def test_mcptools_call_runs_a_tool_that_runs_only_as_a_task_as_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import sys

    from mcptools._cli import main

    monkeypatch.setattr(sys, "argv", list(sys.argv))
    assert main(["call", "tests/tasks_app.py", "stamp"]) == 0
    assert f"stamped in process {os.getpid()}" in capsys.readouterr().out
