"""Registration benchmark: what defining tools costs, mcptools against the official ``mcp`` SDK and fastmcp, in one run.

    .venv/bin/pip install -e '.[bench]'
    .venv/bin/python tests/benchmarks/bench_register.py            # full run, writes RESULTS-register.md beside it
    .venv/bin/python tests/benchmarks/bench_register.py --quick    # fewer rounds, for a look

Three scenarios, each registering freshly made functions (made before the clock starts) into a fresh server:

- ``weather``: the contract's weather tool (``location: str, days: int = 1, units: Literal["c", "f"] = "c"`` with a
  docstring describing each argument), a batch of ``BATCH`` copies with distinct names and descriptions;
- ``nested``: a tool taking a dataclass, ``list[str]``, ``TypedDict | None`` and ``set[str]``, likewise;
- ``1000 tools``: 1,000 weather-like tools (distinct names, distinct descriptions, so no two schemas are equal)
  into one server, the whole registration timed.

What registering is, per implementation: mcptools ``ToolRegistry.add(fn)`` (derive the schema and converter,
check the schema and the defaults; validator code is generated on a tool's first call, measured apart in the
"first call" rows), the official SDK's ``MCPServer.add_tool(fn)`` (a pydantic model per tool), fastmcp's
``FastMCP.tool(fn)``. Rounds of every implementation are interleaved, so drift of the machine hits each alike;
a figure is the median over rounds. It is not a test: speed is only ever measured here, never asserted.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import gc
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from typing_extensions import TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from charts import machine, write_charts

import mcptools

RESULTS = Path(__file__).with_name("RESULTS-register.md")
BATCH = 50
MANY = 1000
IMPLEMENTATIONS = ("mcptools", "mcp", "fastmcp")
# The budgets of issue 8, item 5 (microseconds per tool; seconds for the 1,000).
# CPU time of this thread: on a shared machine, time spent waiting for a core is not registration's.
CLOCK = time.thread_time
TARGETS = {"weather": 200.0, "nested": 500.0, "1000 tools": 0.3}

WEATHER_SOURCE = '''
def weather_{i}(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
    """Forecast the weather for a place ({i}).

    Args:
        location: The city or place to forecast ({i}), e.g. "Paris".
        days: How many days ahead to forecast.
        units: Degrees Celsius ("c") or Fahrenheit ("f").
    """
    return f"{{location}}: sunny for {{days}} day(s), temperatures in degrees {{units.upper()}}"
'''

NESTED_SOURCE = '''
def order_{i}(line: Line, names: list[str], options: Options | None = None, tags: set[str] = set()) -> str:
    """Place order number {i}.

    Args:
        line: What to order ({i}).
        names: Who the order is for.
        options: How to ship it.
        tags: Labels for the order.
    """
    return line.sku
'''


@dataclasses.dataclass
class Line:
    sku: str
    qty: int = 1


class Options(TypedDict):
    express: bool
    note: str


def make_tools(kind: str, count: int, start: int = 0) -> list[Callable[..., Any]]:
    """``count`` fresh functions of one kind, each with its own name and descriptions."""
    source = WEATHER_SOURCE if kind == "weather" else NESTED_SOURCE
    namespace: dict[str, Any] = {"Literal": Literal, "Line": Line, "Options": Options}
    exec("".join(source.format(i=i) for i in range(start, start + count)), namespace)  # our own text only
    prefix = "weather_" if kind == "weather" else "order_"
    return [namespace[f"{prefix}{i}"] for i in range(start, start + count)]


def register_all(implementation: str, tools: list[Callable[..., Any]]) -> Any:
    """Register ``tools`` into a fresh server of ``implementation``; returns the server."""
    if implementation == "mcptools":
        registry = mcptools.ToolRegistry("bench")
        for fn in tools:
            registry.add(fn)
        return registry
    if implementation == "mcp":
        from mcp.server.mcpserver import MCPServer

        server = MCPServer("bench")
        for fn in tools:
            server.add_tool(fn)
        return server
    import fastmcp

    app = fastmcp.FastMCP("bench")
    for fn in tools:
        app.tool(fn)
    return app


def available() -> list[str]:
    found = ["mcptools"]
    for name, module in (("mcp", "mcp.server.mcpserver"), ("fastmcp", "fastmcp")):
        try:
            __import__(module)
        except ImportError:
            continue
        found.append(name)
    return found


def one_round(implementation: str, kind: str, count: int, start: int) -> float:
    """Seconds to register ``count`` fresh tools of ``kind`` (functions made before the clock starts)."""
    tools = make_tools(kind, count, start)
    gc.collect()
    began = CLOCK()
    register_all(implementation, tools)
    return CLOCK() - began


def forget_shared() -> None:
    """Empty mcptools' validator cache, so the next schema shares no check and no code with an earlier one."""
    from mcptools._validation import cache

    for table in (cache._by_identity, cache._by_value, cache._by_shape):
        table.clear()


