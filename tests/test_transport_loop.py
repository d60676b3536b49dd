"""The shared message loop (``serve_connection``) when the client goes away in the middle of a call."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from mcptools import Context, ToolRegistry
from mcptools._jsonrpc import RequestId
from mcptools._transports.loop import Outgoing, serve_connection

ROOT = Path(__file__).resolve().parent.parent


class GoneAfterFirstSend:
    """A client that sends one call and stops reading after the first message it gets back."""

    peer = "test"
    can_stream = True

    def __init__(self, message: dict[str, Any]) -> None:
        self.inbox: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.inbox.put_nowait(message)
        self.sent: list[Outgoing] = []
        self.failed_sends = 0

    async def receive(self) -> dict[str, Any] | None:
        return await self.inbox.get()

    async def send(self, message: Outgoing, related: RequestId | None = None) -> None:
        if self.sent:
            self.failed_sends += 1
            raise BrokenPipeError("the client closed its end")
        self.sent.append(message)

    async def close(self) -> None:
        return None


def test_a_client_gone_mid_call_cancels_the_call_and_nothing_is_reported_as_a_failure(
    caplog: pytest.LogCaptureFixture,
) -> None:
    registry = ToolRegistry("gone")
    seen: list[str] = []

    @registry.tool
    async def slow(ctx: Context) -> str:
        try:
            for step in range(100):
                await ctx.report_progress(step, 100)
                await asyncio.sleep(0.005)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        seen.append("finished")
        return "done"

    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}},
    }
    unhandled: list[dict[str, Any]] = []

    async def go() -> GoneAfterFirstSend:
        asyncio.get_running_loop().set_exception_handler(lambda _, context: unhandled.append(context))
        transport = GoneAfterFirstSend(call)
        serving = asyncio.ensure_future(serve_connection(registry.engine, transport))
        for _ in range(1000):  # a bounded wait: a tool that never ends its call must fail here, not hang
            if seen or serving.done():
                break
            await asyncio.sleep(0.005)
        transport.inbox.put_nowait(None)  # and then its input ends too, as a dead client's does
        await asyncio.wait_for(serving, 5)
        return transport

    with caplog.at_level(logging.INFO, logger="mcptools"):
        transport = asyncio.run(asyncio.wait_for(go(), 10))
    assert seen == ["cancelled"]
    assert transport.failed_sends == 1  # once gone, nothing more is tried
    assert unhandled == []
    assert not [record for record in caplog.records if record.levelno >= logging.WARNING], caplog.text
    assert "went away" in caplog.text


GONE_TARGET = textwrap.dedent(
    """
    import asyncio
    import time

    from mcptools import Context, ToolRegistry

    registry = ToolRegistry("gone")

    @registry.tool
    async def slow(ctx: Context) -> str:
        for step in range(200):
            await ctx.report_progress(step, 200)
            await asyncio.sleep(0.01)
        return "done"

    @registry.tool
    def slow_sync() -> str:
        print("started", flush=True)  # stdout is stderr while serving: the test waits for this line
        time.sleep(0.5)
        return "done"
    """
)


@pytest.mark.parametrize("tool", ["slow", "slow_sync"])
def test_over_stdio_a_client_that_closes_its_end_mid_call_leaves_no_error_behind(tmp_path: Path, tool: str) -> None:
    target = tmp_path / "gone.py"
    target.write_text(GONE_TARGET, encoding="utf-8")
    server = subprocess.Popen(
        [sys.executable, "-m", "mcptools", "serve", f"{target}:registry"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert server.stdin is not None and server.stdout is not None
    call = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "%s", "arguments": {}, '
        b'"_meta": {"progressToken": "p"}}}\n' % tool.encode()
    )
    server.stdin.write(call)
    server.stdin.flush()
    if tool == "slow":
        server.stdout.readline()  # the first progress notification: the call is running
    else:
        assert server.stderr is not None
        assert server.stderr.readline() == b"started\n"
    server.stdout.close()  # the client stops reading, then its input ends
    server.stdin.close()
    assert server.stderr is not None
    server.wait(timeout=20)
    stderr = server.stderr.read()
    server.stderr.close()
    assert server.returncode == 0, stderr.decode()
    assert b"Traceback" not in stderr and b"never retrieved" not in stderr, stderr.decode()
