"""A harness for hostile-client tests on loopback: an attack runs while normal calls go on, and the outcome says
whether anything was lost, how far the server's memory rose and how much slower the normal calls got.

    with Served(command) as server:
        outcome = under_attack(server, [endless_headers(connections=4)], caller=EchoCaller(), calls=30)
    outcome.assert_held(memory_mib=40)

* ``Served``: a server process (so its memory is its own: read from /proc, Linux only) on a free port.
* A caller makes one normal call and says what went wrong (``None`` when it was answered right); ``EchoCaller``
  sends stateless 2026-07-28 ``tools/call`` requests on one kept-alive connection. Session-level callers (a 2025
  session, a listen stream) fit the same shape.
* An attack is a function of (port, stop event) returning what it saw, run in its own thread from just before the
  normal calls under attack until they end; ``under_attack`` hands back each attack's result for the test to check
  (every junk token refused with 401, say).

Everything is bounded: a fixed count of calls and connections, a timeout on every socket, and attacks stop when
told. Latency is judged against a baseline measured in the same run, with generous bounds: this is a safety net
against stalls and floods, not a benchmark.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LATEST = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": LATEST, "io.modelcontextprotocol/clientCapabilities": {}}
SERVER_SCRIPT = Path(__file__).resolve().with_name("hostile_server.py")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

Attack = Callable[[int, threading.Event], Any]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def resident_kib(pid: int) -> int | None:
    """The process's resident memory (KiB), or ``None`` where /proc does not say."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


class Served:
    """``python tests/hostile_server.py --port P *arguments`` until the block ends."""

    def __init__(self, *arguments: str, command: Sequence[str] | None = None, env: dict[str, str] | None = None):
        self.port = free_port()
        base = list(command) if command is not None else [sys.executable, str(SERVER_SCRIPT)]
        self.command = [*base, "--port", str(self.port), *arguments]
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        # A file, not a pipe: a server logging a line per hostile request would fill a pipe nobody reads and stall.
        # Closed (its text kept) when the block ends.
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self._errors: str | None = None

    def __enter__(self) -> Served:
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=self._stderr, env=self.env)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    self.__exit__()
                    raise RuntimeError(f"the server did not start: {self.command}") from None
                time.sleep(0.03)

    def __exit__(self, *_: object) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self._errors is None:
            self._errors = self.errors()
            self._stderr.close()

    def memory(self) -> int | None:
        return resident_kib(self.process.pid) if self.process is not None else None

    def errors(self) -> str:
        """What the server wrote to stderr (so far, or until it stopped)."""
        if self._errors is not None:
            return self._errors
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")


# -- normal calls ------------------------------------------------------------------------------------------


@dataclass
class EchoCaller:
    """Stateless ``tools/call`` of ``echo`` on one kept-alive connection; ``token`` as a bearer token."""

    token: Callable[[], str] | None = None
    timeout: float = 20.0
    sent: int = 0
    _connection: http.client.HTTPConnection | None = None

    def __call__(self, port: int) -> str | None:
        self.sent += 1
        request_id = self.sent
        text = f"normal call {request_id}"
        body = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}, "_meta": META},
        }
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": LATEST,
            "mcp-method": "tools/call",
            "mcp-name": "echo",
        }
        if self.token is not None:
            headers["authorization"] = f"Bearer {self.token()}"
        if self._connection is None:
            self._connection = http.client.HTTPConnection("127.0.0.1", port, timeout=self.timeout)
        try:
            self._connection.request("POST", "/mcp", json.dumps(body), headers)
            response = self._connection.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.close()
            return f"call {request_id}: {type(exc).__name__}: {exc}"
        try:
            answer = json.loads(payload)
            if response.status == 200 and answer["id"] == request_id and answer["result"]["content"][0]["text"] == text:
                return None
        except (ValueError, KeyError, IndexError, TypeError):
            pass
        return f"call {request_id}: {response.status} {payload[:200]!r}"

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


