"""End-to-end ``tools/call`` benchmark: ``registry.handle`` against the official ``mcp`` SDK and fastmcp, in one run.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python tests/benchmarks/bench_handle.py            # full run, writes RESULTS-handle.md beside it
    .venv/bin/python tests/benchmarks/bench_handle.py --quick    # fewer, shorter batches, for a look

Every implementation serves the same weather tool (``location: str, days: int = 1, units: Literal["c", "f"] = "c"``
returning a string), registered once as a sync function and once as an ``async def`` twin, and answers the same
decoded JSON-RPC ``tools/call`` request: "valid" arguments pass, "invalid" ones carry three errors. What one call
is for each row is spelled out in ``PATHS`` and copied into the results file. It is not a test: speed is only ever
measured here, never asserted.

Batches of all rows are interleaved round-robin, so drift of the machine hits every row alike; each row's figure
is the median over the batches of (batch time / calls in the batch). Sync rows run in a thread with no event loop
(as ``registry.handle`` is used by a sync server), async rows in the one running event loop, awaited in a loop.
Logging is switched off for everyone: the peers log every rejected call, and their log handlers are not what is
being compared.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import functools
import logging
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from charts import machine, write_charts

import mcptools

RESULTS = Path(__file__).with_name("RESULTS-handle.md")

VALID: dict[str, Any] = {"location": "Paris", "days": 3}
# Three errors for every implementation: a wrong type, an unparsable integer and a value outside the enum.
INVALID: dict[str, Any] = {"location": 5, "days": "x", "units": "k"}
ARGUMENTS = {"valid": VALID, "invalid": INVALID}
ArgumentsKind = Literal["valid", "invalid"]
ARGUMENT_KINDS: tuple[ArgumentsKind, ...] = ("valid", "invalid")

PROTOCOL_VERSION = "2026-07-28"
# The per-request envelope of MCP 2026-07-28, which the peers' stateless path requires.
ENVELOPE: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1.0"},
}

PATHS: dict[str, str] = {
    "handle": "`registry.handle(request)`: the sync entry point, called with no event loop running; "
    "envelope check, routing, compiled validation, the call, the result dict.",
    "handle_async": "`await registry.handle_async(request)` inside the running loop (the protocol engine); "
    "an async tool is awaited, a sync one goes to a worker thread (`asyncio.to_thread`).",
    "call_tool": "`mcptools.call_tool(registry.tools, request)`: the bare validate-and-call contract.",
    "kernel": "The SDK's own single-exchange path for a decoded 2026-07-28 request, exactly what its "
    "Streamable HTTP entry does between `json.loads` and writing bytes, minus HTTP: "
    "`JSONRPCRequest.model_validate`, `classify_inbound_request`, `Connection.from_envelope`, "
    "`serve_one` (middleware, params model, argument validation, the call, result sieve) wrapped by "
    "`_to_jsonrpc_response`, then `model_dump(mode='json')` to a dict. No transport, no sockets.",
    "stream": "The SDK's `InMemoryTransport` (the server's real dispatcher loop over in-memory streams, no "
    "JSON text): one round trip of a prebuilt `SessionMessage` in, the reply out. 2025: after `initialize`; "
    "2026: each request carries the envelope.",
    "client": "The library's in-process client (`mcp.Client(server)` / `fastmcp.Client(server)`), "
    "`await client.call_tool(...)`: includes the client's own request building and result parsing.",
}


def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Get the weather forecast for a place.

    Args:
        location: City name, e.g. "Paris".
        days: How many days ahead.
        units: Celsius or Fahrenheit.
    """
    return f"{location}: sunny for {days} day(s), temperatures in degrees {units.upper()}"


