"""The HTTP server under hostile load, on loopback only: a session table that holds when full, slow clients cut
off, and normal calls answered while initialize floods, slow connections, oversized and malformed bodies go on.

Every loop here is bounded (a fixed count of requests, connections and seconds); nothing is timed as a pass or
fail criterion except that a slow client is cut off within a few seconds of its deadline.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_support import LATEST, META, call, initialize, make_registry, request, run

from mcptools._transports.asgi import StreamableHTTPApp

ROOT = Path(__file__).resolve().parent.parent
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


# -- the session table ----------------------------------------------------------------------------------


def open_session(app: StreamableHTTPApp, request_id: int = 0) -> Any:
    return run(call(app, body={**INIT, "id": request_id}))


def alive(app: StreamableHTTPApp, session_id: str) -> bool:
    reply = run(call(app, body={"jsonrpc": "2.0", "id": 9, "method": "ping"}, headers={"mcp-session-id": session_id}))
    return reply.status == 200


def test_a_full_table_evicts_the_least_recently_used_idle_session() -> None:
    app = StreamableHTTPApp(make_registry(), max_sessions=3)
    first, second, third = (initialize(app) for _ in range(3))
    assert alive(app, first)  # first is now the most recently used; second is the least
    fourth = open_session(app)
    assert fourth.status == 200
    assert not alive(app, second)
    assert all(alive(app, s) for s in (first, third, fourth.headers["mcp-session-id"]))
    assert len(app._sessions) == 3


def test_a_session_with_a_request_in_flight_is_never_evicted_and_a_busy_table_says_503_with_the_id() -> None:
    app = StreamableHTTPApp(make_registry(), max_sessions=2)
    busy, idle = initialize(app), initialize(app)
    app._sessions[busy].attached = 1
    assert open_session(app).status == 200  # evicts `idle`, skipping the older but busy one
    assert busy in app._sessions and idle not in app._sessions
    for entry in app._sessions.values():
        entry.attached = 1
    refused = open_session(app, request_id=41)
    assert refused.status == 503
    assert refused.json()["id"] == 41
    assert refused.json()["error"]["code"] == -32000


def test_a_few_held_streams_at_the_lru_end_do_not_lock_new_sessions_out() -> None:
    # An open GET stream keeps its session busy for as long as the client holds the connection. Were busy
    # sessions left at the least-recently-used end, EVICTION_SCAN held streams there would make every later
    # initialize 503 while thousands of idle sessions sat behind them.
    from mcptools._transports.asgi_sessions import EVICTION_SCAN

    app = StreamableHTTPApp(make_registry(), max_sessions=EVICTION_SCAN + 10)
    held = [initialize(app) for _ in range(EVICTION_SCAN)]
    for session_id in held:
        app._sessions[session_id].attached = 1  # as an open GET stream holds it
    idle = [initialize(app) for _ in range(10)]
    answers = [open_session(app, request_id=n).status for n in range(20)]
    # A scan that meets only held sessions still refuses (it is bounded), but it moved them out of the way, so
    # the next initialize gets in: a refusal is never followed by another.
    assert answers.count(200) >= 18 and "503, 503" not in str(answers), answers
    assert all(session_id in app._sessions for session_id in held)
    assert not any(session_id in app._sessions for session_id in idle)


def test_idle_sessions_expire_as_new_ones_open() -> None:
    app = StreamableHTTPApp(make_registry(), session_idle_seconds=0.05)
    old = [initialize(app) for _ in range(5)]
    time.sleep(0.1)
    fresh = initialize(app)
    assert list(app._sessions) == [fresh]
    assert not any(alive(app, s) for s in old)


def test_every_error_answer_to_a_parsed_request_carries_its_id() -> None:
    app = StreamableHTTPApp(make_registry(), stateless_only=False)
    legacy_list = {"jsonrpc": "2.0", "id": 12, "method": "tools/list"}
    unknown = run(call(app, body=legacy_list, headers={"mcp-session-id": "nope"}))
    assert unknown.status == 404 and unknown.json()["id"] == 12
    bad_version = run(call(app, body={**INIT, "id": 13}, headers={"mcp-protocol-version": "1999-01-01"}))
    assert bad_version.status == 400 and bad_version.json()["id"] == 13
    mismatch = run(call(app, body=request("tools/list", request_id=14), headers={"mcp-method": "tools/call"}))
    assert mismatch.status == 400 and mismatch.json()["id"] == 14


# -- real servers on loopback ---------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_listening(port: int, process: subprocess.Popen[bytes] | None = None) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.05)


@pytest.mark.parametrize("stack", ["standard", "fast"])
def test_connections_accepted_on_the_served_socket_have_tcp_nodelay(stack: str) -> None:
    # Without TCP_NODELAY every kept-alive response waits ~40 ms for the client's delayed ACK (uvicorn writes
    # headers and body apart): the socket `serve --http` makes must give accepted connections the flag.
    import asyncio

    from mcptools._transports.asgi_server import listen

    if stack == "fast":
        uvloop = pytest.importorskip("uvloop")
        loop_factory: Any = uvloop.new_event_loop
    else:
        loop_factory = asyncio.new_event_loop
    listener = listen("127.0.0.1", 0)
    port = listener.getsockname()[1]
    flags: list[int] = []

    async def main() -> None:
        def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            flags.append(writer.get_extra_info("socket").getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
            writer.close()

        server = await asyncio.start_server(accepted, sock=listener)
        async with server:
            _reader, writer = await asyncio.open_connection("127.0.0.1", port)
            for _ in range(200):
                if flags:
                    break
                await asyncio.sleep(0.01)
            writer.close()

    loop = loop_factory()
    try:
        loop.run_until_complete(asyncio.wait_for(main(), 10))
    finally:
        loop.close()
    assert flags and flags[0] != 0


@pytest.fixture(scope="module", params=["standard", "fast"])
def guarded_server(request: pytest.FixtureRequest) -> Iterator[int]:
    """``mcptools serve`` with short deadlines (headers 2 s, body 2 s, keep-alive 1 s), on both stacks."""
    if request.param == "fast":
        pytest.importorskip("uvloop")
        pytest.importorskip("httptools")
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcptools",
            "serve",
            str(ROOT / "examples" / "weather.py"),
            "--http",
            "--port",
            str(port),
            "--timeout-headers",
            "2",
            "--timeout-body",
            "2",
            "--timeout-keep-alive",
            "1",
            "--stack",
            request.param,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_listening(port, process)
        yield port
    finally:
        process.terminate()
        process.wait(timeout=10)


def _trickle(port: int, payload: bytes, interval: float, limit: float) -> tuple[bytes, float]:
    """Send ``payload`` one byte per ``interval`` until the server answers or closes; (answer, seconds)."""
    started = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as sock:
        sock.settimeout(interval)
        received = b""
        for byte in payload:
            try:
                sock.sendall(bytes([byte]))
            except OSError:
                break
            try:
                chunk = sock.recv(4096)
            except TimeoutError:
                if time.monotonic() - started > limit:
                    break
                continue
            except OSError:
                break
            received += chunk
            if not chunk:
                break
            if time.monotonic() - started > limit:
                break
        return received, time.monotonic() - started


REQUEST_HEAD = (
    b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
    b"Content-Length: 200\r\n\r\n"
)


def test_slow_clients_get_408_and_idle_connections_are_closed(guarded_server: int) -> None:
    results: dict[str, tuple[bytes, float]] = {}

    def slow_headers() -> None:
        results["headers"] = _trickle(guarded_server, REQUEST_HEAD, 0.7, 8)

    def slow_body() -> None:
        with socket.create_connection(("127.0.0.1", guarded_server), timeout=8) as sock:
            started = time.monotonic()
            sock.sendall(REQUEST_HEAD)
            sock.settimeout(0.7)
            received = b""
            for _ in range(10):
                try:
                    sock.sendall(b" ")
                    chunk = sock.recv(4096)
                except TimeoutError:
                    continue
                except OSError:
                    break
                received += chunk
                if not chunk:
                    break
            results["body"] = (received, time.monotonic() - started)

    def idle_keep_alive() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", guarded_server, timeout=8)
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}})
        connection.request(
            "POST",
            "/mcp",
            body,
            {
                "content-type": "application/json",
                "accept": "application/json",
                "mcp-method": "tools/list",
                "mcp-protocol-version": LATEST,
            },
        )
        assert connection.getresponse().read()
        sock = connection.sock
        assert sock is not None
        started = time.monotonic()
        sock.settimeout(8)
        results["idle"] = (sock.recv(1), time.monotonic() - started)
        connection.close()

    workers = [threading.Thread(target=job) for job in (slow_headers, slow_body, idle_keep_alive)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(15)
    answer, seconds = results["headers"]
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert 1.5 < seconds < 6
    answer, seconds = results["body"]
    assert answer.startswith(b"HTTP/1.1 408 "), answer
    assert 1.5 < seconds < 6
    closed, seconds = results["idle"]
    assert closed == b"" and seconds < 6


def test_a_connection_that_sends_nothing_is_closed_without_an_answer(guarded_server: int) -> None:
    with socket.create_connection(("127.0.0.1", guarded_server), timeout=8) as sock:
        started = time.monotonic()
        assert sock.recv(100) == b""
        assert 1.5 < time.monotonic() - started < 6


# -- everything at once ---------------------------------------------------------------------------------


@pytest.fixture
def small_table_server() -> Iterator[int]:
    """In-process uvicorn with the serve guard, a 20-session table and 2 s deadlines."""
    uvicorn = pytest.importorskip("uvicorn")
    from mcptools._options import resolve
    from mcptools._transports.asgi_server import uvicorn_options

    port = _free_port()
    app = StreamableHTTPApp(make_registry(), max_sessions=20)
    options = uvicorn_options(
        resolve("http", {"timeout_headers": 2, "timeout_body": 2, "stack": "standard"}), by_name=False
    )
    config = uvicorn.Config(app, host="127.0.0.1", port=port, **{**options, "log_level": "critical"})
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    _wait_listening(port)
    yield port
    server.should_exit = True
    thread.join(timeout=10)


def _post(connection: http.client.HTTPConnection, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
    base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    connection.request("POST", "/mcp", body, {**base, **headers})
    response = connection.getresponse()
    text = response.read()
    return response.status, (json.loads(text) if text else None)


def test_normal_calls_keep_answering_under_hostile_load(small_table_server: int) -> None:
    port = small_table_server
    failures: list[str] = []
    answered: list[int] = []
    stop = threading.Event()

    def normal_calls(worker: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        for n in range(60):
            request_id = worker * 1000 + n
            body = {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": f"call {request_id}"}, "_meta": META},
            }
            headers = {"mcp-method": "tools/call", "mcp-name": "echo", "mcp-protocol-version": LATEST}
            status, reply = _post(connection, json.dumps(body).encode(), headers)
            if (
                status != 200
                or reply["id"] != request_id
                or reply["result"]["content"][0]["text"] != f"call {request_id}"
            ):
                failures.append(f"call {request_id}: {status} {reply}")
            else:
                answered.append(request_id)
        connection.close()

    def initialize_flood() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
        for n in range(150):
            if stop.is_set():
                break
            status, reply = _post(connection, json.dumps({**INIT, "id": n}).encode(), {})
            if status != 200 or reply["id"] != n:
                failures.append(f"initialize {n}: {status} {reply}")
        connection.close()

    def oversized_and_malformed() -> None:
        for n in range(4):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            try:
                status, _ = _post(connection, b"[" * (5 * 1024 * 1024), {})
            except (ConnectionError, http.client.HTTPException):
                status = 413  # the server may close before the whole body is sent
            if status != 413:
                failures.append(f"oversized {n}: {status}")
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
            for bad in (b'{"jsonrpc": "2.0", "id": 1, "method": ', b"[" * 100_000 + b"]" * 100_000, b"\xff\xfe"):
                status, reply = _post(connection, bad, {})
                if status != 400 or reply["error"]["code"] != -32700:
                    failures.append(f"malformed {n}: {status} {reply}")
            connection.close()

    def slow_connections() -> None:
        sockets = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(10)]
        try:
            for byte in REQUEST_HEAD[:6]:
                for sock in sockets:
                    with contextlib.suppress(OSError):
                        sock.sendall(bytes([byte]))
                time.sleep(0.5)
        finally:
            for sock in sockets:
                sock.close()

    jobs = [
        *(threading.Thread(target=normal_calls, args=(w,)) for w in range(2)),
        *(threading.Thread(target=initialize_flood) for _ in range(3)),
        threading.Thread(target=oversized_and_malformed),
        threading.Thread(target=slow_connections),
    ]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join(120)
    stop.set()
    assert failures == []
    assert len(answered) == 120


def _send(port: int, raw: bytes) -> bytes:
    """``raw`` (a request saying ``Connection: close``) in one write; the answer, read to the end."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(raw)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
        return answer


