"""examples/notes_app.py (lifespan state, two middlewares, tags, an included registry) served to the official
``mcp`` client: over stdio as ``python examples/notes_app.py`` (``registry.run()``), and over HTTP as
``mcptools serve examples/notes_app.py --http`` in a subprocess, both revisions."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
pytest.importorskip("uvicorn")

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from test_example_time_server import _free_port, _wait_until_listening  # noqa: E402

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "notes_app.py"
MODES = ["legacy", "auto"]
CALLS = 5  # the tool calls _exercise makes that reach the middleware (an unknown tool is refused before it)
SERVED = ["add_note", "search_notes", "read_note", "call_stats", "export_markdown"]


def _text(result: Any) -> str:
    text: str = result.content[0].text
    return text


async def _exercise(client: Client, *, admin: bool, title: str = "milk") -> None:
    names = [tool.name for tool in (await client.list_tools()).tools]
    # The admin tag is disabled unless the server started with --admin.
    assert names == ([*SERVED[:4], "purge", SERVED[4]] if admin else SERVED)
    added = await client.call_tool("add_note", {"title": title, "body": "buy two litres"})
    assert added.is_error is False and added.structured_content is not None
    note_id = added.structured_content["id"]
    read = await client.call_tool("read_note", {"note_id": note_id})
    assert read.structured_content == {"id": note_id, "title": title, "body": "buy two litres"}  # lifespan store
    missing = await client.call_tool("read_note", {"note_id": 999})
    assert missing.is_error is True and _text(missing) == "No note with id 999; search_notes lists the ids"
    # The included registry's tool, by its prefixed name, reaching the host's lifespan state.
    exported = await client.call_tool("export_markdown", {"text": title})
    assert exported.is_error is False and _text(exported) == f"## {title}\n\nbuy two litres"
    # Timing saw every call so far (this process: over HTTP, each worker counts its own).
    stats = await client.call_tool("call_stats", {})
    assert stats.structured_content is not None
    counted = stats.structured_content
    assert counted["read_note"]["calls"] >= 2 and counted["read_note"]["errors"] >= 1
    assert counted["export_markdown"]["calls"] >= 1
    if admin:
        purge = await client.call_tool("purge", {})
        assert purge.is_error is False and _text(purge).startswith("deleted ")
    else:
        with pytest.raises(MCPError, match="Unknown tool: purge"):
            await client.call_tool("purge", {})


async def _until_rate_limited(client: Client) -> int:
    """Calls until RateLimit refuses one; how many went through."""
    for done in range(100):
        result = await client.call_tool("search_notes", {})
        if result.is_error:
            assert _text(result).startswith("Rate limit exceeded: at most 60 calls per 60 s; retry in ")
            return done
    raise AssertionError("RateLimit never refused a call")


@pytest.mark.parametrize("mode", MODES)
def test_official_client_over_stdio_with_registry_run(mode: str) -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLE)])

    async def run() -> None:
        async with Client(params, mode=mode) as client:
            await _exercise(client, admin=False)
            # 60 calls a minute per client, the ones above included (a token may refill while the test runs).
            assert 60 - CALLS <= await _until_rate_limited(client) <= 60 - CALLS + 3

    asyncio.run(asyncio.wait_for(run(), 60))


def test_admin_tools_are_served_with_the_admin_setting() -> None:
    params = StdioServerParameters(command=sys.executable, args=[str(EXAMPLE), "--admin"])

    async def run() -> None:
        async with Client(params, mode="legacy") as client:
            await _exercise(client, admin=True)

    asyncio.run(asyncio.wait_for(run(), 60))


def test_official_client_over_http_with_mcptools_serve(tmp_path: Path) -> None:
    port = _free_port()
    database = tmp_path / "notes.sqlite3"
    command = [
        *(sys.executable, "-m", "mcptools", "serve", str(EXAMPLE)),
        *("--http", "--port", str(port), "--", "--db", str(database)),
    ]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_until_listening(port, server)

        async def run() -> None:
            for mode in MODES:
                async with Client(f"http://127.0.0.1:{port}/mcp", mode=mode) as client:
                    await _exercise(client, admin=False, title=f"milk ({mode})")
            async with Client(f"http://127.0.0.1:{port}/mcp", mode="auto") as client:
                # Both clients above came from one address: they used its bucket too.
                assert 60 - 2 * CALLS <= await _until_rate_limited(client) <= 60 - 2 * CALLS + 3

        asyncio.run(asyncio.wait_for(run(), 60))
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=20) in (0, -signal.SIGTERM)
    finally:
        server.kill()
        server.wait()
    # The lifespan wrote to the file it was given, and closed it: the notes outlive the server.
    import sqlite3

    with sqlite3.connect(database) as reopened:
        assert reopened.execute("SELECT title FROM notes").fetchall() == [("milk (legacy)",), ("milk (auto)",)]
