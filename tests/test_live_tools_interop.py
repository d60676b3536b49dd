"""The live tool list against the official ``mcp`` client: a 2025 session (stdio, and HTTP through its GET
stream) receives ``notifications/tools/list_changed`` when a tool changes the list, and its next ``tools/list``
shows the change; a 2026-07-28 client sees the change on its next list."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "live_tools.py"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _drive(client: Client, changed: asyncio.Event | None) -> None:
    async def names() -> list[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    async def expect_notice() -> None:
        if changed is not None:
            await asyncio.wait_for(changed.wait(), 10)
            changed.clear()

    assert "gh_issue" in await names() and "reset" in await names()
    await client.call_tool("add_greeter", {"name": "late"})
    await expect_notice()
    assert "late" in await names()
    assert getattr((await client.call_tool("late", {})).content[0], "text", None) == "hello from late"
    await client.call_tool("add_github_tool", {"name": "pr"})
    await expect_notice()
    assert "gh_pr" in await names()
    await client.call_tool("set_tag", {"tag": "admin", "enabled": False})
    await expect_notice()
    assert "reset" not in await names()
    await client.call_tool("remove_tool", {"name": "late"})
    await expect_notice()
    assert "late" not in await names()


def _notice_catcher() -> tuple[asyncio.Event, Any]:
    changed = asyncio.Event()

    async def on_message(message: Any) -> None:
        if getattr(getattr(message, "root", message), "method", None) == "notifications/tools/list_changed":
            changed.set()

    return changed, on_message


def test_official_client_over_stdio_is_told_of_changes() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(EXAMPLE)])

    async def run() -> None:
        changed, on_message = _notice_catcher()
        async with Client(params, mode="legacy", message_handler=on_message) as client:
            assert client.protocol_version == "2025-11-25"
            await _drive(client, changed)

    asyncio.run(asyncio.wait_for(run(), 60))


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_official_client_over_http_is_told_of_changes(mode: str) -> None:
    import threading
    import time

    import uvicorn

    from mcptools._target import load_registry
    from mcptools._transports import StreamableHTTPApp

    # A fresh copy of the example per test: the tools change the registry.
    registry = load_registry(str(EXAMPLE))
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(StreamableHTTPApp(registry), host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)

    async def run() -> None:
        changed, on_message = _notice_catcher()
        async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode, message_handler=on_message) as client:
            # 2026-07-28 has no session to push to: the next list shows the change (its ttlMs is 0).
            await _drive(client, changed if mode == "legacy" else None)

    try:
        asyncio.run(asyncio.wait_for(run(), 60))
    finally:
        server.should_exit = True
        thread.join(timeout=10)


async def _listen_for_changes(client: Client) -> None:
    """A 2026-07-28 client on a subscriptions/listen stream is told of each change; its next list shows it."""
    from mcp.shared.subscriptions import ToolsListChanged

    assert client.protocol_version == "2026-07-28"
    async with client.listen(tools_list_changed=True) as subscription:
        assert subscription.honored.tools_list_changed is True
        await client.call_tool("add_greeter", {"name": "late"})
        assert await asyncio.wait_for(subscription.__anext__(), 10) == ToolsListChanged()
        assert "late" in [tool.name for tool in (await client.list_tools()).tools]
        await client.call_tool("set_tag", {"tag": "admin", "enabled": False})
        assert await asyncio.wait_for(subscription.__anext__(), 10) == ToolsListChanged()
        assert "reset" not in [tool.name for tool in (await client.list_tools()).tools]


def test_official_2026_client_over_stdio_listens_for_changes() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "mcptools", "serve", str(EXAMPLE)])

    async def run() -> None:
        async with Client(params, mode="auto") as client:
            await _listen_for_changes(client)

    asyncio.run(asyncio.wait_for(run(), 60))


def test_official_2026_client_over_http_listens_and_sigterm_ends_the_stream_gracefully() -> None:
    import signal
    import subprocess

    from test_example_time_server import _wait_until_listening

    port = _free_port()
    command = [sys.executable, "-m", "mcptools", "serve", str(EXAMPLE), "--http", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_listening(port, server)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="auto") as client:
                await _listen_for_changes(client)
                async with client.listen(tools_list_changed=True) as subscription:
                    # Stopping the server ends an open stream with its final result (the loop just ends), rather
                    # than holding uvicorn's graceful shutdown until the client leaves.
                    server.send_signal(signal.SIGTERM)
                    assert [event async for event in subscription] == []

        asyncio.run(asyncio.wait_for(run(), 60))
        assert server.wait(timeout=20) in (0, -signal.SIGTERM)
    finally:
        server.kill()
        server.wait()


def test_sigterm_stops_the_server_while_a_2025_client_holds_its_get_stream() -> None:
    import signal
    import subprocess

    from test_example_time_server import _wait_until_listening

    port = _free_port()
    command = [sys.executable, "-m", "mcptools", "serve", str(EXAMPLE), "--http", "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stopped: list[int] = []
    try:
        _wait_until_listening(port, server)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="legacy") as client:
                await client.list_tools()  # the session is open, and so is its GET stream
                server.send_signal(signal.SIGTERM)
                # uvicorn waits for open responses before it stops: the GET stream must end, not hold it.
                stopped.append(await asyncio.to_thread(server.wait, 20))

        with contextlib.suppress(Exception):  # the client may complain that its server went away
            asyncio.run(asyncio.wait_for(run(), 60))
        assert stopped and stopped[0] in (0, -signal.SIGTERM)
    finally:
        server.kill()
        server.wait()
