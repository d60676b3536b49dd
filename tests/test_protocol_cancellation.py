"""Cancellation and the event loop: a cancelled call gets no response, its tool sees the flag, and sync tools
never block the loop.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from memory_support import MemoryClient
from protocol_support import make_registry, run

from mcptools import ToolRegistry
from mcptools._context import Context


@pytest.fixture
def registry() -> ToolRegistry:
    return make_registry()


def test_cancellation_stops_the_call_and_sends_no_response() -> None:
    registry = ToolRegistry("cancel")
    seen: list[str] = []

    @registry.tool
    async def slow(ctx: Context) -> str:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            seen.append(f"cancelled={ctx.cancelled}")
            raise
        return "finished"

    async def scenario() -> Any:
        client = MemoryClient(registry)
        await client.initialize()
        call = asyncio.ensure_future(client.request("tools/call", {"name": "slow"}, request_id="r1"))
        await asyncio.sleep(0.05)
        await client.send_raw(
            {
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": "r1", "reason": "x"},
            }
        )
        return await call

    assert run(scenario()) is None
    assert seen == ["cancelled=True"]


def test_sync_tools_run_off_the_event_loop_thread(registry: ToolRegistry) -> None:
    client = MemoryClient(registry)

    async def scenario() -> tuple[str, Any]:
        response = await client.stateless("tools/call", {"name": "thread_name"})
        return threading.current_thread().name, response

    loop_thread, response = run(scenario())
    assert response["result"]["content"][0]["text"] != loop_thread


def test_a_sync_tool_with_a_context_sees_the_cancellation_from_its_thread() -> None:
    import time

    registry = ToolRegistry("cancel-sync")
    started = threading.Event()
    saw: list[bool] = []

    @registry.tool
    def crunch(ctx: Context) -> str:
        started.set()
        deadline = time.monotonic() + 5
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        saw.append(ctx.cancelled)
        return "stopped" if ctx.cancelled else "ran out"

    async def scenario() -> Any:
        client = MemoryClient(registry)
        await client.initialize()
        pending = asyncio.ensure_future(client.request("tools/call", {"name": "crunch"}, request_id=5))
        while not started.is_set():
            await asyncio.sleep(0.005)
        await client.send_raw({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
        response = await pending
        while not saw:  # the thread cannot be stopped, only told: wait for it to notice
            await asyncio.sleep(0.005)
        return response

    assert run(scenario()) is None
    assert saw == [True]


def test_a_sync_tool_through_handle_async_leaves_the_loop_free() -> None:
    # The tool waits for the loop to flip an event: were it run on the loop, the loop could never do it.
    registry = ToolRegistry("loop")
    flipped = threading.Event()

    @registry.tool
    def wait_for_the_loop() -> str:
        return "free" if flipped.wait(timeout=5) else "blocked"

    async def flip_soon() -> None:
        await asyncio.sleep(0.02)
        flipped.set()

    async def scenario() -> Any:
        flipper = asyncio.ensure_future(flip_soon())
        response = await registry.handle_async(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "wait_for_the_loop"}}
        )
        await flipper
        return response

    assert run(scenario())["result"]["content"][0]["text"] == "free"


def test_a_call_the_transport_abandons_is_cancelled_for_the_tool_too() -> None:
    # A stateless HTTP client that disconnects: the transport cancels the handling task, not the client.
    import time

    registry = ToolRegistry("abandon")
    started = threading.Event()
    saw: list[bool] = []

    @registry.tool
    def crunch(ctx: Context) -> str:
        started.set()
        deadline = time.monotonic() + 5
        while not ctx.cancelled and time.monotonic() < deadline:
            time.sleep(0.005)
        saw.append(ctx.cancelled)
        return "done"

    async def scenario() -> None:
        client = MemoryClient(registry)
        handling = asyncio.ensure_future(client.stateless("tools/call", {"name": "crunch"}))
        while not started.is_set():
            await asyncio.sleep(0.005)
        handling.cancel()
        with pytest.raises(asyncio.CancelledError):
            await handling
        while not saw:
            await asyncio.sleep(0.005)

    run(scenario())
    assert saw == [True]