# -- the run -------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    baseline: list[float]  # seconds per normal call before the attack
    attacked: list[float]  # ... while it ran
    failures: list[str]  # normal calls answered wrong or not at all
    memory_before: int | None  # KiB resident before the attack
    memory_peak: int | None  # KiB, the most seen while it ran
    results: list[Any] = field(default_factory=list)  # what each attack returned

    @property
    def memory_growth_mib(self) -> float | None:
        if self.memory_before is None or self.memory_peak is None:
            return None
        return (self.memory_peak - self.memory_before) / 1024

    def summary(self) -> str:
        def ms(values: list[float], q: float) -> str:
            if not values:
                return "-"
            ordered = sorted(values)
            return f"{ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000:.1f}"

        memory = "?"
        if self.memory_before is not None and self.memory_peak is not None:
            memory = f"{self.memory_before / 1024:.0f} -> {self.memory_peak / 1024:.0f} MiB"
        return (
            f"baseline p50 {ms(self.baseline, 0.5)} ms p99 {ms(self.baseline, 0.99)} ms; "
            f"under attack p50 {ms(self.attacked, 0.5)} ms p99 {ms(self.attacked, 0.99)} ms "
            f"max {ms(self.attacked, 1.0)} ms; memory {memory}; lost {len(self.failures)}"
        )

    def assert_held(self, *, memory_mib: float, slowdown: float = 10.0, slack: float = 0.25) -> None:
        """Nothing lost, memory within ``memory_mib`` of where it was, and the normal calls' median within
        ``slowdown`` times the baseline's plus ``slack`` seconds (no call over 3 s plus that)."""
        assert not self.failures, f"normal calls lost: {self.failures[:5]} ({self.summary()})"
        growth = self.memory_growth_mib
        if growth is not None:
            assert growth <= memory_mib, f"memory grew {growth:.0f} MiB ({self.summary()})"
        baseline = statistics.median(self.baseline)
        attacked = statistics.median(self.attacked)
        assert attacked <= baseline * slowdown + slack, f"normal calls slowed down: {self.summary()}"
        assert max(self.attacked) <= 3.0 + slack, f"a normal call stalled: {self.summary()}"


def _calls(
    caller: Callable[[int], str | None], port: int, count: int, failures: list[str], pace: float = 0.0
) -> list[float]:
    times = []
    for _ in range(count):
        if pace:
            time.sleep(pace)
        started = time.perf_counter()
        problem = caller(port)
        times.append(time.perf_counter() - started)
        if problem is not None:
            failures.append(problem)
    return times


@contextmanager
def _memory_watch(server: Served, peak: list[int]) -> Iterator[None]:
    done = threading.Event()

    def watch() -> None:
        while not done.wait(0.01):
            value = server.memory()
            if value is not None:
                peak[0] = max(peak[0], value)

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join(5)
        value = server.memory()
        if value is not None:
            peak[0] = max(peak[0], value)


def under_attack(
    server: Served,
    attacks: Sequence[Attack],
    *,
    caller: Callable[[int], str | None],
    calls: int = 30,
    ramp: float = 0.1,
    pace: float = 0.0,
) -> Outcome:
    """Time ``calls`` normal calls, then ``calls`` more while ``attacks`` run (each in its own thread, started
    ``ramp`` seconds before the normal calls resume and stopped after them); under attack ``pace`` seconds pass
    before each call, so the attack lasts at least ``calls * pace`` seconds."""
    failures: list[str] = []
    _calls(caller, server.port, 3, failures)  # warm up: the first call imports and compiles lazily
    baseline = _calls(caller, server.port, calls, failures)
    before = server.memory()
    peak = [before or 0]
    stop = threading.Event()
    results: list[Any] = [None] * len(attacks)

    def run(index: int, attack: Attack) -> None:
        results[index] = attack(server.port, stop)

    threads = [threading.Thread(target=run, args=(i, a), daemon=True) for i, a in enumerate(attacks)]
    with _memory_watch(server, peak):
        for thread in threads:
            thread.start()
        time.sleep(ramp)
        attacked = _calls(caller, server.port, calls, failures, pace)
        stop.set()
        for thread in threads:
            thread.join(30)
    return Outcome(baseline, attacked, failures, before, peak[0] if before is not None else None, results)


# -- attacks -------------------------------------------------------------------------------------------------


def _status(answer: bytes) -> int | None:
    """The status code of a raw HTTP answer, ``None`` when there was none."""
    if answer.startswith(b"HTTP/1.") and len(answer) >= 12:
        try:
            return int(answer[9:12])
        except ValueError:
            return None
    return None


