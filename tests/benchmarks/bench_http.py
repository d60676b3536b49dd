"""HTTP throughput of the weather tool's ``tools/call``: the official ``mcp`` SDK, fastmcp and ``mcptools serve``, over
loopback with wrk, one uvicorn worker each, in one interleaved run.

    apt-get update && apt-get install -y wrk          # the load generator (Debian's package)
    .venv/bin/pip install -e '.[bench,http-fast]'
    .venv/bin/python tests/benchmarks/bench_http.py               # writes RESULTS-http.md beside it
    .venv/bin/python tests/benchmarks/bench_http.py --quick       # 3 s runs, one round, for a look

Servers (every one serves the same weather tool: ``location: str, days: int = 1, units: "c" | "f"``, a string back):

* ``official``: the official SDK's ``MCPServer`` with ``json_response=True`` (``stateless_http=True`` in the
  stateless mode), under ``uvicorn.run`` with the standard stack (asyncio loop, h11).
* ``fastmcp``: fastmcp's ``http_app`` with the same options and stack.
* ``mcptools``: ``mcptools serve examples/weather.py --http --stack standard``: the command as shipped, on the same
  stack (equal footing).
* ``mcptools-fast``: the same command with ``--stack fast`` (uvloop and httptools, extra ``http-fast``).

Modes: ``stateless``, one self-contained 2026-07-28 POST per call (``_meta`` and the ``Mcp-*`` headers); and
``session``, a 2025-11-25 session opened once with ``initialize`` and then ``tools/call`` in it. Before measuring, one
request per server and mode must answer with the forecast, and any non-2xx answer under load invalidates the row.

Rounds are interleaved (round 1 of every server and mode, then round 2, ...), so drift of a shared machine hits
every row alike; each row reports the median over rounds of req/s, p50 and p99 (wrk's latency distribution).
It is not a test: speed is only ever measured here.
"""

from __future__ import annotations

import argparse
import datetime
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from charts import machine, write_charts

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).with_name("RESULTS-http.md")
PYTHON = sys.executable

ARGUMENTS = {"location": "Paris", "days": 3}
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0"},
}

# The peers' servers, written to a temporary directory and started as `python FILE PORT MODE`.
OFFICIAL = '''
import sys, uvicorn
from typing import Literal
from mcp.server import MCPServer

server = MCPServer("weather-server")

@server.tool()
def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Forecast the weather for a place."""
    symbol = "°C" if units == "c" else "°F"
    temperature = 21 if units == "c" else 70
    return f"{location}: sunny, {temperature}{symbol}, for the next {days} day(s)"

app = server.streamable_http_app(json_response=True, stateless_http=sys.argv[2] == "stateless")
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), loop="asyncio", http="h11", log_level="warning")
'''

FASTMCP = '''
import sys, uvicorn
from typing import Literal
from fastmcp import FastMCP

server = FastMCP("weather-server")

@server.tool
def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Forecast the weather for a place."""
    symbol = "°C" if units == "c" else "°F"
    temperature = 21 if units == "c" else 70
    return f"{location}: sunny, {temperature}{symbol}, for the next {days} day(s)"

app = server.http_app(path="/mcp", json_response=True, stateless_http=sys.argv[2] == "stateless")
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), loop="asyncio", http="h11", log_level="warning")
'''

SERVERS = ("official", "fastmcp", "mcptools", "mcptools-fast")
MODES = ("stateless", "session")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def command(server: str, port: int, mode: str, scratch: Path) -> list[str]:
    if server == "official":
        return [PYTHON, str(scratch / "official_server.py"), str(port), mode]
    if server == "fastmcp":
        return [PYTHON, str(scratch / "fastmcp_server.py"), str(port), mode]
    stack = "fast" if server == "mcptools-fast" else "standard"
    serve = [PYTHON, "-m", "mcptools", "serve", str(ROOT / "examples" / "weather.py"), "--http"]
    return [*serve, "--port", str(port), "--stack", stack]


def wait_listening(port: int, process: subprocess.Popen[bytes], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"server on port {port} did not listen within {timeout} s")


