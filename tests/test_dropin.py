"""A server written for FastMCP runs on mcptools with its import line changed alone (issue 18).

``tests/peer_server.py`` is written the way the surveyed public servers are; here it is served to the official
client over stdio (by its own ``mcp.run()``), and over Streamable HTTP and the deprecated HTTP+SSE transport at once
(``mcp.run(transport="sse")``: one app serves both), and the same calls give the same answers on each: good calls
their results, raising tools their message, a sync tool's returned coroutine awaited (its write is seen by the
next call), bad arguments our one line. Then, in-process: the constructor's settings and ``run()``'s, what a tool
returns on every entry, the SDK's annotations model, ``ctx.request_context``, and ``json_response``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from hostile_support import Served
from http_support import LATEST, META, call, run

from mcptools import Context, ToolRegistry, UsageError
from mcptools._options import resolve
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools.testing import SyncClient

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402
from mcp.client.sse import sse_client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

SERVER = Path(__file__).resolve().parent / "peer_server.py"


def _text(result: Any) -> str:
    [block] = result.content
    text: str = block.text
    return text


async def _exercise(client: Client, *, legacy: bool = True) -> None:
    assert client.instructions == "Ages of people; add_person adds one."
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == {"age", "add_person", "oldest", "shout"}
    added = tools["add_person"]
    assert added.annotations is not None and added.annotations.destructive_hint is False
    assert added.input_schema["properties"]["note"]["type"] == ["string", "null"]
    assert "ctx" not in added.input_schema["properties"] and "ctx" not in tools["age"].input_schema["properties"]
    assert tools["oldest"].input_schema["properties"]["limit"] == {"default": 1}

    assert _text(await client.call_tool("age", {"name": "ada"})) == "36"
    unknown = await client.call_tool("age", {"name": "zed"})
    assert unknown.is_error
    assert _text(unknown) == "Tool 'age' failed: ValueError: No person named 'zed'; known: ada, bob"
    # The sync tool returned its implementation's coroutine: awaited, so the person is there for the next call.
    assert _text(await client.call_tool("add_person", {"name": "cy", "age": 41, "note": "new"})) == "added cy (new)"
    assert _text(await client.call_tool("age", {"name": "cy"})) == "41"
    assert (await client.call_tool("oldest", {"limit": 2})).structured_content == {"result": ["ada", "bob"]}
    refused = await client.call_tool("oldest", {"limit": 0})
    assert refused.is_error and _text(refused) == "Tool 'oldest' failed: ValueError: limit must be at least 1"
    spoken = await client.call_tool("oldest", {"limit": 3})
    assert spoken.is_error and _text(spoken) == "only two people are known"
    missing = await client.call_tool("age", {})
    assert missing.is_error and _text(missing) == "Invalid arguments: missing required property 'name'"
    assert _text(await client.call_tool("shout", {"text": "hi"})) == "HI"


def test_a_peer_style_server_over_stdio_with_its_own_run() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(SERVER)])

    async def run() -> None:
        async with Client(params, mode="legacy") as client:
            await _exercise(client)

    asyncio.run(asyncio.wait_for(run(), 60))


def test_a_peer_style_server_over_sse_and_streamable_http_from_one_run_sse() -> None:
    # The port comes the way the surveyed servers give it: FastMCP(port=int(os.environ[...])), then run("sse").
    served = Served(command=[sys.executable, str(SERVER), "sse"])
    served.env = {**os.environ, "PEOPLE_PORT": str(served.port)}
    with served:
        process, port = served.process, served.port
        assert process is not None

        async def run() -> int:
            async with Client(sse_client(f"http://127.0.0.1:{port}/sse"), mode="legacy") as client:
                assert client.protocol_version == "2025-11-25"
                await _exercise(client)
                # The same process serves Streamable HTTP beside it, to a 2026-07-28 client too.
                async with Client(f"http://127.0.0.1:{port}/mcp", mode="auto") as modern:
                    assert modern.protocol_version == "2026-07-28"
                    assert _text(await modern.call_tool("age", {"name": "cy"})) == "41"  # one lifespan for both
                    failed = await modern.call_tool("oldest", {"limit": -1})
                    assert _text(failed) == "Tool 'oldest' failed: ValueError: limit must be at least 1"
                # Stopping while the event stream is open: the server ends the stream instead of waiting for the
                # client to leave (uvicorn's graceful shutdown would wait for it forever).
                process.send_signal(signal.SIGTERM)
                return await asyncio.to_thread(process.wait, 20)

        assert asyncio.run(asyncio.wait_for(run(), 60)) in (0, -signal.SIGTERM)
    said = served.errors()
    assert f"serving 'people' on http://127.0.0.1:{port}/sse (HTTP+SSE, deprecated" in said
    assert "dependencies=['sqlite-utils'] is ignored" in said


# -- the constructor's settings and run() ------------------------------------------------------------------------


def test_constructor_settings_are_run_defaults_the_ignored_ones_said_once(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="mcptools"):
        registry = ToolRegistry("s", host="0.0.0.0", port=8017, dependencies=["gitpython"], stateless_http=True)
    said = [record.getMessage() for record in caplog.records]
    assert len(said) == 2 and said[0].startswith("ToolRegistry('s'): dependencies=['gitpython'] is ignored: ")
    assert said[1].startswith("ToolRegistry('s'): stateless_http=True is ignored: ")
    assert registry.settings.given() == {"host": "0.0.0.0", "port": 8017}
    registry.settings.port = 9000  # the peers' mcp.settings.port = ...
    assert registry.settings.port == 9000 and registry.settings.path is None  # never given: its default
    defaults = registry.settings.given()
    # Defaults for HTTP, and no complaint when the same server runs stdio (excel's FastMCP(host=, port=) + stdio).
    assert resolve("http", {}, defaults)["port"] == 9000
    assert resolve("http", {"port": 1234}, defaults)["port"] == 1234  # what run() is given wins
    assert resolve("stdio", {}, defaults)["host"] == "0.0.0.0"
    with pytest.raises(UsageError, match=r"^port applies to HTTP only"):
        resolve("stdio", {"port": 1234}, defaults)


def test_an_unknown_setting_is_an_error_naming_the_known_ones() -> None:
    # A misspelt keyword of the constructor's own is named among them, not only among the serving options.
    known = r"it takes instructions, version, website_url, .*, and the serving options host, port, path,"
    with pytest.raises(UsageError, match=r"^ToolRegistry\('s'\): unknown setting 'verison'; " + known):
        ToolRegistry("s", verison="1.0")  # type: ignore[call-arg]
    registry = ToolRegistry("s")
    with pytest.raises(UsageError, match=r"unknown setting 'prot'; the options are host, port, path,"):
        registry.settings.prot = 1
    transports = "'stdio', 'http', 'streamable-http', 'sse'"
    with pytest.raises(UsageError, match=r"^registry.run: transport must be one of " + transports):
        registry.run("websocket")  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=r"neither stateless nor several workers"):
        registry.run("sse", workers=2)
    with pytest.raises(UsageError, match=r"auth= takes mcptools.auth.AuthSettings"):
        registry.run("http", auth=object())  # type: ignore[arg-type]


def test_serve_takes_the_transport_by_name_and_refuses_two_that_disagree(capsys: pytest.CaptureFixture[str]) -> None:
    from mcptools._cli import _parser, main

    argv = ["serve", "app.py", "--transport", "streamable-http", "--path", "/api", "--json-response"]
    args = _parser().parse_args(argv)
    assert (args.transport, args.path, args.json_response) == ("streamable-http", "/api", True)
    assert main(["serve", "app.py", "--http", "--transport", "sse"]) == 2
    assert capsys.readouterr().err == "mcptools: --http and --transport sse disagree; give one of them\n"


def test_website_url_and_icons_are_in_server_info() -> None:
    registry = ToolRegistry("s", website_url="https://example.com", icons=[{"src": "https://example.com/i.png"}])
    params = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}
    reply = registry.handle({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    assert reply is not None
    assert reply["result"]["serverInfo"] == {
        "name": "s",
        "version": "0.1.0",
        "websiteUrl": "https://example.com",
        "icons": [{"src": "https://example.com/i.png"}],
    }
    oldest = registry.handle(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {**params, "protocolVersion": "2025-03-26"}}
    )
    assert oldest is not None and oldest["result"]["serverInfo"] == {"name": "s", "version": "0.1.0"}  # 2025-11-25's


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


def test_json_response_answers_a_streaming_tool_with_one_json_body() -> None:
    registry = ToolRegistry("json")

    @registry.tool
    async def progressing(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        return "done"

    meta = {**META, "progressToken": "p"}
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "progressing", "_meta": meta}}
    headers = {"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "progressing"}
    streamed = run(call(StreamableHTTPApp(registry), body=body, headers=headers))
    assert streamed.headers["content-type"] == "text/event-stream"
    answered = run(call(StreamableHTTPApp(registry, json_response=True), body=body, headers=headers))
    assert answered.headers["content-type"] == "application/json"
    assert answered.json()["result"]["content"][0]["text"] == "done"


def test_fastapi_runs_the_registrys_lifespan_through_mcp_app_lifespan_as_fastmcp_writes_it() -> None:
    fastapi = pytest.importorskip("fastapi")
    from starlette.testclient import TestClient

    events: list[str] = []

    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[dict[str, str]]:
        events.append("start")
        yield {"db": "connected"}
        events.append("stop")

    mcp = ToolRegistry("analytics", lifespan=lifespan)

    @mcp.tool
    def status(ctx: Context) -> str:
        """The database's status."""
        return str(ctx.state["db"])

    mcp_app = mcp.http_app(path="/mcp")
    api = fastapi.FastAPI(lifespan=mcp_app.lifespan)
    api.mount("/analytics", mcp_app)
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "status", "_meta": META}}
    headers = {
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": LATEST,
        "mcp-method": "tools/call",
        "mcp-name": "status",
    }
    with TestClient(api, base_url="http://127.0.0.1") as client:
        assert events == ["start"]
        answer = client.post("/analytics/mcp", json=body, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json()["result"]["content"] == [{"type": "text", "text": "connected"}]
    assert events == ["start", "stop"]