def endless_headers(connections: int = 4, line: int = 1024, seconds: float = 30.0) -> Attack:
    """Keep ``connections`` connections busy, each starting a request and then sending header lines without end
    until the server answers or closes, then again on a new connection, until the attack is stopped (or
    ``seconds`` pass); the result is the status of every answer (``None``: closed without one)."""

    def attack(port: int, stop: threading.Event) -> list[int | None]:
        statuses: list[int | None] = []
        deadline = time.monotonic() + seconds

        def one() -> None:
            while not stop.is_set() and time.monotonic() < deadline:
                statuses.append(_endless_request(port, line, stop, deadline))

        workers = [threading.Thread(target=one, daemon=True) for _ in range(connections)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(seconds + 10)
        return statuses

    return attack


def _endless_request(port: int, line: int, stop: threading.Event, deadline: float) -> int | None:
    answer = b""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.setblocking(False)
        pending = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        n = 0
        while not stop.is_set() and time.monotonic() < deadline:
            try:
                chunk = sock.recv(4096)
            except BlockingIOError:
                chunk = None
            except OSError:
                break
            if chunk is not None:
                answer = chunk
                break
            if not pending:
                n += 1
                pending = b"X-Pad-%d: %s\r\n" % (n, b"a" * line)
            try:
                pending = pending[sock.send(pending) :]
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                break
        if not answer and not stop.is_set():  # it stopped sending (time is up): the answer may be on its way
            sock.setblocking(True)
            sock.settimeout(0.5)
            with contextlib.suppress(OSError):
                answer = sock.recv(4096)
    return _status(answer)


def raw_requests(requests: Sequence[bytes], repeat: int = 1) -> Attack:
    """Send each raw HTTP/1.1 request (``connection: close`` is added) on a connection of its own, ``repeat``
    rounds or until stopped; the result is each answer's status code and body, in order."""

    def attack(port: int, stop: threading.Event) -> list[tuple[int | None, bytes]]:
        answers: list[tuple[int | None, bytes]] = []
        for _ in range(repeat):
            for raw in requests:
                if stop.is_set() and answers:
                    return answers
                head, _, body = raw.partition(b"\r\n\r\n")
                message = head + b"\r\nConnection: close\r\n\r\n" + body
                answer = b""
                try:
                    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                        sock.sendall(message)
                        while chunk := sock.recv(65536):
                            answer += chunk
                except OSError:
                    pass
                answers.append((_status(answer), answer.partition(b"\r\n\r\n")[2]))
        return answers

    return attack


def post(body: bytes, *, headers: Sequence[tuple[str, str]] = (), host: str | None = "127.0.0.1") -> bytes:
    """A raw POST /mcp with ``body`` and exactly the given headers (repeats kept, in order)."""
    lines = [b"POST /mcp HTTP/1.1"]
    if host is not None:
        lines.append(b"Host: " + host.encode("latin-1"))
    lines += [
        b"Content-Type: application/json",
        b"Accept: application/json, text/event-stream",
        b"Content-Length: %d" % len(body),
    ]
    lines += [f"{name}: {value}".encode("latin-1") for name, value in headers]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def stateless_call(request_id: Any, text: str, *, raw_id: str | None = None, raw_text: str | None = None) -> bytes:
    """The body of an ``echo`` call; ``raw_id`` / ``raw_text``, when given, stand for the id and the text as
    written (JSON escapes kept)."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}, "_meta": META},
        }
    )
    # Spliced by key, so a value that also occurs elsewhere (an id of 2 in "2.0") is never the one replaced.
    if raw_id is not None:
        body = body.replace(f'"id": {json.dumps(request_id)}', f'"id": {raw_id}', 1)
    if raw_text is not None:
        body = body.replace(f'"text": {json.dumps(text)}', f'"text": {raw_text}', 1)
    return body.encode()


STATELESS_HEADERS = (("MCP-Protocol-Version", LATEST), ("Mcp-Method", "tools/call"), ("Mcp-Name", "echo"))


# -- 2025 sessions -------------------------------------------------------------------------------------------


def _connect(port: int, source: str | None, timeout: float = 10.0) -> http.client.HTTPConnection:
    return http.client.HTTPConnection(
        "127.0.0.1", port, timeout=timeout, source_address=(source, 0) if source is not None else None
    )


def session_headers(session_id: str | None = None, token: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if session_id is not None:
        headers["mcp-session-id"] = session_id
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    headers.update(extra)
    return headers


def initialize(
    port: int, version: str = "2025-11-25", *, token: str | None = None, source: str | None = None
) -> tuple[int, str | None]:
    """``initialize`` then ``notifications/initialized`` on a new session: (the status, the session id)."""
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {"elicitation": {}}, "clientInfo": {"name": "h"}},
    }
    connection = _connect(port, source)
    try:
        connection.request("POST", "/mcp", json.dumps(body), session_headers(token=token))
        response = connection.getresponse()
        response.read()
        session_id = response.getheader("mcp-session-id")
        if response.status != 200 or session_id is None:
            return response.status, None
        note = json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})
        connection.request("POST", "/mcp", note, session_headers(session_id, token))
        connection.getresponse().read()
        return response.status, session_id
    except (OSError, http.client.HTTPException):
        return 0, None
    finally:
        connection.close()


def session_request(
    port: int, session_id: str, message: Any, *, token: str | None = None, source: str | None = None
) -> tuple[int, bytes]:
    """One POST on a session, read to its end: (the status, the body)."""
    connection = _connect(port, source, timeout=30)
    try:
        connection.request("POST", "/mcp", json.dumps(message), session_headers(session_id, token))
        response = connection.getresponse()
        return response.status, response.read()
    except (OSError, http.client.HTTPException) as exc:
        return 0, repr(exc).encode()
    finally:
        connection.close()


def ask_and_leave(port: int, session_id: str, *, token: str | None = None) -> str | None:
    """Call the ``ask`` tool on a session over SSE and disconnect as soon as its question arrives; the question's
    id (``None`` when none came)."""
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
    connection = _connect(port, None)
    try:
        connection.request("POST", "/mcp", json.dumps(body), session_headers(session_id, token))
        response = connection.getresponse()
        while line := response.readline():
            if line.startswith(b"data: {") and b'"method"' in line:
                question: str = json.loads(line[6:])["id"]
                return question
        return None
    except (OSError, http.client.HTTPException):
        return None
    finally:
        connection.close()  # the client is gone, its question unanswered


def batch_of(count: int, method: str = "tools/list") -> bytes:
    return json.dumps([{"jsonrpc": "2.0", "id": n, "method": method} for n in range(count)]).encode()


def batches(
    session_id: str,
    body: bytes,
    *,
    repeat: int,
    connections: int = 1,
    accept: str | None = None,
    token: str | None = None,
) -> Attack:
    """POST ``body`` (a JSON-RPC batch) on a session ``repeat`` times on each of ``connections`` connections, or
    until stopped (``accept``: the Accept header, both media types by default); the result is (status, response
    bytes, seconds) per POST."""
    headers = session_headers(session_id, token, **({"accept": accept} if accept is not None else {}))

    def attack(port: int, stop: threading.Event) -> list[tuple[int, int, float]]:
        seen: list[tuple[int, int, float]] = []

        def one() -> None:
            for _ in range(repeat):
                if stop.is_set() and seen:
                    return
                connection = _connect(port, None, timeout=120)
                started = time.perf_counter()
                try:
                    connection.request("POST", "/mcp", body, headers)
                    response = connection.getresponse()
                    size = len(response.read())
                    seen.append((response.status, size, time.perf_counter() - started))
                except (OSError, http.client.HTTPException):
                    seen.append((0, 0, time.perf_counter() - started))
                finally:
                    connection.close()

        workers = [threading.Thread(target=one, daemon=True) for _ in range(connections)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(300)
        return seen

    return attack


def initialize_flood(count: int, *, token: str | None = None) -> Attack:
    """``count`` sessions opened (and left idle) as fast as they are answered, or until stopped; the statuses."""

    def attack(port: int, stop: threading.Event) -> list[int]:
        statuses: list[int] = []
        for _ in range(count):
            if stop.is_set() and statuses:
                break
            statuses.append(initialize(port, token=token)[0])
        return statuses

    return attack


@dataclass
class SessionCaller:
    """A normal 2025 client: ``echo`` on one session, answered over SSE; it opens its session on first use."""

    version: str = "2025-11-25"
    token: Callable[[], str] | None = None
    source: str | None = None
    session_id: str | None = None
    sent: int = 0

    def __call__(self, port: int) -> str | None:
        token = self.token() if self.token is not None else None
        if self.session_id is None:
            status, self.session_id = initialize(port, self.version, token=token, source=self.source)
            if self.session_id is None:
                return f"initialize: {status}"
        self.sent += 1
        text = f"session-call-{self.sent}"
        params = {"name": "echo", "arguments": {"text": text}}
        body = {"jsonrpc": "2.0", "id": self.sent, "method": "tools/call", "params": params}
        status, answer = session_request(port, self.session_id, body, token=token, source=self.source)
        if status == 200 and f'"text":"{text}"'.encode() in answer.replace(b" ", b""):
            return None
        return f"session call {self.sent}: {status} {answer[:200]!r}"


def pinned_questions(count: int, later: int, *, pause: float = 0.0, token: str | None = None) -> Attack:
    """Open ``count`` sessions, have each call ``ask`` and leave as soon as the question arrives (so every
    session has a question nobody will answer), wait ``pause`` seconds, then open ``later`` more sessions; the
    result is (questions asked, the statuses of the later ``initialize``)."""

    def attack(port: int, stop: threading.Event) -> tuple[int, list[int]]:
        asked = 0
        for _ in range(count):
            _, session_id = initialize(port, token=token)
            if session_id is not None and ask_and_leave(port, session_id, token=token) is not None:
                asked += 1
        time.sleep(pause)
        return asked, [initialize(port, token=token)[0] for _ in range(later)]

    return attack