async def weather_async(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Get the weather forecast for a place.

    Args:
        location: City name, e.g. "Paris".
        days: How many days ahead.
        units: Celsius or Fahrenheit.
    """
    return weather(location, days, units)


TOOL_NAMES = {"sync": "weather", "async": "weather_async"}


def request(tool: str, arguments: str, *, envelope: bool) -> dict[str, Any]:
    params: dict[str, Any] = {"name": TOOL_NAMES[tool], "arguments": dict(ARGUMENTS[arguments])}
    if envelope:
        params["_meta"] = dict(ENVELOPE)
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


Outcome = tuple[bool, str]


def dict_outcome(response: Any) -> Outcome:
    """(isError, first text) of a JSON-RPC response dict; a JSON-RPC error counts as an error."""
    if "error" in response:
        return True, str(response["error"].get("message"))
    result = response["result"]
    return bool(result["isError"]), str(result["content"][0]["text"])


@dataclass
class Case:
    """One row: what is called, how its answer is read, and what it is compared with."""

    implementation: str
    path: str
    tool: Literal["sync", "async"]
    arguments: ArgumentsKind
    envelope: bool
    read: Callable[[Any], Outcome] = dict_outcome
    call: Callable[[], Any] | None = None
    acall: Callable[[], Awaitable[Any]] | None = None
    per_call: list[float] = field(default_factory=list)

    @property
    def request_label(self) -> str:
        return PROTOCOL_VERSION if self.envelope else "2025 (no `_meta`)"

    async def once(self) -> Outcome:
        """Call it one time and check that the answer is the one this row claims to time."""
        if self.call is not None:
            response = await asyncio.to_thread(self.call)
        else:
            assert self.acall is not None
            response = await self.acall()
        outcome = self.read(response)
        is_error, text = outcome
        expected_error = self.arguments == "invalid"
        if is_error != expected_error or (not is_error and "Paris" not in text):
            raise AssertionError(f"{self.implementation} {self.path} {self.arguments}: unexpected answer {outcome}")
        return outcome

    async def batch(self, number: int) -> float:
        """Seconds for ``number`` calls."""
        if self.call is not None:
            return await asyncio.to_thread(_sync_batch, self.call, number)
        assert self.acall is not None
        acall = self.acall
        start = time.perf_counter()
        for _ in range(number):
            await acall()
        return time.perf_counter() - start


def _sync_batch(call: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        call()
    return time.perf_counter() - start


def mcptools_registry() -> mcptools.ToolRegistry:
    registry = mcptools.ToolRegistry("bench")
    registry.add(weather)
    registry.add(weather_async)
    return registry


def mcptools_cases(registry: mcptools.ToolRegistry | None = None) -> list[Case]:
    registry = registry if registry is not None else mcptools_registry()
    cases: list[Case] = []
    for envelope in (False, True):
        for arguments in ARGUMENT_KINDS:
            message = request("sync", arguments, envelope=envelope)
            cases.append(Case("mcptools", "handle", "sync", arguments, envelope, call=_bind(registry.handle, message)))
    for tool in ("async", "sync"):
        for envelope in (False, True):
            for arguments in ARGUMENT_KINDS:
                if tool == "sync" and arguments == "invalid":
                    continue  # rejected before any thread is involved: the same as the async row
                message = request(tool, arguments, envelope=envelope)
                cases.append(
                    Case(
                        "mcptools",
                        "handle_async",
                        tool,
                        arguments,
                        envelope,
                        acall=_abind(registry.handle_async, message),
                    )
                )
    for arguments in ARGUMENT_KINDS:
        message = request("sync", arguments, envelope=False)
        cases.append(
            Case(
                "mcptools",
                "call_tool",
                "sync",
                arguments,
                False,
                call=_bind(mcptools.call_tool, registry.tools, message),
            )
        )
    return cases


def _bind(function: Callable[..., Any], *args: Any) -> Callable[[], Any]:
    # functools.partial rather than a lambda: one C-level hop, the same for every row.
    return functools.partial(function, *args)


def _abind(function: Callable[..., Awaitable[Any]], *args: Any) -> Callable[[], Awaitable[Any]]:
    return functools.partial(function, *args)


# -- the peers -----------------------------------------------------------------------------------------------------


def sdk_server() -> Any:
    """The official SDK's high-level server with the weather tools."""
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("bench")
    server.add_tool(weather)
    server.add_tool(weather_async)
    return server


def fastmcp_server() -> Any:
    import fastmcp

    server = fastmcp.FastMCP("bench")
    server.tool(weather)
    server.tool(weather_async)
    return server


def sdk_kernel(lowlevel: Any, lifespan_state: Any) -> Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]:
    """The SDK's single-exchange handling of one decoded request, as its HTTP entry runs it (see ``PATHS``)."""
    from mcp.server._streamable_http_modern import _SingleExchangeDispatchContext, _to_jsonrpc_response
    from mcp.server.connection import Connection
    from mcp.server.runner import serve_one
    from mcp.shared.inbound import InboundLadderRejection, classify_inbound_request
    from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
    from mcp.shared.transport_context import TransportContext
    from mcp.types import JSONRPCRequest

    async def handle(decoded: dict[str, Any]) -> dict[str, Any]:
        parsed: Any = JSONRPCRequest.model_validate(decoded)
        verdict: Any = classify_inbound_request(decoded)
        if isinstance(verdict, InboundLadderRejection):
            raise AssertionError(f"the SDK refused the benchmark's envelope: {verdict}")
        connection = Connection.from_envelope(
            verdict.protocol_version, verdict.client_info, verdict.client_capabilities
        )
        dctx = _SingleExchangeDispatchContext(
            transport=TransportContext(kind="streamable-http", can_send_request=False),
            request_id=parsed.id,
            message_metadata=None,
            progress_token=progress_token_from_params(parsed.params),
        )
        served = serve_one(
            lowlevel, dctx, parsed.method, parsed.params, connection=connection, lifespan_state=lifespan_state
        )
        reply: Any = await _to_jsonrpc_response(parsed.id, served)
        dumped: dict[str, Any] = reply.model_dump(mode="json", by_alias=True, exclude_none=True)
        return dumped

    return handle


