"""Tasks across real processes: two replicas (``mcptools serve --http``) and ``mcptools worker`` processes
sharing a real Redis server, behind a round-robin loopback proxy; a worker killed with SIGKILL; a server with the
SQLite store killed and started again; a tool added on one replica reaching the other's clients.

Each test starts its processes (about a second of start-up), so the module runs in CI (``CI=true``, as ``.ci/run``
sets) or with ``MCPTOOLS_ALL_LEGS=1``; tests/test_tasks.py covers the same behaviour in one process.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[1]
APP: Final = "tests/tasks_app.py"
IN_CI: Final = os.environ.get("CI", "").lower() in ("1", "true", "yes")
pytestmark = pytest.mark.skipif(
    not IN_CI and not os.environ.get("MCPTOOLS_ALL_LEGS"),
    reason="starts replicas and workers as processes (~10 s): runs in CI (CI=true) or with MCPTOOLS_ALL_LEGS=1",
)
_IDS = itertools.count(1)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


class Processes:
    """The processes a test started, each ended by its own id when the test ends."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def spawn(self, *arguments: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"process-{len(self.started)}.log").open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "mcptools", *arguments], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT
        )
        self.started.append(process)
        return process

    def serve(self, store: str, *extra: str) -> int:
        port = _free_port()
        process = self.spawn("serve", APP, "--http", "--port", str(port), "--task-store", store, *extra)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            assert process.poll() is None, self.output()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                return port
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the server did not listen: " + self.output())

    def worker(self, store: str) -> subprocess.Popen[bytes]:
        return self.spawn("worker", APP, "--task-store", store, "--task-lease", "1", "--task-workers", "4")

    def output(self) -> str:
        return "\n".join(path.read_text(errors="replace") for path in sorted(self.logs.glob("process-*.log")))

    def end(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)


@pytest.fixture
def processes(tmp_path: Path) -> Iterator[Processes]:
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.end()


@pytest.fixture
def store(redis_url: str, request: pytest.FixtureRequest) -> str:
    """A Redis database of the test's own (emptied first), so the processes of two tests never share tasks."""
    import redis

    index = 1 + (sum(map(ord, request.node.name)) % 15)
    url = redis_url.rsplit("/", 1)[0] + f"/{index}"
    redis.Redis.from_url(url).flushdb()
    return url


class Proxy:
    """A round-robin TCP proxy on loopback: each new connection goes to the next backend, in turn."""

    def __init__(self, backends: list[int]) -> None:
        self.backends = backends
        self.served: list[int] = []  # the backend (its index) of each connection, in order
        self.server: asyncio.Server | None = None
        self.loop = asyncio.new_event_loop()
        ready: list[int] = []
        started = threading.Event()

        async def start() -> None:
            self.server = await asyncio.start_server(self._pipe, "127.0.0.1", 0)
            ready.append(self.server.sockets[0].getsockname()[1])
            started.set()

        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(start(), self.loop)
        started.wait(10)
        self.port = ready[0]

    @property
    def next_backend(self) -> int:
        return len(self.served) % len(self.backends)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        index = self.next_backend
        self.served.append(index)
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.backends[index])

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            try:
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            finally:
                sink.close()

        await asyncio.gather(copy(reader, upstream_writer), copy(upstream_reader, writer), return_exceptions=True)

    def close(self) -> None:
        async def stop() -> None:
            if self.server is not None:
                self.server.close()
            pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def _headers(method: str, params: dict[str, Any], accept: str) -> dict[str, str]:
    headers = {
        "Content-Type": "application/json",
        "Accept": accept,
        "Mcp-Method": method,
        "MCP-Protocol-Version": "2026-07-28",
    }
    name = params.get("name") if method == "tools/call" else params.get("taskId")
    if isinstance(name, str):
        headers["Mcp-Name"] = name
    return headers


def _body(method: str, params: dict[str, Any], tasks: bool) -> str:
    capabilities: dict[str, Any] = {"elicitation": {}}
    if tasks:
        capabilities["extensions"] = {"io.modelcontextprotocol/tasks": {}}
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    }
    return json.dumps({"jsonrpc": "2.0", "id": next(_IDS), "method": method, "params": {**params, "_meta": meta}})


def post(port: int, method: str, params: dict[str, Any], *, tasks: bool = True) -> dict[str, Any]:
    """One 2026-07-28 request on a connection of its own (so the proxy picks the next backend for each)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=15)
    try:
        connection.request("POST", "/mcp", _body(method, params, tasks), _headers(method, params, "application/json"))
        answer: dict[str, Any] = json.loads(connection.getresponse().read())
        return answer
    finally:
        connection.close()


def until(check: Callable[[], Any], seconds: float = 15.0) -> Any:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("the condition never held")


def on_backend(proxy: Proxy, backend: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A request through the proxy that reaches ``backend``: other requests (tools/list) take the turns before."""
    while proxy.next_backend != backend:
        post(proxy.port, "tools/list", {})
    before = len(proxy.served)
    answer = post(proxy.port, method, params)
    assert proxy.served[before] == backend
    return answer


