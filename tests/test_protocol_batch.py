"""JSON-RPC batches: served on 2025-03-26 sessions (that revision MUST accept them), refused everywhere else."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from memory_support import MemoryClient, Stream

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._protocol.engine import Engine
from mcptools._protocol.session import Session


def make_registry(gate: asyncio.Event | None = None) -> ToolRegistry:
    registry = ToolRegistry("batch-test")

    @registry.tool
    def echo(text: str) -> str:
        return text

    @registry.tool
    async def wait_for_open() -> str:
        assert gate is not None
        await gate.wait()
        return "opened"

    @registry.tool
    async def open_gate() -> str:
        assert gate is not None
        gate.set()
        return "set"

    @registry.tool
    async def ask_name(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        return f"hi {answer['content']['n']}"

    @registry.tool
    async def sleepy(ctx: Context) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            assert ctx.cancelled
            raise
        return "woke"

    return registry


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 10))


def call(request_id: int | str, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


async def session_at(registry: ToolRegistry, version: str, **options: Any) -> MemoryClient:
    client = MemoryClient(registry, **options)
    response = await client.initialize(version)
    assert response is not None and response["result"]["protocolVersion"] == version
    return client


def test_a_batch_gets_the_array_of_its_responses_in_order() -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), "2025-03-26")
        return await client.send_batch(
            [
                call(1, "echo", {"text": "a"}),
                {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": 1}},
                {"jsonrpc": "2.0", "id": "two", "method": "ping"},
                {"jsonrpc": "2.0", "id": 3, "result": {}},  # a response nobody waits for: ignored
                call(4, "echo", {"text": 5}),
                5,
                {"jsonrpc": "2.0", "id": 6, "method": "resources/list"},
            ]
        )

    responses = run(scenario())
    assert isinstance(responses, list)
    assert [r["id"] for r in responses] == [1, "two", 4, None, 6]
    assert responses[0]["result"] == {"content": [{"type": "text", "text": "a"}], "isError": False}
    assert responses[1] == {"jsonrpc": "2.0", "id": "two", "result": {}}
    assert responses[2]["result"]["isError"] is True
    assert responses[3]["error"]["code"] == -32600
    assert responses[4]["error"]["code"] == -32601


def test_a_batch_of_notifications_and_responses_owes_nothing() -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), "2025-03-26")
        answer = await client.send_batch(
            [
                {"jsonrpc": "2.0", "method": "notifications/initialized"},
                {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}},
                {"jsonrpc": "2.0", "id": "s-9", "result": {}},
            ]
        )
        return answer, client.session.initialized

    assert run(scenario()) == (None, True)


@pytest.mark.parametrize(
    ("batch", "words"),
    [
        ([], "empty"),
        (
            [
                {"jsonrpc": "2.0", "id": 1, "method": "ping"},
                {"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}},
            ],
            "initialize must not be part of a JSON-RPC batch",
        ),
    ],
)
def test_empty_batches_and_initialize_inside_one_are_refused_whole(batch: list[Any], words: str) -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), "2025-03-26")
        return await client.send_batch(batch)

    response = run(scenario())
    assert isinstance(response, dict)
    assert response["id"] is None and response["error"]["code"] == -32600
    assert words in response["error"]["message"]


@pytest.mark.parametrize("version", ["2025-06-18", "2025-11-25"])
def test_later_revisions_removed_batching(version: str) -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), version)
        return await client.send_batch([{"jsonrpc": "2.0", "id": 1, "method": "ping"}])

    response = run(scenario())
    assert response == {"jsonrpc": "2.0", "id": None, "error": response["error"]}
    assert response["error"]["code"] == -32600
    assert f"protocol revision {version}" in response["error"]["message"]


def test_without_a_session_a_batch_is_refused_and_handle_refuses_arrays_too() -> None:
    registry = make_registry()
    batch = [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]
    refused = run(Engine(registry).handle_batch(batch, Session()))
    assert isinstance(refused, dict) and refused["error"]["code"] == -32600
    assert "2025-03-26" in refused["error"]["message"]
    through_handle = run(registry.handle_async(batch))
    assert through_handle is not None and through_handle["error"]["code"] == -32600
    assert "batches" in through_handle["error"]["message"]
    synchronous = registry.handle(batch)
    assert synchronous is not None and synchronous["error"]["code"] == -32600


def test_a_batch_inside_a_batch_is_an_invalid_member() -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), "2025-03-26")
        return await client.send_batch(
            [[{"jsonrpc": "2.0", "id": 1, "method": "ping"}], call(2, "echo", {"text": "a"})]
        )

    nested, echoed = run(scenario())
    assert nested == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request: a batch member cannot be a batch itself"},
    }
    assert echoed["id"] == 2 and echoed["result"]["isError"] is False


def test_members_run_concurrently() -> None:
    # The first member waits for the second to open the gate: served one after the other, it never would.
    async def scenario() -> Any:
        gate = asyncio.Event()
        client = await session_at(make_registry(gate), "2025-03-26")
        return await client.send_batch([call(1, "wait_for_open"), call(2, "open_gate")])

    responses = run(scenario())
    assert [r["result"]["content"][0]["text"] for r in responses] == ["opened", "set"]


def test_a_batched_call_can_ask_the_client_and_be_answered_by_a_batched_response() -> None:
    async def scenario() -> Any:
        registry = make_registry()
        client = await session_at(registry, "2025-03-26", capabilities={"elicitation": {}})
        asked: list[dict[str, Any]] = []

        async def capture(message: dict[str, Any]) -> None:
            asked.append(message)

        pending = asyncio.ensure_future(
            client.engine.handle_batch(
                [call(1, "ask_name"), call(2, "echo", {"text": "x"})], client.session, Stream(capture)
            )
        )
        while not asked:
            await asyncio.sleep(0.001)
        [question] = asked
        assert question["method"] == "elicitation/create"
        reply = {"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"n": "Ada"}}}
        assert await client.send_batch([reply]) is None
        return await pending

    responses = run(scenario())
    assert [r["result"]["content"][0]["text"] for r in responses] == ["hi Ada", "x"]


def test_a_batched_call_can_be_cancelled_by_its_id() -> None:
    async def scenario() -> Any:
        client = await session_at(make_registry(), "2025-03-26")
        pending = asyncio.ensure_future(
            client.send_batch([call("slow", "sleepy"), call("fast", "echo", {"text": "f"})])
        )
        await asyncio.sleep(0.05)
        await client.send_raw({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "slow"}})
        return await pending

    # The cancelled member is owed no response; the other one still is.
    assert [r["id"] for r in run(scenario())] == ["fast"]


# -- what one batch may cause ----------------------------------------------------------------------------


def test_a_batch_past_the_entry_limit_is_refused_whole_with_an_error_for_each_request_id() -> None:
    from mcptools._protocol.request_rules import MAX_BATCH_ENTRIES

    served: list[str] = []
    registry = make_registry()

    @registry.tool
    def note(text: str) -> str:
        served.append(text)
        return text

    limit = [call(n, "note", {"text": str(n)}) for n in range(MAX_BATCH_ENTRIES)]
    past = [*limit, {"jsonrpc": "2.0", "method": "notifications/initialized"}, "junk"]

    async def scenario() -> tuple[Any, Any]:
        client = await session_at(registry, "2025-03-26")
        refused = await client.send_batch(past)
        answered = await client.send_batch(limit)
        # A long batch of members that owe no matched answer (invalid ones) is one error, not one each.
        assert await client.send_batch([{}] * 100_000) == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {
                "code": -32600,
                "message": f"Invalid Request: a batch of 100000; the limit is {MAX_BATCH_ENTRIES}",
            },
        }
        return refused, answered

    refused, answered = run(scenario())
    # Nothing of the refused batch ran; every request in it has its error (what owes no answer gets none).
    assert [r["id"] for r in refused] == list(range(MAX_BATCH_ENTRIES))
    assert {r["error"]["code"] for r in refused} == {-32600}
    assert f"the limit is {MAX_BATCH_ENTRIES}" in refused[0]["error"]["message"]
    assert sorted(served, key=int) == [str(n) for n in range(MAX_BATCH_ENTRIES)]  # the second batch, once
    assert [r["id"] for r in answered] == list(range(MAX_BATCH_ENTRIES))


def test_responses_past_the_batch_budget_become_errors_for_their_ids() -> None:
    from mcptools._protocol.request_rules import MAX_BATCH_RESPONSE_BYTES

    registry = make_registry()
    size = MAX_BATCH_RESPONSE_BYTES // 3

    @registry.tool
    def big(n: int) -> str:
        return "x" * size

    async def scenario() -> Any:
        client = await session_at(registry, "2025-03-26")
        return await client.send_batch([call(n, "big", {"n": n}) for n in range(5)])

    responses = run(scenario())
    assert sorted(r["id"] for r in responses) == list(range(5))
    results = [r for r in responses if "result" in r]
    refused = [r for r in responses if "error" in r]
    assert len(results) == 2 and len(refused) == 3  # two thirds fit, the third pushes past the budget
    assert all("one at a time" in r["error"]["message"] for r in refused)