async def sdk_stream(stack: AsyncExitStack, lowlevel: Any, *, legacy: bool) -> Callable[[Any], Awaitable[Any]]:
    """A round trip over the SDK's ``InMemoryTransport``; with ``legacy``, on a session opened by ``initialize``."""
    from mcp.client._memory import InMemoryTransport
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCNotification, JSONRPCRequest

    read, write = await stack.enter_async_context(InMemoryTransport(lowlevel))

    async def round_trip(message: Any) -> Any:
        await write.send(message)
        reply: Any = await read.receive()
        return reply.message

    if legacy:
        opening = {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        }
        await round_trip(SessionMessage(JSONRPCRequest.model_validate(opening)))
        await write.send(SessionMessage(JSONRPCNotification(jsonrpc="2.0", method="notifications/initialized")))

    def prebuilt(decoded: dict[str, Any]) -> Any:
        return SessionMessage(JSONRPCRequest.model_validate(decoded))

    async def call(message: Any) -> Any:
        return await round_trip(message)

    call.prebuild = prebuilt  # type: ignore[attr-defined]
    return call


def model_outcome(response: Any) -> Outcome:
    """(isError, first text) of a reply model: a JSON-RPC response or a ``CallToolResult``."""
    result = getattr(response, "result", response)
    if isinstance(result, dict):
        return bool(result.get("isError")), str(result["content"][0]["text"])
    if hasattr(response, "error"):
        return True, str(response.error.message)
    return bool(result.is_error), str(result.content[0].text)


async def peer_cases(stack: AsyncExitStack, which: str, *, clients: bool = True) -> list[Case]:
    """The rows of one peer (``"mcp"`` or ``"fastmcp"``), its servers started on ``stack``."""
    if which == "mcp":
        server = sdk_server()
        lowlevel = server._lowlevel_server
    else:
        server = fastmcp_server()
        lowlevel = server._mcp_server
    lifespan_state = await stack.enter_async_context(lowlevel.lifespan(lowlevel))
    kernel = sdk_kernel(lowlevel, lifespan_state)
    cases: list[Case] = []
    for tool in ("async", "sync"):
        for arguments in ARGUMENT_KINDS:
            if tool == "sync" and arguments == "invalid":
                continue  # rejected before the thread hop: the same work as the async row
            message = request(tool, arguments, envelope=True)
            cases.append(Case(which, "kernel", tool, arguments, True, acall=_abind(kernel, message)))
    for legacy in (True, False):
        stream = await sdk_stream(stack, lowlevel, legacy=legacy)
        for arguments in ARGUMENT_KINDS:
            prebuilt = stream.prebuild(request("async", arguments, envelope=not legacy))  # type: ignore[attr-defined]
            cases.append(
                Case(
                    which, "stream", "async", arguments, not legacy, read=model_outcome, acall=_abind(stream, prebuilt)
                )
            )
    if clients:
        client = await stack.enter_async_context(_client(which, server))
        call_tool: Callable[..., Awaitable[Any]] = client.call_tool
        cases.append(
            Case(
                which,
                "client",
                "async",
                "valid",
                True,
                read=model_outcome,
                acall=_abind(call_tool, TOOL_NAMES["async"], dict(VALID)),
            )
        )
    return cases