def test_a_task_started_through_one_replica_is_read_updated_and_cancelled_through_the_other(
    processes: Processes, store: str
) -> None:
    replicas = [processes.serve(store, "--task-workers", "0", "--task-lease", "1") for _ in range(2)]
    worker = processes.worker(store)
    proxy = Proxy(replicas)
    try:
        made = on_backend(proxy, 0, "tools/call", {"name": "confirm", "arguments": {}})["result"]
        assert made["resultType"] == "task", made
        task_id = made["taskId"]

        def asked() -> dict[str, Any] | None:
            seen = on_backend(proxy, 1, "tasks/get", {"taskId": task_id})["result"]
            return seen if seen["status"] == "input_required" else None

        waiting = until(asked)  # read on the other replica; the worker process (no replica runs tasks) asked
        assert set(waiting["inputRequests"]) == {"go"}
        answer = {"go": {"action": "accept", "content": {"ok": True}}}
        acked = on_backend(proxy, 1, "tasks/update", {"taskId": task_id, "inputResponses": answer})
        assert acked["result"] == {"resultType": "complete"}

        def completed() -> dict[str, Any] | None:
            seen = on_backend(proxy, 0, "tasks/get", {"taskId": task_id})["result"]
            return seen if seen["status"] == "completed" else None

        done = until(completed)
        assert done["result"]["content"][0]["text"] == f"confirmed=True in process {worker.pid}"

        long = on_backend(proxy, 0, "tools/call", {"name": "work", "arguments": {"seconds": 30}})["result"]
        running = until(
            lambda: (
                (seen := on_backend(proxy, 1, "tasks/get", {"taskId": long["taskId"]})["result"])
                and seen.get("statusMessage") == f"working in process {worker.pid}"
            )
        )
        assert running
        assert on_backend(proxy, 1, "tasks/cancel", {"taskId": long["taskId"]})["result"] == {"resultType": "complete"}
        assert on_backend(proxy, 0, "tasks/get", {"taskId": long["taskId"]})["result"]["status"] == "cancelled"
    finally:
        proxy.close()


def test_a_worker_killed_with_sigkill_loses_no_task(processes: Processes, store: str) -> None:
    replica = processes.serve(store, "--task-workers", "0", "--task-lease", "1")
    doomed = processes.worker(store)
    task_id = post(replica, "tools/call", {"name": "work", "arguments": {"seconds": 3}})["result"]["taskId"]
    until(
        lambda: (
            post(replica, "tasks/get", {"taskId": task_id})["result"].get("statusMessage")
            == f"working in process {doomed.pid}"
        )
    )
    os.kill(doomed.pid, signal.SIGKILL)  # mid-task: no release, no last word
    doomed.wait(timeout=10)
    survivor = processes.worker(store)
    done = until(
        lambda: (seen := post(replica, "tasks/get", {"taskId": task_id})["result"])["status"] != "working" and seen,
        seconds=30,
    )
    assert done["status"] == "completed", done
    assert done["result"]["content"][0]["text"] == f"worked 3 s in process {survivor.pid}"


def test_a_server_restarted_on_the_sqlite_store_loses_no_finished_task(processes: Processes, tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'tasks.db'}"
    first = processes.serve(store)
    made = post(first, "tools/call", {"name": "work", "arguments": {"seconds": 0}})["result"]
    done = until(
        lambda: (
            (seen := post(first, "tasks/get", {"taskId": made["taskId"]})["result"])["status"] == "completed" and seen
        )
    )
    processes.started[-1].send_signal(signal.SIGKILL)  # not even a clean stop
    processes.started[-1].wait(timeout=10)
    second = processes.serve(store)
    again = post(second, "tasks/get", {"taskId": made["taskId"]})["result"]
    assert again == done


def test_a_tool_added_on_one_replica_is_listed_on_the_other_which_announces_it(
    processes: Processes, store: str
) -> None:
    first, second = (processes.serve(store, "--task-workers", "0") for _ in range(2))
    listen = http.client.HTTPConnection("127.0.0.1", second, timeout=15)
    params = {"notifications": {"toolsListChanged": True}}
    listen.request(
        "POST",
        "/mcp",
        _body("subscriptions/listen", params, False),
        _headers("subscriptions/listen", params, "application/json, text/event-stream"),
    )
    stream = listen.getresponse()
    try:
        assert b"notifications/subscriptions/acknowledged" in _next_event(stream)
        assert post(first, "tools/call", {"name": "install_extra", "arguments": {}})["result"]["content"][0]["text"]
        assert b"notifications/tools/list_changed" in _next_event(stream)
        listed = post(second, "tools/list", {})["result"]["tools"]
        assert "extra" in [tool["name"] for tool in listed]
        called = post(second, "tools/call", {"name": "extra", "arguments": {}})["result"]
        assert called["content"][0]["text"] == "extra"
    finally:
        listen.close()


def _next_event(stream: http.client.HTTPResponse) -> bytes:
    """The data of the next server-sent event on ``stream``."""
    data = b""
    while True:
        line = stream.fp.readline()
        if not line:
            return data
        if line.startswith(b"data:"):
            data += line[5:].strip()
        elif line in (b"\n", b"\r\n") and data:
            return data
