"""Lifespan: entered once around serving, its state reachable from tools, closed on every way a server stops.

In process: nesting, state through ``Context``, the bare ``registry.handle`` rule, failures. As subprocesses
(``tests/lifespan_app.py``, whose lifespan appends ``enter``/``exit`` lines to a marker file): stdio and HTTP, each
stopped by end of input or SIGTERM, a failing startup, ``--workers 2``, and ``registry.run()``.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from memory_support import MemoryClient

from mcptools import Context, LifespanError, ToolDefinitionError, ToolRegistry

APP = Path(__file__).resolve().parent / "lifespan_app.py"
CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "where", "arguments": {}}}


def _registry(events: list[str], *, fail: bool = False) -> ToolRegistry:
    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[dict[str, str]]:
        events.append(f"enter {registry.name}")
        try:
            if fail:
                raise RuntimeError("no database")
            yield {"zone": "UTC"}
        finally:
            events.append("exit")

    registry = ToolRegistry("life", lifespan=lifespan)

    @registry.tool
    async def where(ctx: Context[dict[str, str]]) -> str:
        return ctx.state["zone"]

    return registry


def _text(response: dict[str, Any] | None) -> str:
    assert response is not None
    text: str = response["result"]["content"][0]["text"]
    return text


def test_state_reaches_tools_while_running_and_nested_entries_share_one_lifespan() -> None:
    events: list[str] = []
    registry = _registry(events)

    async def scenario() -> None:
        async with registry.running() as state:
            assert state == {"zone": "UTC"} and registry.state is state
            async with registry.running() as again:  # a second server of the same registry shares it
                assert again is state
                assert _text(await registry.handle_async(CALL)) == "UTC"
            assert events == ["enter life"]
            client = MemoryClient(registry)
            reply = await client.stateless("tools/call", {"name": "where", "arguments": {}})
            assert _text(reply) == "UTC"
        assert events == ["enter life", "exit"]

    asyncio.run(scenario())


def test_bare_handle_does_not_run_the_lifespan_and_says_how_to(caplog: pytest.LogCaptureFixture) -> None:
    events: list[str] = []
    registry = _registry(events)
    reply = registry.handle(CALL)
    assert reply is not None and reply["result"]["isError"] is True
    # The model reads what failed and why (as the peers send a raised message); the fix is in the message too.
    assert _text(reply).startswith("Tool 'where' failed: LifespanError: the lifespan of ToolRegistry('life')")
    assert "async with registry.running()" in caplog.text
    assert events == []
    with pytest.raises(LifespanError, match="not running"):
        registry.state  # noqa: B018


def test_a_registry_without_lifespan_has_state_none() -> None:
    registry = ToolRegistry("plain")

    @registry.tool
    async def peek(ctx: Context) -> str:
        return repr(ctx.state)

    reply = registry.handle({**CALL, "params": {"name": "peek", "arguments": {}}})
    assert _text(reply) == "None"
    assert registry.state is None


def test_a_failing_startup_fails_the_entry_and_a_failing_block_still_closes() -> None:
    events: list[str] = []

    async def failing() -> None:
        async with _registry(events, fail=True).running():
            raise AssertionError("never entered")

    with pytest.raises(RuntimeError, match="no database"):
        asyncio.run(failing())
    assert events == ["enter life", "exit"]

    events.clear()
    registry = _registry(events)

    async def raising() -> None:
        async with registry.running():
            raise KeyError("boom")

    with pytest.raises(KeyError):
        asyncio.run(raising())
    assert events == ["enter life", "exit"]
    with pytest.raises(LifespanError):
        registry.state  # noqa: B018


def test_lifespan_definition_errors_name_the_registry_and_the_fix() -> None:
    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[None]:
        yield

    with pytest.raises(ToolDefinitionError, match=r"ToolRegistry\('x'\): lifespan= .*not a call to it"):
        ToolRegistry("x", lifespan=lifespan(ToolRegistry("y")))  # type: ignore[arg-type]

    def not_a_manager(registry: ToolRegistry) -> int:
        return 1

    registry = ToolRegistry("x", lifespan=not_a_manager)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="asynccontextmanager"):
        asyncio.run(registry.running().__aenter__())


# -- subprocesses --------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _events(marker: Path) -> list[str]:
    return marker.read_text().split("\n")[:-1] if marker.exists() else []


def _wait_for(predicate: Any, seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def _post(port: int, tool: str) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=json.dumps(body).encode(),
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": tool,
        },
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        reply: dict[str, Any] = json.loads(answer.read())
    return reply


def _stdio(command: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _call_over_stdio(server: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert server.stdin is not None and server.stdout is not None
    message = {**CALL, "params": {"name": "worker_pid", "arguments": {}}}
    server.stdin.write(json.dumps(message).encode() + b"\n")
    server.stdin.flush()
    reply: dict[str, Any] = json.loads(server.stdout.readline())
    return reply


SERVE = [sys.executable, "-m", "mcptools", "serve", str(APP)]


@pytest.mark.parametrize("stop", ["end of input", "SIGTERM"])
@pytest.mark.parametrize("entry", ["mcptools serve", "registry.run()"])
def test_stdio_runs_the_lifespan_once_and_closes_it(tmp_path: Path, stop: str, entry: str) -> None:
    marker = tmp_path / "events"
    own = ["--marker", str(marker)]
    command = [*SERVE, "--", *own] if entry == "mcptools serve" else [sys.executable, str(APP), *own]
    server = _stdio(command)
    try:
        reply = _call_over_stdio(server)
        assert reply["result"]["content"][0]["text"] == str(server.pid)  # ctx.state, from argv after `--`
        if stop == "SIGTERM":
            server.send_signal(signal.SIGTERM)
        else:
            assert server.stdin is not None
            server.stdin.close()
        assert server.wait(timeout=20) == 0
    finally:
        server.kill()
        server.wait()
    assert _events(marker) == [f"enter {server.pid}", f"exit {server.pid}"]


def test_stdio_failing_startup_exits_nonzero_and_the_lifespan_cleans_up(tmp_path: Path) -> None:
    marker = tmp_path / "events"
    done = subprocess.run(
        [*SERVE, "--", "--marker", str(marker), "--fail"], input=b"", capture_output=True, timeout=30, check=False
    )
    assert done.returncode == 1
    assert b"the database is not there" in done.stderr
    assert done.stdout == b""
    assert [line.split()[0] for line in _events(marker)] == ["enter", "exit"]


@pytest.mark.parametrize("entry", ["mcptools serve", "registry.run()"])
def test_http_runs_the_lifespan_and_sigterm_closes_it(tmp_path: Path, entry: str) -> None:
    marker = tmp_path / "events"
    port = _free_port()
    own = ["--marker", str(marker)]
    if entry == "mcptools serve":
        command = [*SERVE, "--http", "--port", str(port), "--", *own]
    else:
        command = [sys.executable, str(APP), *own, "--http", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: bool(_events(marker)))
        _wait_for(lambda: _reachable(port))
        assert _post(port, "worker_pid")["result"]["content"][0]["text"] == str(server.pid)
        server.send_signal(signal.SIGTERM)
        # A clean stop: 0, as serving.md says (uvicorn raises the signal again once stopped; we take it).
        assert server.wait(timeout=20) == 0
    finally:
        server.kill()
        server.wait()
    assert _events(marker) == [f"enter {server.pid}", f"exit {server.pid}"]


def test_http_failing_startup_does_not_serve(tmp_path: Path) -> None:
    marker = tmp_path / "events"
    port = _free_port()
    command = [*SERVE, "--http", "--port", str(port), "--", "--marker", str(marker), "--fail"]
    done = subprocess.run(command, capture_output=True, timeout=30, check=False)
    assert done.returncode == 3
    assert b"the database is not there" in done.stderr
    assert [line.split()[0] for line in _events(marker)] == ["enter", "exit"]
    assert not _reachable(port)


def test_every_worker_runs_its_own_lifespan_and_closes_it_on_sigterm(tmp_path: Path) -> None:
    marker = tmp_path / "events"
    port = _free_port()
    command = [*SERVE, "--http", "--port", str(port), "--workers", "2", "--", "--marker", str(marker)]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _wait_for(lambda: len(_events(marker)) == 2, 40)
        _wait_for(lambda: _reachable(port))
        served = {_post(port, "worker_pid")["result"]["content"][0]["text"] for _ in range(4)}
        workers = {line.split()[1] for line in _events(marker)}
        assert served <= workers and len(workers) == 2 and str(server.pid) not in workers
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    finally:
        server.kill()
        server.wait()
    events = _events(marker)
    assert sorted(events) == sorted([f"{kind} {pid}" for pid in workers for kind in ("enter", "exit")])


def _reachable(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def test_forwarded_arguments_reach_the_target_as_its_argv(tmp_path: Path) -> None:
    target = tmp_path / "argv_app.py"
    target.write_text(
        "import sys\nfrom mcptools import ToolRegistry\nregistry = ToolRegistry('argv')\n"
        "@registry.tool\ndef argv() -> str:\n    return ' '.join(sys.argv[1:])\n"
    )
    server = _stdio([sys.executable, "-m", "mcptools", "serve", str(target), "--", "--local-timezone", "UTC"])
    try:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(json.dumps({**CALL, "params": {"name": "argv", "arguments": {}}}).encode() + b"\n")
        server.stdin.close()
        reply = json.loads(server.stdout.readline())
        assert reply["result"]["content"][0]["text"] == "--local-timezone UTC"
        assert server.wait(timeout=20) == 0
    finally:
        server.kill()
        server.wait()
    assert os.environ.get("MCPTOOLS_TARGET_ARGV") is None


def test_run_refuses_http_options_for_stdio_instead_of_ignoring_them() -> None:
    # registry.run(port=8080) served stdio, the port silently dropped: a user meaning HTTP got a server reading
    # stdin. The lifespan never starts, nothing is served.
    registry = ToolRegistry("run-options")
    with pytest.raises(ValueError, match=r"^registry.run: port applies to HTTP only; pass transport='http'"):
        registry.run(port=8080)
    with pytest.raises(ValueError, match=r"^registry.run: host, workers apply to HTTP only"):
        registry.run("stdio", host="0.0.0.0", workers=2)


def test_a_port_out_of_range_is_one_line_not_a_traceback() -> None:
    pytest.importorskip("uvicorn")
    done = subprocess.run(
        [*SERVE, "--http", "--port", "70000"], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 2
    assert done.stderr == "mcptools: --port must be a port number from 0 to 65535 (0: any free port), got 70000\n"
