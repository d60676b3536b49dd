"""What a tool written for the peers returns, on every entry (issue 18): a sync tool's returned coroutine is awaited,
and a value that cannot be sent is an error result naming its type, never a repr sent as a success."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest

from mcptools import Context, ToolRegistry
from mcptools.testing import SyncClient

# -- what a tool returns ---------------------------------------------------------------------------------------


def _awaiting_registry(saved: list[str]) -> ToolRegistry:
    registry = ToolRegistry("awaits")

    async def save(name: str) -> str:
        await asyncio.sleep(0)
        saved.append(name)
        return f"saved {name}"

    @registry.tool
    def create(name: str):  # type: ignore[no-untyped-def]  # the peers' habit: the sync tool returns the coroutine
        return save(name)

    @registry.tool(timeout=10)
    def create_timed(name: str):  # type: ignore[no-untyped-def]
        return save(name)

    return registry


def _call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def test_a_returned_coroutine_is_awaited_on_every_entry(recwarn: pytest.WarningsRecorder) -> None:
    from mcptools.providers import openai as p_openai

    saved: list[str] = []
    registry = _awaiting_registry(saved)
    assert registry.handle(_call("create", {"name": "a"}))["result"]["content"][0]["text"] == "saved a"  # type: ignore[index]
    assert registry.handle(_call("create_timed", {"name": "b"}))["result"]["content"][0]["text"] == "saved b"  # type: ignore[index]
    reply = asyncio.run(registry.handle_async(_call("create", {"name": "c"})))
    assert reply is not None and reply["result"]["content"][0]["text"] == "saved c"
    with SyncClient(registry) as client:  # the in-memory connection: the transport loop stdio and SSE share
        assert client.call_tool("create", {"name": "d"}).text == "saved d"
    turn = {"type": "function_call", "call_id": "1", "name": "create", "arguments": '{"name": "e"}'}
    [output] = p_openai.run(registry, [turn])
    assert output["output"] == "saved e"
    assert saved == ["a", "b", "c", "d", "e"]
    assert not [warning for warning in recwarn if "never awaited" in str(warning.message)]


class _Opaque:
    pass


class _Named:
    def __str__(self) -> str:
        return "a named thing"


def test_what_cannot_be_sent_is_an_error_naming_the_type_never_a_repr_sent_as_success(
    recwarn: pytest.WarningsRecorder,
) -> None:
    registry = ToolRegistry("results")

    async def later() -> str:
        return "late"

    @registry.tool
    async def forgot_await():  # type: ignore[no-untyped-def]
        return later()

    @registry.tool
    def opaque():  # type: ignore[no-untyped-def]
        return _Opaque()

    @registry.tool
    def nested():  # type: ignore[no-untyped-def]
        return {"thing": _Opaque()}

    @registry.tool
    def named():  # type: ignore[no-untyped-def]
        return _Named()

    def result(name: str) -> tuple[bool, str]:
        reply = registry.handle(_call(name, {}))
        assert reply is not None
        return reply["result"]["isError"], reply["result"]["content"][0]["text"]

    assert result("forgot_await") == (
        True,
        "Tool 'forgot_await' returned output that cannot be sent as a result: a coroutine has no JSON form; it is "
        "awaitable: await it inside the tool",
    )
    assert not [warning for warning in recwarn if "never awaited" in str(warning.message)]
    assert result("opaque") == (
        True,
        "Tool 'opaque' returned output that cannot be sent as a result: a test_dropin._Opaque has no JSON form",
    )
    assert result("nested") == (
        True,
        "Tool 'nested' returned output that cannot be sent as a result: a test_dropin._Opaque at thing has no JSON "
        "form",
    )
    assert result("named") == (False, "a named thing")  # text its class chose, as the peers send it


def test_the_sdk_tool_annotations_model_is_read_in_its_wire_form() -> None:
    from mcp_types import ToolAnnotations

    registry = ToolRegistry("annotated")

    @registry.tool(annotations=ToolAnnotations(title="Drop", read_only_hint=False, destructive_hint=True))
    def drop(table: str) -> str:
        return table

    [listed] = registry.list_tools()
    assert listed["annotations"] == {"title": "Drop", "readOnlyHint": False, "destructiveHint": True}


def test_request_context_lifespan_context_is_the_lifespans_state() -> None:
    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[dict[str, int]]:
        yield {"count": 3}

    registry = ToolRegistry("state", lifespan=lifespan)

    @registry.tool
    def count(ctx: Context) -> str:
        request = ctx.request_context  # the peers' spelling of ctx.state and ctx.request_id
        return f"{request.lifespan_context['count']} for {request.request_id}"

    async def scenario() -> dict[str, Any] | None:
        async with registry.running():
            return await registry.handle_async(_call("count", {}))

    reply = asyncio.run(scenario())
    assert reply is not None and reply["result"]["content"][0]["text"] == "3 for 1"