def _client(which: str, server: Any) -> Any:
    if which == "mcp":
        import mcp

        return mcp.Client(server)
    import fastmcp

    return fastmcp.Client(server)


def installed(module: str) -> bool:
    try:
        __import__(module)
    except ImportError:
        return False
    return True


# -- running and reporting -----------------------------------------------------------------------------------------


async def calibrate(case: Case, budget: float) -> int:
    """Calls per batch so that one batch takes about ``budget`` seconds."""
    number = 1
    while True:
        elapsed = await case.batch(number)
        if elapsed >= budget or number >= 1 << 22:
            return number
        number = max(number * 2, int(number * budget / max(elapsed, 1e-9) * 1.1))


async def measure(cases: list[Case], *, rounds: int, budget: float) -> None:
    """Fill each case's ``per_call`` with ``rounds`` samples, batches interleaved round-robin."""
    sizes = [await calibrate(case, budget) for case in cases]
    order = list(zip(cases, sizes, strict=True))
    for round_number in range(rounds):
        # Rotate the starting row so no row always follows the same neighbour.
        shift = round_number % len(cases)
        for case, number in order[shift:] + order[:shift]:
            case.per_call.append(await case.batch(number) / number)


def median_ns(case: Case) -> float:
    return statistics.median(case.per_call) * 1e9


def spread(case: Case) -> str:
    """The interquartile range as a share of the median."""
    if len(case.per_call) < 4:
        return "-"
    q1, _, q3 = statistics.quantiles(case.per_call, n=4)
    return f"±{(q3 - q1) / 2 / statistics.median(case.per_call) * 100:.0f}%"


def reference(cases: list[Case], path: str, case: Case, *, tool: str = "sync") -> Case | None:
    """The mcptools row ``path`` with the same arguments and the same request as ``case``."""
    for candidate in cases:
        if (
            candidate.implementation == "mcptools"
            and candidate.path == path
            and candidate.tool == tool
            and candidate.arguments == case.arguments
            and candidate.envelope == case.envelope
        ):
            return candidate
    return None


def ratio(case: Case, base: Case | None) -> str:
    if base is None or not base.per_call:
        return "-"
    times = median_ns(case) / median_ns(base)
    return f"{times:.2f}x" if times < 10 else f"{times:,.0f}x"


def handle_table(cases: list[Case]) -> list[str]:
    lines = [
        "| implementation | path | tool | arguments | request | median ns per call | IQR | "
        "÷ `handle` | ÷ `handle_async` (same tool) |",
        "|---|---|---|---|---|---:|---:|---:|---:|",
    ]
    for case in cases:
        lines.append(
            f"| {case.implementation} | {case.path} | {case.tool} | {case.arguments} | {case.request_label} "
            f"| {median_ns(case):,.0f} | {spread(case)} | {ratio(case, reference(cases, 'handle', case))} "
            f"| {ratio(case, reference(cases, 'handle_async', case, tool=case.tool))} |"
        )
    return lines


def targets(cases: list[Case]) -> list[str]:
    """The issue's targets, judged against each peer's cheapest path (the comparison least kind to mcptools)."""
    lines = ["## Targets", ""]
    for peer, goal in (("mcp", 50), ("fastmcp", 100)):
        for arguments in ARGUMENT_KINDS:
            rows = [c for c in cases if c.implementation == peer and c.arguments == arguments and c.per_call]
            if not rows:
                lines.append(f"- {peer}: not installed, not measured.")
                break
            cheapest = min(rows, key=median_ns)
            for envelope in (False, True):
                ours = next(
                    (
                        c
                        for c in cases
                        if c.implementation == "mcptools"
                        and c.path == "handle"
                        and c.arguments == arguments
                        and c.envelope == envelope
                    ),
                    None,
                )
                if ours is None or not ours.per_call:
                    continue
                times = median_ns(cheapest) / median_ns(ours)
                verdict = "met" if times >= goal else "NOT met"
                lines.append(
                    f"- {peer}, {arguments} arguments: cheapest peer path `{cheapest.path}` ({cheapest.tool} tool) "
                    f"{median_ns(cheapest) / 1000:,.1f} µs vs `registry.handle` with a {ours.request_label} request "
                    f"{median_ns(ours) / 1000:,.2f} µs: **{times:,.1f}x** (target {goal}x: {verdict})"
                )
    return lines