def post(port: int, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
        connection.request("POST", "/mcp", json.dumps(body), all_headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


def call_request(mode: str) -> tuple[dict[str, Any], dict[str, str]]:
    params: dict[str, Any] = {"name": "weather", "arguments": ARGUMENTS}
    headers: dict[str, str] = {}
    if mode == "stateless":
        params["_meta"] = META
        headers = {"Mcp-Method": "tools/call", "Mcp-Name": "weather", "MCP-Protocol-Version": "2026-07-28"}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}, headers


def prepare(port: int, mode: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The request wrk will repeat (opening the session first in session mode), checked to answer right."""
    body, headers = call_request(mode)
    if mode == "session":
        init = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1.0"},
            },
        }
        status, reply_headers, text = post(port, init, {})
        if status != 200 or "mcp-session-id" not in reply_headers:
            raise RuntimeError(f"initialize failed: {status} {text[:200]}")
        headers = {"Mcp-Session-Id": reply_headers["mcp-session-id"], "MCP-Protocol-Version": "2025-11-25"}
        post(port, {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers)
    status, _, text = post(port, body, headers)
    if status != 200 or "sunny" not in text:
        raise RuntimeError(f"tools/call did not answer with the forecast: {status} {text[:300]}")
    return body, headers


def lua_script(body: dict[str, Any], headers: dict[str, str], unique_ids: bool = False) -> str:
    """wrk's script: the same POST every time; with ``unique_ids`` each request gets an id of its own (in one
    session, JSON-RPC ids of requests in flight must differ: the official SDK routes answers by id, so 16
    connections repeating one id get each other's answers or 500 "Session terminated")."""
    lines = ['wrk.method = "POST"', f"wrk.body = {json.dumps(json.dumps(body))}"]
    all_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream", **headers}
    lines += [f"wrk.headers[{json.dumps(k)}] = {json.dumps(v)}" for k, v in all_headers.items()]
    if unique_ids:
        template = json.dumps({**body, "id": "@ID@"}).replace("%", "%%").replace('"@ID@"', "%d")
        lines += [
            "local threads = 0",
            "function setup(thread) threads = threads + 1; thread:set('base', threads * 1000000000) end",
            "local counter = 0",
            f"local template = {json.dumps(template)}",
            "function request()",
            "  counter = counter + 1",
            "  return wrk.format(nil, nil, nil, string.format(template, base + counter))",
            "end",
        ]
    return "\n".join(lines) + "\n"


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s)", text)
    if match is None:
        raise ValueError(f"unreadable latency {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


@dataclass
class Sample:
    rps: float
    p50: float
    p99: float
    errors: int


def run_wrk(port: int, script: Path, duration: float, connections: int, threads: int) -> Sample:
    args = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration:g}s", "--latency", "-s", str(script)]
    out = subprocess.run([*args, f"http://127.0.0.1:{port}/mcp"], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = _ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = _ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    non_2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    socket_errors = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    errors = int(non_2xx.group(1)) if non_2xx else 0
    if socket_errors:
        errors += sum(int(g) for g in socket_errors.groups())
    return Sample(rps, p50, p99, errors)


@dataclass
class Row:
    server: str
    mode: str
    samples: list[Sample] = field(default_factory=list)

    def median(self, attribute: str) -> float:
        return float(statistics.median(float(getattr(s, attribute)) for s in self.samples))


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def write_results(rows: dict[tuple[str, str], Row], args: argparse.Namespace, skipped: dict[str, str]) -> str:
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [
        "# HTTP throughput: `tools/call` of the weather tool over loopback",
        "",
        f"Written by `tests/benchmarks/bench_http.py` on {now}: wrk, {args.connections} connections, {args.threads} "
        f"threads, {args.duration:g} s per run, {args.rounds} interleaved rounds (median of rounds shown), one "
        f"uvicorn worker per server. Python {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} CPUs; uvicorn {version('uvicorn')}, mcp {version('mcp')}, fastmcp {version('fastmcp')}, "
        f"uvloop {version('uvloop')}, httptools {version('httptools')}.",
        "",
        f"- Machine: {machine()}",
        "",
        "Equal footing: official, fastmcp and `mcptools` all run uvicorn's standard stack (asyncio, h11);",
        "`mcptools-fast` is the same `mcptools serve` command on uvloop + httptools (extra `http-fast`).",
        "",
        "A row marked `(N failed)` had N requests that were not answered 2xx or timed out (wrk's 2 s): wrk leaves",
        "timed-out requests out of its latency figures, so such a row's p50/p99 look better than its clients saw.",
        "The machine may be shared: compare ratios within one run, not figures across runs.",
        "",
    ]
    for mode in MODES:
        title = "2026-07-28 stateless POSTs" if mode == "stateless" else "a 2025-11-25 session"
        out += [f"## {title}", "", "| server | req/s | p50 ms | p99 ms | vs official req/s | vs official p99 |"]
        out.append("|---|---|---|---|---|---|")
        base = rows.get(("official", mode))
        for server in SERVERS:
            row = rows.get((server, mode))
            if row is None or not row.samples:
                reason = skipped.get(server, "not run")
                out.append(f"| {server} | - | - | - | {reason} | |")
                continue
            rps, p50, p99 = row.median("rps"), row.median("p50"), row.median("p99")
            errors = sum(s.errors for s in row.samples)
            ratio = f"{rps / base.median('rps'):.2f}x" if base and base.samples else "-"
            p99_ratio = f"{p99 / base.median('p99'):.2f}x" if base and base.samples else "-"
            note = f" ({errors} failed)" if errors else ""
            out.append(f"| {server}{note} | {rps:,.0f} | {p50:.1f} | {p99:.1f} | {ratio} | {p99_ratio} |")
        out.append("")
    text = "\n".join(out)
    if not args.no_write:
        RESULTS.write_text(text)
        write_charts(RESULTS)
    return text


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="3 s runs, one round")
    parser.add_argument("--servers", default=",".join(SERVERS), help="comma-separated subset")
    parser.add_argument("--no-write", action="store_true", help="print the table, leave RESULTS-http.md alone")
    args = parser.parse_args()
    if args.quick:
        args.duration, args.rounds = 3.0, 1
    if shutil.which("wrk") is None:
        sys.stderr.write("bench_http: wrk is not installed: apt-get update && apt-get install -y wrk\n")
        return 2
    wanted = [s for s in args.servers.split(",") if s in SERVERS]
    skipped: dict[str, str] = {}
    for server, package in (("official", "mcp"), ("fastmcp", "fastmcp"), ("mcptools-fast", "uvloop")):
        if server in wanted and version(package) == "not installed":
            skipped[server] = f"{package} not installed"
    servers = [s for s in wanted if s not in skipped]
    rows: dict[tuple[str, str], Row] = {}
    with tempfile.TemporaryDirectory() as scratch_name:
        scratch = Path(scratch_name)
        (scratch / "official_server.py").write_text(OFFICIAL)
        (scratch / "fastmcp_server.py").write_text(FASTMCP)
        running: dict[tuple[str, str], tuple[subprocess.Popen[bytes], int, Path]] = {}
        try:
            for mode in MODES:
                for server in servers:
                    port = free_port()
                    process = subprocess.Popen(
                        command(server, port, mode, scratch),
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        cwd=scratch,
                        start_new_session=True,
                    )
                    try:
                        wait_listening(port, process)
                        body, headers = prepare(port, mode)
                    except RuntimeError as exc:
                        process.kill()
                        skipped[server] = f"failed: {exc}"[:120]
                        continue
                    script = scratch / f"{server}-{mode}.lua"
                    script.write_text(lua_script(body, headers, unique_ids=mode == "session"))
                    running[(server, mode)] = (process, port, script)
                    rows[(server, mode)] = Row(server, mode)
            for round_number in range(args.rounds):
                for key, (_process, port, script) in running.items():
                    sample = run_wrk(port, script, args.duration, args.connections, args.threads)
                    rows[key].samples.append(sample)
                    print(
                        f"round {round_number + 1} {key[0]:>14} {key[1]:>9}: {sample.rps:8.0f} req/s "
                        f"p50 {sample.p50:6.1f} ms p99 {sample.p99:6.1f} ms errors {sample.errors}",
                        flush=True,
                    )
        finally:
            for process, _port, _script in running.values():
                os.killpg(process.pid, signal.SIGTERM)
            for process, _port, _script in running.values():
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
    print(write_results(rows, args, skipped))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