def cold_round(count: int, start: int) -> float:
    """mcptools only: seconds per weather tool when nothing is shared (the cache emptied before each one)."""
    tools = make_tools("weather", count, start)
    registry = mcptools.ToolRegistry("bench")
    gc.collect()
    spent = 0.0
    for fn in tools:
        forget_shared()
        began = CLOCK()
        registry.add(fn)
        spent += CLOCK() - began
    return spent / count


def first_call_round(start: int) -> tuple[float, float]:
    """mcptools only: seconds of the first ``tools/call`` of a fresh weather tool whose schema shape nothing
    compiled before (its code is generated then) and of the second one, through ``registry.handle``."""
    (fn,) = make_tools("weather", 1, start)
    registry = mcptools.ToolRegistry("bench")
    forget_shared()
    registry.add(fn)
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": fn.__name__, "arguments": {"location": "Paris", "days": 3}},
    }
    timings = []
    for _ in range(2):
        began = CLOCK()
        answer = registry.handle(request)
        timings.append(CLOCK() - began)
        assert answer is not None and "Paris: sunny" in answer["result"]["content"][0]["text"], answer
    return timings[0], timings[1]


@dataclasses.dataclass
class Row:
    scenario: str
    implementation: str
    samples: list[float] = dataclasses.field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)


def measure(implementations: list[str], rounds: int, batch: int, many: int) -> tuple[list[Row], Row, Row, Row]:
    rows = {
        (scenario, name): Row(scenario, name)
        for scenario in ("weather", "nested", "1000 tools")
        for name in implementations
    }
    first, second = Row("first call", "mcptools"), Row("later call", "mcptools")
    cold = Row("weather, nothing shared", "mcptools")
    start = 0
    for name in implementations:  # warm-up, not counted: imports and first-use caches of every library
        one_round(name, "weather", 2, start)
        one_round(name, "nested", 2, start + 2)
        start += 4
    for round_number in range(rounds):
        # Interleaved, and the order of implementations rotates, so none always runs right after another.
        order = (
            implementations[round_number % len(implementations) :]
            + implementations[: round_number % len(implementations)]
        )
        for name in order:
            for scenario, kind in (("weather", "weather"), ("nested", "nested")):
                rows[scenario, name].samples.append(one_round(name, kind, batch, start) / batch)
                start += batch
            rows["1000 tools", name].samples.append(one_round(name, "weather", many, start))
            start += many
        took_first, took_second = first_call_round(start)
        first.samples.append(took_first)
        second.samples.append(took_second)
        cold.samples.append(cold_round(batch, start + 1))
        start += 1 + batch
    return list(rows.values()), first, second, cold


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:,.0f} µs"


def _figure(row: Row) -> str:
    return f"{row.median:.3f} s" if row.scenario == "1000 tools" else _us(row.median)


def _spread(row: Row) -> str:
    if len(row.samples) < 4:
        return "-"
    quartiles = statistics.quantiles(row.samples, n=4)
    return f"±{(quartiles[2] - quartiles[0]) / 2 / row.median * 100:.0f}%"


