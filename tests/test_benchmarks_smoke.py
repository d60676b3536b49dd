"""The benchmark scripts still run: every row is called once and its answer checked; nothing is timed.

Speed is only measured by running the scripts (tests/benchmarks/), never asserted here. The peers' rows run only
where the ``bench`` extra is installed.
"""

from __future__ import annotations

import asyncio
import importlib
import sys
from contextlib import AsyncExitStack
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parent / "benchmarks"


def load(name: str) -> ModuleType:
    # The scripts import each other by plain name, as they do when run from their folder.
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module(name)


def test_every_mcptools_row_answers_the_request_it_claims_to_time() -> None:
    bench = load("bench_handle")
    cases = bench.mcptools_cases()
    assert {(case.path, case.envelope) for case in cases} >= {
        ("handle", False),
        ("handle", True),
        ("handle_async", False),
        ("handle_async", True),
        ("call_tool", False),
    }
    for case in cases:
        is_error, text = asyncio.run(case.once())
        if case.arguments == "invalid":
            assert is_error
            assert text.startswith("Invalid arguments: ")
            assert len(text.removeprefix("Invalid arguments: ").split("; ")) == 3, text
        else:
            assert not is_error
            assert text == "Paris: sunny for 3 day(s), temperatures in degrees C"


def test_a_wrong_answer_stops_the_benchmark() -> None:
    bench = load("bench_handle")
    registry = bench.mcptools_registry()
    case = bench.Case("mcptools", "handle", "sync", "valid", False, call=lambda: registry.handle({"id": 1}))
    with pytest.raises(AssertionError, match="unexpected answer"):
        asyncio.run(case.once())


def test_one_round_fills_every_row_and_the_table() -> None:
    bench = load("bench_handle")
    cases = bench.mcptools_cases()
    asyncio.run(bench.measure(cases, rounds=1, budget=0.0))
    assert all(len(case.per_call) == 1 and case.per_call[0] > 0 for case in cases)
    table = bench.handle_table(cases)
    assert len(table) == 2 + len(cases)
    assert table[2].startswith("| mcptools | handle | sync | valid |")
    assert "| 1.00x |" in table[2]


@pytest.mark.parametrize(("peer", "module"), [("mcp", "mcp.server.mcpserver"), ("fastmcp", "fastmcp")])
def test_every_peer_row_answers_the_request_it_claims_to_time(peer: str, module: str) -> None:
    pytest.importorskip(module)
    bench = load("bench_handle")

    async def run() -> list[str]:
        async with AsyncExitStack() as stack:
            cases = await bench.peer_cases(stack, peer)
            for case in cases:
                await case.once()
            await bench.measure(cases, rounds=1, budget=0.0)
            return [f"{case.path} {case.tool} {case.arguments}" for case in cases if case.per_call]

    measured = asyncio.run(run())
    assert {"kernel async valid", "kernel async invalid", "stream async valid", "client async valid"} <= set(measured)


def test_import_bench_reads_importtime_and_the_module_census() -> None:
    bench = load("bench_import")
    rows = bench.importtime("mcptools")
    assert any(name.strip() == "mcptools" for _, _, name in rows)
    assert all(own >= 0 and cumulative >= own for own, cumulative, _ in rows)
    # The runtime-dependency rule: beyond the standard library, only typing_extensions.
    others = {name.split(".")[0] for name in bench.census("mcptools")["other"]}
    assert others <= {"mcptools", "typing_extensions"}, others


def test_register_bench_registers_every_tool_it_claims_to_time() -> None:
    bench = load("bench_register")
    for kind, parameter in (("weather", "location"), ("nested", "line")):
        tools = bench.make_tools(kind, 3, start=900_000)
        assert len({fn.__name__ for fn in tools}) == 3
        registry = bench.register_all("mcptools", tools)
        assert [tool.name for tool in registry] == [fn.__name__ for fn in tools]
        schemas = [tool.input_schema for tool in registry]
        assert all(schema["required"][0] == parameter for schema in schemas)
        # Distinct descriptions: no two tools publish the same schema.
        assert len({repr(schema) for schema in schemas}) == 3
    first, second = bench.first_call_round(900_100)
    assert first > 0 and second > 0


@pytest.mark.parametrize("peer", ["mcp", "fastmcp"])
def test_register_bench_peers_register_every_tool(peer: str) -> None:
    pytest.importorskip({"mcp": "mcp.server.mcpserver", "fastmcp": "fastmcp"}[peer])
    bench = load("bench_register")
    tools = bench.make_tools("nested", 2, start=900_200)
    server = bench.register_all(peer, tools)
    listed = asyncio.run(server.list_tools())
    assert sorted(tool.name for tool in listed) == sorted(fn.__name__ for fn in tools)


def test_register_bench_one_round_fills_every_row_and_the_table() -> None:
    bench = load("bench_register")
    rows, first, second, cold = bench.measure(["mcptools"], rounds=1, batch=2, many=3)
    assert {row.scenario for row in rows} == {"weather", "nested", "1000 tools"}
    assert all(len(row.samples) == 1 and row.samples[0] > 0 for row in [*rows, first, second, cold])
    lines = bench.table(rows, first, second, cold)
    assert lines[2].startswith("| weather (per tool) | ")
    assert len(bench.targets(rows)) == 3


def test_a_run_written_elsewhere_draws_its_charts_beside_it(tmp_path: Path) -> None:
    charts = load("charts")
    for bench in (load("bench_handle"), load("bench_stdio")):
        assert charts.chart_folder(tmp_path / "out.md", bench.RESULTS.name) == tmp_path.resolve()
        assert charts.chart_folder(bench.RESULTS) == charts.CHARTS
