"""stdio benchmark: sequential ``tools/call`` round trips over pipes, mcptools beside the official SDK and fastmcp.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python tests/benchmarks/bench_stdio.py            # full run, writes RESULTS-stdio.md beside it
    .venv/bin/python tests/benchmarks/bench_stdio.py --quick    # fewer, shorter batches, for a look

Each server is a real subprocess serving the same weather tool over stdio, as an MCP client launches one: mcptools
(``registry.run()``: uvloop when installed), the same on asyncio's own loop (``registry.run(stack="standard")``),
the official SDK's ``MCPServer`` (``run("stdio")``) and fastmcp's ``FastMCP``. The client here
writes JSON lines to the server's stdin and reads its stdout, one request at a time (a round trip is one
``tools/call`` written and its response read), after the 2025-11-25 handshake; a "pipe" row is a process that
answers every line with a canned response, the floor that the pipe and this client cost. Batches of all rows are
interleaved round-robin, so drift of the machine hits every row alike; each row's figure is the median over the
batches of (batch time / round trips). It is not a test: speed is only ever measured here. The chart on the docs'
benchmarks page is redrawn from the results file on every run (``charts.write_charts``; a run written elsewhere
with ``--out`` draws its charts beside that file).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from charts import machine, write_charts

ROOT = Path(__file__).resolve().parents[2]
RESULTS = Path(__file__).with_name("RESULTS-stdio.md")

TOOL = '''
def weather(location: str, days: int = 1) -> str:
    """Get the weather forecast for a place.

    Args:
        location: City name, e.g. "Paris".
        days: How many days ahead.
    """
    return f"{location}: sunny for {days} day(s)"
'''

SERVERS: dict[str, str] = {
    "mcptools": "from mcptools import ToolRegistry\nserver = ToolRegistry('bench')\n"
    + TOOL
    + "server.add(weather)\nserver.run()\n",
    "mcptools standard": "from mcptools import ToolRegistry\nserver = ToolRegistry('bench')\n"
    + TOOL
    + "server.add(weather)\nserver.run(stack='standard')\n",
    "mcp": "from mcp.server.mcpserver import MCPServer\nserver = MCPServer('bench')\n"
    + TOOL
    + "server.tool()(weather)\nserver.run('stdio')\n",
    "fastmcp": "from fastmcp import FastMCP\nserver = FastMCP('bench')\n"
    + TOOL
    + "server.tool(weather)\nserver.run('stdio', show_banner=False)\n",
    # The floor: a process that reads a line and writes a canned response, with the same client on the other end.
    "pipe": textwrap.dedent(
        """
        import sys
        out = sys.stdout.buffer
        for line in sys.stdin.buffer:
            if b'"id"' in line:
                out.write(b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"Paris: sunny"}]}}\\n')
                out.flush()
        """
    ),
}

CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "weather", "arguments": {"location": "Paris", "days": 3}},
}


@dataclass
class Server:
    name: str
    process: subprocess.Popen[bytes]
    per_call: list[float] = field(default_factory=list)

    def exchange(self, line: bytes) -> dict[str, Any]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line)
        self.process.stdin.flush()
        while True:
            answer = self.process.stdout.readline()
            if not answer:
                raise RuntimeError(f"{self.name} closed its stdout")
            message: dict[str, Any] = json.loads(answer)
            if "id" in message:  # skip notifications (logs) the server may send
                return message

    def batch(self, number: int) -> float:
        line = json.dumps(CALL).encode() + b"\n"
        start = time.perf_counter()
        for _ in range(number):
            self.exchange(line)
        return time.perf_counter() - start


def start(name: str, folder: Path) -> Server:
    script = folder / f"server_{name.replace(' ', '_')}.py"
    script.write_text(SERVERS[name], encoding="utf-8")
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "FASTMCP_LOG_LEVEL": "WARNING"}
    process = subprocess.Popen(
        [sys.executable, str(script)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=folder,
        env=env,
    )
    server = Server(name, process)
    if name != "pipe":
        initialize = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "0"},
            },
        }
        server.exchange(json.dumps(initialize).encode() + b"\n")
        assert process.stdin is not None
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        process.stdin.flush()
    answer = server.exchange(json.dumps(CALL).encode() + b"\n")
    text = answer["result"]["content"][0]["text"]
    if "Paris" not in text or answer["result"].get("isError"):
        raise AssertionError(f"{name}: unexpected answer {answer}")
    return server


def stop(server: Server) -> None:
    assert server.process.stdin is not None
    server.process.stdin.close()
    try:
        server.process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.process.kill()


def version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def report(servers: list[Server], batches: int, calls: int) -> str:
    medians = {server.name: statistics.median(server.per_call) for server in servers}
    ours = medians["mcptools"]
    lines = [
        "# stdio: sequential `tools/call` round trips, mcptools beside the official SDK and fastmcp",
        "",
        f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
        f"`tests/benchmarks/bench_stdio.py`: {batches} interleaved batches of {calls} round trips per server.",
        "",
        f"- Python {platform.python_version()} ({platform.python_implementation()})",
        f"- Machine: {machine()}",
        f"- Packages: mcptools {version('mcptools')}, mcp {version('mcp')}, fastmcp {version('fastmcp')}, "
        f"uvloop {version('uvloop')} (the `mcptools` row's loop when installed; `mcptools standard`: asyncio's)",
        f"- Load average at start: {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
        "",
        "| server | median µs per round trip | IQR | round trips per second | mcptools' rate ÷ this one's |",
        "|---|---:|---:|---:|---:|",
    ]
    for server in servers:
        median = medians[server.name]
        q1, _, q3 = statistics.quantiles(server.per_call, n=4)
        lines.append(
            f"| {server.name} | {median * 1e6:,.1f} | ±{(q3 - q1) / 2 / median * 100:.0f}% | {1 / median:,.0f} | "
            f"{median / ours:.2f}x |"
        )
    lines += [
        "",
        "## Targets",
        "",
        f"- official SDK: **{medians['mcp'] / ours:.2f}x** its rate (target 5x: "
        f"{'met' if medians['mcp'] / ours >= 5 else 'NOT met'})",
        f"- fastmcp: **{medians['fastmcp'] / ours:.2f}x** its rate (target 3x: "
        f"{'met' if medians['fastmcp'] / ours >= 3 else 'NOT met'})",
        f"- the pipe and this client alone: {medians['pipe'] * 1e6:,.1f} µs a round trip",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter batches")
    parser.add_argument("--no-write", action="store_true", help=f"print only, do not write {RESULTS.name}")
    parser.add_argument("--out", type=Path, default=RESULTS, help="where to write the results (and redraw the chart)")
    args = parser.parse_args()
    batches, calls = (5, 200) if args.quick else (21, 500)
    with tempfile.TemporaryDirectory() as folder:
        servers = [start(name, Path(folder)) for name in SERVERS]
        try:
            for server in servers:  # warm up
                server.batch(calls // 5)
            for _ in range(batches):
                for server in servers:
                    server.per_call.append(server.batch(calls) / calls)
        finally:
            for server in servers:
                stop(server)
    text = report(servers, batches, calls)
    print(text)
    if not args.no_write:
        args.out.write_text(text, encoding="utf-8")
        write_charts(args.out, kind=RESULTS.name)


if __name__ == "__main__":
    main()