def table(rows: list[Row], first: Row, second: Row, cold: Row) -> list[str]:
    by_key = {(row.scenario, row.implementation): row for row in rows}
    names = [name for name in IMPLEMENTATIONS if any(row.implementation == name for row in rows)]
    head = "| scenario | " + " | ".join(names) + " | " + " | ".join(f"{n} ÷ mcptools" for n in names[1:]) + " |"
    lines = [head, "|---|" + "---:|" * (2 * len(names) - 1)]
    for scenario, unit in (("weather", "per tool"), ("nested", "per tool"), ("1000 tools", "total")):
        ours = by_key[scenario, "mcptools"]
        cells = [f"{_figure(by_key[scenario, n])} ({_spread(by_key[scenario, n])})" for n in names]
        ratios = [f"{by_key[scenario, n].median / ours.median:.1f}x" for n in names[1:]]
        lines.append(f"| {scenario} ({unit}) | " + " | ".join(cells + ratios) + " |")
    lines.append("")
    lines.append("| mcptools alone | median | spread |")
    lines.append("|---|---:|---:|")
    lines.append(
        f"| weather, per tool, validator cache emptied before each (no check or code shared) | {_us(cold.median)} "
        f"| {_spread(cold)} |"
    )
    lines.append(
        f"| a fresh weather tool's first `tools/call` through `registry.handle` (generates its validator) "
        f"| {_us(first.median)} | {_spread(first)} |"
    )
    lines.append(f"| its second `tools/call` | {_us(second.median)} | {_spread(second)} |")
    return lines


def targets(rows: list[Row]) -> list[str]:
    ours = {row.scenario: row.median for row in rows if row.implementation == "mcptools"}
    lines = []
    for scenario, budget in TARGETS.items():
        value = ours[scenario]
        shown, limit = (
            (f"{value:.3f} s", f"{budget} s") if scenario == "1000 tools" else (_us(value), f"{budget:.0f} µs")
        )
        verdict = "met" if (value if scenario == "1000 tools" else value * 1e6) <= budget else "NOT met"
        lines.append(f"- {scenario}: {shown} (target ≤ {limit}: {verdict})")
    return lines


def _versions() -> str:
    names = ["mcptools", "mcp", "fastmcp", "pydantic", "pydantic-core"]
    found = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            continue
    return ", ".join(found)


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True, cwd=RESULTS.parent
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=None)
    arguments = parser.parse_args()
    rounds = arguments.rounds or (3 if arguments.quick else 9)
    implementations = available()
    load = os.getloadavg()
    rows, first, second, cold = measure(implementations, rounds, BATCH, MANY)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    report = [
        "# Registering tools: mcptools against the official SDK and fastmcp",
        "",
        f"Generated {now} by `tests/benchmarks/bench_register.py`: {rounds} interleaved rounds; each figure is the "
        f"median over rounds (spread: half the interquartile range). Lower is better. Times are CPU time of the "
        "registering thread (`time.thread_time`), so other work on this shared machine does not count; on a quiet "
        "machine wall time is the same.",
        "",
        f"- Python {platform.python_version()} ({platform.python_implementation()})",
        f"- Machine: {machine()}",
        f"- Packages: {_versions()}",
        *[
            f"- {name}: not installed, so not measured (`pip install {name}` to compare)"
            for name in IMPLEMENTATIONS
            if name not in implementations
        ],
        f"- mcptools code: commit {_commit()}",
        f"- Load average at start (1, 5, 15 min): {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f}: other work on the "
        "machine inflates every figure; the interleaving keeps the ratios fair",
        "",
        f"Per tool: a batch of {BATCH} fresh tools into a fresh server, time ÷ {BATCH}. 1000 tools: {MANY} "
        "weather-like tools with distinct descriptions into one server.",
        "",
        *table(rows, first, second, cold),
        "",
        "## Targets (issue 8, item 5)",
        "",
        *targets(rows),
        "",
        "mcptools checks every schema and default at registration (a broken schema, a bad default or an "
        "unmappable type still fails at decoration) and generates a small schema's validator code on the tool's "
        "first call; the first call is exactly as strict as every later one (tests/test_validation_lazy.py).",
    ]
    text = "\n".join(report) + "\n"
    print(text)
    if not arguments.quick:
        RESULTS.write_text(text, encoding="utf-8")
        write_charts(RESULTS)


if __name__ == "__main__":
    main()
