"""``subscriptions/listen`` (2026-07-28): the acknowledgment comes first, every frame carries the subscription id,
each change of the tool list (from any thread) is one frame, and the stream ends by cancellation (no response)
or gracefully (a ``complete`` result) when the session closes or the server stops."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from memory_support import MemoryClient, Stream

from mcptools import ToolRegistry
from mcptools._call import Mode
from mcptools._protocol.revisions import META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION
from mcptools._protocol.session import Session

TAG = "io.modelcontextprotocol/subscriptionId"
META = {
    META_PROTOCOL_VERSION: "2026-07-28",
    META_CLIENT_CAPABILITIES: {},
    META_CLIENT_INFO: {"name": "test", "version": "0"},
}


def _registry() -> ToolRegistry:
    registry = ToolRegistry("listen-test")

    @registry.tool
    def first() -> str:
        return "first"

    return registry


def _listen(request_id: Any = "listen-1", notifications: Any = None) -> dict[str, Any]:
    params = {"_meta": META, "notifications": {"toolsListChanged": True} if notifications is None else notifications}
    return {"jsonrpc": "2.0", "id": request_id, "method": "subscriptions/listen", "params": params}


class Frames:
    """The listen stream as the client receives it."""

    def __init__(self) -> None:
        self.frames: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()

    async def send(self, message: dict[str, Any]) -> None:
        self.frames.append(message)
        self.arrived.set()

    async def until(self, count: int) -> None:
        while len(self.frames) < count:
            self.arrived.clear()
            await asyncio.wait_for(self.arrived.wait(), 5)


def _change_from_a_thread(registry: ToolRegistry, name: str) -> None:
    def tool() -> str:
        return name

    worker = threading.Thread(target=lambda: registry.add(tool, name=name))
    worker.start()
    worker.join()


def test_acknowledged_first_then_one_tagged_frame_per_change_then_a_graceful_end() -> None:
    registry = _registry()

    async def run() -> None:
        frames = Frames()
        session = Session(peer="stdio")
        serving = asyncio.ensure_future(registry.engine.handle(_listen(), session, Stream(frames.send)))
        await frames.until(1)
        ack = frames.frames[0]
        assert ack["method"] == "notifications/subscriptions/acknowledged"
        assert ack["params"] == {"_meta": {TAG: "listen-1"}, "notifications": {"toolsListChanged": True}}
        registry.disable("first")
        await frames.until(2)
        _change_from_a_thread(registry, "second")  # a sync tool changing the list runs in a worker thread
        await frames.until(3)
        for frame in frames.frames[1:]:
            assert frame == {
                "jsonrpc": "2.0",
                "method": "notifications/tools/list_changed",
                "params": {"_meta": {TAG: "listen-1"}},
            }
        session.close(cancel_running=False)  # stdio at end of input
        response = await asyncio.wait_for(serving, 5)
        assert response == {
            "jsonrpc": "2.0",
            "id": "listen-1",
            "result": {"resultType": "complete", "_meta": {TAG: "listen-1"}},
        }

    asyncio.run(run())


def test_the_acknowledgment_names_only_what_is_honoured_and_such_a_stream_gets_no_tool_frames() -> None:
    registry = _registry()

    async def run() -> None:
        frames = Frames()
        wanted = {"promptsListChanged": True, "resourceSubscriptions": ["file:///x"]}
        serving = asyncio.ensure_future(registry.engine.handle(_listen(7, wanted), Session(), Stream(frames.send)))
        await frames.until(1)
        assert frames.frames[0]["params"] == {"_meta": {TAG: 7}, "notifications": {}}
        registry.disable("first")
        await asyncio.sleep(0.05)
        assert len(frames.frames) == 1
        registry.engine.listeners.close()  # the server stops: every stream ends with its result
        response = await asyncio.wait_for(serving, 5)
        assert response is not None and response["result"] == {"resultType": "complete", "_meta": {TAG: 7}}

    asyncio.run(run())


def test_a_client_cancellation_ends_the_stream_without_a_response() -> None:
    registry = _registry()

    async def run() -> None:
        frames = Frames()
        session = Session(peer="stdio")
        serving = asyncio.ensure_future(registry.engine.handle(_listen(3), session, Stream(frames.send)))
        await frames.until(1)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
        assert await registry.engine.handle(cancel, session, Stream(frames.send)) is None
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(serving, 5)
        registry.disable("first")  # nobody listens any more: nothing is sent
        await asyncio.sleep(0.05)
        assert len(frames.frames) == 1
        assert not registry.engine.listeners._open

    asyncio.run(run())


def test_listen_is_refused_where_no_stream_can_stay_open_and_checks_its_filter() -> None:
    registry = _registry()
    refused = registry.handle(_listen(1))
    assert refused is not None and refused["error"]["code"] == -32600
    assert (
        refused["error"]["message"]
        == "Invalid Request: subscriptions/listen needs a streaming transport (stdio or HTTP)"
    )
    # Without _meta (no revision named) and on a 2025 session the method does not exist.
    bare = registry.handle({"jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {}})
    assert bare is not None and bare["error"]["message"] == "Method not found: subscriptions/listen"

    async def run() -> None:
        client = MemoryClient(registry)
        await client.initialize()
        legacy = await client.request("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
        assert legacy is not None and legacy["error"]["message"] == "Method not found: subscriptions/listen"
        wrong = await registry.engine.handle(_listen(4, ["toolsListChanged"]), Session(), Stream(Frames().send))
        assert wrong is not None and wrong["error"] == {
            "code": -32602,
            "message": "Invalid params: 'notifications' must be an object",
        }

    asyncio.run(run())


def test_a_list_that_scopes_make_differ_per_caller_is_cached_privately() -> None:
    from mcptools.auth import Principal

    registry = _registry()

    async def listed(scopes: frozenset[str], *, enforced: bool = True) -> dict[str, Any]:
        principal = Principal("someone", scopes=scopes) if enforced else None
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}
        response = await registry.engine.handle(message, Session(), Stream(Frames().send), Mode.STATELESS, principal)
        assert response is not None
        result: dict[str, Any] = response["result"]
        return result

    # Everyone sees the same list: any cache may keep it.
    assert asyncio.run(listed(frozenset()))["cacheScope"] == "public"

    @registry.tool(scopes=["admin"])
    def drop() -> str:
        return "dropped"

    admin, plain = asyncio.run(listed(frozenset({"admin"}))), asyncio.run(listed(frozenset()))
    assert [tool["name"] for tool in admin["tools"]] == ["first", "drop"] and admin["cacheScope"] == "private"
    assert [tool["name"] for tool in plain["tools"]] == ["first"] and plain["cacheScope"] == "private"
    assert admin["ttlMs"] == plain["ttlMs"] == 0  # a live list: revalidate every time
    # Without authorization scopes are not enforced: one list for everyone.
    assert asyncio.run(listed(frozenset(), enforced=False))["cacheScope"] == "public"


def test_a_second_listen_under_an_id_in_flight_is_refused() -> None:
    # The id names the subscription on stdio's one channel: two streams under it could not be told apart, and a
    # cancellation reached only the second, leaving the first uncancellable until end of input.
    registry = _registry()

    async def run() -> None:
        frames = Frames()
        session = Session(peer="stdio")
        serving = asyncio.ensure_future(registry.engine.handle(_listen(3), session, Stream(frames.send)))
        await frames.until(1)
        again = await asyncio.wait_for(registry.engine.handle(_listen(3), session, Stream(frames.send)), 5)
        assert again == {
            "jsonrpc": "2.0",
            "id": 3,
            "error": {"code": -32600, "message": "Invalid Request: id 3 is already in use by a request in flight"},
        }
        assert len(frames.frames) == 1 and len(registry.engine.listeners._open) == 1
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}}
        await registry.engine.handle(cancel, session, Stream(frames.send))
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(serving, 5)
        assert not registry.engine.listeners._open

    asyncio.run(run())
