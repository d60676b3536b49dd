"""Interop: the official MCP Python client (the ``mcp`` package) against our stdio and HTTP servers.

Both protocol generations: ``mode="legacy"`` drives the 2025 ``initialize`` handshake, ``mode="auto"`` probes
``server/discover`` and speaks 2026-07-28. The server is ``examples/everything_server.py``, run the way users
run it (``python -m mcptools serve``) for stdio, and served by uvicorn on a free loopback port for HTTP.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
uvicorn = pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from mcptools._target import load_registry  # noqa: E402
from mcptools._transports import StreamableHTTPApp  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "everything_server.py"
MODES = ["legacy", "auto"]
EXPECTED_PROTOCOL = {"legacy": "2025-11-25", "auto": "2026-07-28"}


def _text(result: Any) -> str:
    [block] = result.content
    text: str = block.text
    return text


async def _exercise(client: Client, mode: str) -> None:
    assert client.protocol_version == EXPECTED_PROTOCOL[mode]
    listing = await client.list_tools()
    names = [t.name for t in listing.tools]
    assert "test_simple_text" in names and "json_schema_2020_12_tool" in names
    schema = next(t for t in listing.tools if t.name == "test_sampling").input_schema
    assert schema["required"] == ["prompt"]
    assert "ctx" not in schema.get("properties", {})

    ok = await client.call_tool("test_simple_text", {})
    assert ok.is_error is False
    assert _text(ok) == "This is a simple text response for testing."

    missing = await client.call_tool("test_sampling", {})
    assert missing.is_error is True
    assert _text(missing) == "Invalid arguments: missing required property 'prompt'"

    wrong_type = await client.call_tool("test_header_param", {"region": 7})
    assert wrong_type.is_error is True
    assert _text(wrong_type).startswith("Invalid arguments: ")

    failing = await client.call_tool("test_error_handling", {})
    assert failing.is_error is True
    assert _text(failing) == "This tool intentionally returns an error for testing"

    image = await client.call_tool("test_image_content", {})
    assert image.content[0].type == "image" and image.content[0].mime_type == "image/png"


async def _progress_and_logs(client: Client, logs: list[Any]) -> None:
    seen: list[tuple[float, float | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total))

    result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    assert _text(result) == "Progress test completed"
    assert seen == [(0, 100), (50, 100), (100, 100)]
    logged = await client.call_tool("test_tool_with_logging", {})
    assert logged.is_error is False
    assert [entry.data for entry in logs] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]


async def _elicitation_round(client: Client) -> None:
    result = await client.call_tool("test_elicitation", {"message": "Who are you?"})
    assert result.is_error is False
    assert _text(result).startswith("User response: action=accept")
    assert "ada@example.com" in _text(result)


async def _answer_elicitation(context: Any, params: Any) -> Any:
    from mcp_types import ElicitResult

    return ElicitResult(action="accept", content={"username": "ada", "email": "ada@example.com"})


@pytest.mark.parametrize("mode", MODES)
def test_official_client_over_stdio(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(EXAMPLE)])

    async def run() -> None:
        async with Client(params, mode=mode, elicitation_callback=_answer_elicitation) as client:
            await _exercise(client, mode)
            await _elicitation_round(client)

    asyncio.run(asyncio.wait_for(run(), 60))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    port = _free_port()
    app = StreamableHTTPApp(load_registry(str(EXAMPLE)))
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/mcp"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.mark.parametrize("mode", MODES)
def test_official_client_over_http(http_url: str, mode: str) -> None:
    logs: list[Any] = []

    async def on_log(params: Any) -> None:
        logs.append(params)

    async def run() -> None:
        async with Client(
            http_url, mode=mode, elicitation_callback=_answer_elicitation, logging_callback=on_log, log_level="info"
        ) as client:
            await _exercise(client, mode)
            await _elicitation_round(client)
            await _progress_and_logs(client, logs)

    asyncio.run(asyncio.wait_for(run(), 60))