def test_a_head_is_capped_at_16_kib_exactly_and_a_large_body_is_no_head(guarded_server: int) -> None:
    from mcptools._transports.asgi_server import MAX_HEAD_BYTES

    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "weather", "arguments": {"location": "x"}, "_meta": META},
    }

    def request(head_bytes: int, location: str = "x") -> bytes:
        call["params"]["arguments"] = {"location": location}  # type: ignore[index]
        body = json.dumps(call).encode()
        head = (
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
            b"Mcp-Method: tools/call\r\nMcp-Name: weather\r\nMCP-Protocol-Version: " + LATEST.encode() + b"\r\n"
            b"Connection: close\r\nContent-Length: %d\r\nX-Pad: " % len(body)
        )
        padding = head_bytes - len(head) - len(b"\r\n\r\n")
        return head + b"a" * padding + b"\r\n\r\n" + body

    # Sent in one write, so the whole head arrives at once: the cap counts it, not the parser's own limit.
    assert _send(guarded_server, request(MAX_HEAD_BYTES)).startswith(b"HTTP/1.1 200 ")
    assert _send(guarded_server, request(MAX_HEAD_BYTES + 1)).startswith(b"HTTP/1.1 431 ")
    # A megabyte of body right behind a small head is a body, whatever chunks it arrives in.
    big = _send(guarded_server, request(300, location="y" * 1_000_000))
    assert big.startswith(b"HTTP/1.1 200 ") and b"yyyy" in big
