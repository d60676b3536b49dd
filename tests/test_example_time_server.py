"""examples/time_server.py (lifespan state from its own command line, two middlewares, a time limit) served to the
official ``mcp`` client: over stdio as ``python examples/time_server.py ...`` (``registry.run()``), and over HTTP
as ``mcptools serve examples/time_server.py --http -- ...`` in a subprocess."""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "time_server.py"
MODES = ["legacy", "auto"]


async def _exercise(client: Client, zone: str) -> None:
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["get_current_time", "convert_time", "server_uptime"]
    local = await client.call_tool("get_current_time", {})
    assert local.is_error is False
    assert local.structured_content is not None and local.structured_content["timezone"] == zone  # lifespan state
    arguments = {"time": "12:00", "target_timezone": "Asia/Tokyo", "source_timezone": "UTC"}
    tokyo = await client.call_tool("convert_time", arguments)
    assert tokyo.structured_content is not None and tokyo.structured_content["datetime"].endswith("T21:00:00+09:00")
    wrong = await client.call_tool("get_current_time", {"timezone": "Mars/Olympus"})
    assert wrong.is_error is True
    expected = "Unknown timezone 'Mars/Olympus'; use an IANA name such as 'Europe/Paris'"
    assert wrong.content[0].text == expected  # type: ignore[union-attr]
    uptime = await client.call_tool("server_uptime", {})
    assert uptime.content[0].text.startswith("up ")  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", MODES)
def test_official_client_over_stdio_with_registry_run(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLE), "--local-timezone", "Europe/Paris"])

    async def run() -> None:
        async with Client(params, mode=mode) as client:
            await _exercise(client, "Europe/Paris")

    asyncio.run(asyncio.wait_for(run(), 60))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_until_listening(port: int, server: subprocess.Popen[Any]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server exited"
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError("the server did not start listening")


def test_official_client_over_http_with_mcptools_serve() -> None:
    port = _free_port()
    command = [
        *(sys.executable, "-m", "mcptools", "serve", str(EXAMPLE)),
        *("--http", "--port", str(port), "--", "--local-timezone", "Asia/Tokyo"),
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_listening(port, server)

        async def run() -> None:
            for mode in MODES:
                async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                    await _exercise(client, "Asia/Tokyo")

        asyncio.run(asyncio.wait_for(run(), 60))
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) in (0, -signal.SIGTERM)
    finally:
        server.kill()
        server.wait()


def test_a_bad_setting_stops_the_server_at_start() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE), "--local-timezone", "Nowhere/Town"],
        input=b"",
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 1
    assert b"--local-timezone: unknown timezone 'Nowhere/Town'" in done.stderr
    assert done.stdout == b""