def versions() -> str:
    found = []
    for package in ("mcptools", "mcp", "fastmcp", "pydantic", "pydantic-core", "anyio"):
        try:
            found.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            found.append(f"{package} (not installed)")
    return ", ".join(found)


def revision() -> str:
    """The commit measured, and whether mcptools/ in the working tree differed from it."""
    import subprocess

    root = Path(__file__).resolve().parents[2]

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        dirty = git("status", "--porcelain", "--", "mcptools")
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"{commit}{', with uncommitted changes in mcptools/' if dirty else ''}"


def load() -> str:
    try:
        return ", ".join(f"{value:.2f}" for value in os.getloadavg())
    except OSError:
        return "unknown"


def handle_section(*, rounds: int, budget: float, clients: bool = True) -> list[str]:
    """Measure every row and return the section as markdown lines."""
    cases = asyncio.run(_collect_and_measure(rounds=rounds, budget=budget, clients=clients))
    lines = [
        "## `tools/call` end to end (ns per call, median over batches; ratios = row ÷ mcptools row with the same "
        "arguments and the same request)",
        "",
    ]
    lines += handle_table(cases)
    lines += ["", "What one call is, per path:", ""]
    lines += [f"- **{path}**: {text}" for path, text in PATHS.items()]
    lines += [
        "",
        "Peers' valid answers also carry `structuredContent` (their default for a `-> str` tool); mcptools sends "
        "text only, as its contract says.",
        "",
    ]
    lines += targets(cases)
    return lines


async def _collect_and_measure(*, rounds: int, budget: float, clients: bool) -> list[Case]:
    logging.disable(logging.CRITICAL)
    async with AsyncExitStack() as stack:
        cases = mcptools_cases()
        for peer, module in (("mcp", "mcp.server.mcpserver"), ("fastmcp", "fastmcp")):
            if installed(module):
                cases += await peer_cases(stack, peer, clients=clients)
        for case in cases:
            await case.once()
        await measure(cases, rounds=rounds, budget=budget)
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 short batches per row instead of 25")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the results file; its charts are drawn beside it")
    parser.add_argument("--no-import", action="store_true", help="skip the import-time section")
    options = parser.parse_args()
    rounds, budget, import_runs = (3, 0.005, 3) if options.quick else (25, 0.04, 20)
    started = time.perf_counter()
    lines = [
        "# `registry.handle` against the official SDK and fastmcp",
        "",
        f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC by "
        f"`tests/benchmarks/bench_handle.py{' --quick' if options.quick else ''}`: "
        f"{rounds} interleaved batches per row of about {budget * 1000:.0f} ms each. Lower is better.",
        "",
        f"- Python {platform.python_version()} ({platform.python_implementation()})",
        f"- Machine: {machine()}",
        f"- Packages: {versions()}",
        f"- mcptools code: commit {revision()}",
        f"- Load average at start (1, 5, 15 min): {load()}: other work on the machine inflates every row; the "
        "interleaving keeps the ratios fair, the absolute figures are only as quiet as the machine was",
        "",
    ]
    lines += handle_section(rounds=rounds, budget=budget)
    if not options.no_import:
        from bench_import import import_section

        lines += ["", *import_section(runs=import_runs)]
    lines += ["", f"_Run took {time.perf_counter() - started:.0f} s; load average at the end: {load()}._", ""]
    text = "\n".join(lines)
    print(text)
    options.out.write_text(text)
    write_charts(options.out, kind=RESULTS.name)


if __name__ == "__main__":
    main()
