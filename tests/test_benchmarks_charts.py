"""The benchmark charts on the docs' benchmarks page are drawn from the results files by the benchmark scripts'
own chart writer (tests/benchmarks/charts.py), never by hand: the committed charts are exactly what the committed
results draw, each puts peers side by side with ratios and names the machine, and the page shows every one."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, cast

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "tests" / "benchmarks"


def charts() -> ModuleType:
    if str(BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(BENCHMARKS))
    return importlib.import_module("charts")


def test_the_committed_charts_are_what_the_committed_results_draw(tmp_path: Path) -> None:
    module = charts()
    drawn = []
    for name in module.READERS:
        drawn += module.write_charts(BENCHMARKS / name, tmp_path)
    assert {path.name for path in drawn} == {path.name for path in module.CHARTS.glob("*.svg")}
    for path in drawn:
        committed = module.CHARTS / path.name
        assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"docs/benchmarks/{path.name} is stale: run .venv/bin/python tests/benchmarks/charts.py"
        )


def test_each_chart_sets_peers_side_by_side_with_ratios_and_names_the_machine() -> None:
    module = charts()
    for name, reader in module.READERS.items():
        for chart in reader((BENCHMARKS / name).read_text(encoding="utf-8")):
            assert "Python 3." in chart.subtitle, (chart.name, chart.subtitle)
            for heading, bars in chart.groups:
                assert any(bar.ours for bar in bars), (chart.name, heading)
                peers = [bar for bar in bars if not bar.ours]
                assert peers, (chart.name, heading)
                ratio = re.compile(r"mcptools [\d.]+x (faster|slower)|mcptools the same")
                assert all(ratio.fullmatch(bar.ratio) for bar in peers), (chart.name, heading)


def test_a_changed_figure_changes_its_bar() -> None:
    module = charts()
    text = (BENCHMARKS / "RESULTS-register.md").read_text(encoding="utf-8")
    before = module.render(module.register_charts(text)[0])
    after = module.render(module.register_charts(text.replace("1,220 µs", "2,440 µs", 1))[0])
    assert before != after
    assert "2,440 µs  (mcptools 15x faster)" in after


def test_the_benchmarks_page_shows_every_chart() -> None:
    page = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8")
    shown = set(re.findall(r"\]\(benchmarks/([\w-]+\.svg)\)", page))
    assert shown == {path.name for path in charts().CHARTS.glob("*.svg")}


def test_the_stdio_chart_reads_what_bench_stdio_writes() -> None:
    # The writer's table and the chart's reader are held together on figures made up here (the benchmark itself
    # is never run by the suite): each server's median, the ratio against mcptools, the floor in the subtitle.
    module = charts()
    bench = importlib.import_module("bench_stdio")
    medians = {"mcptools": 50e-6, "mcptools standard": 90e-6, "mcp": 450e-6, "fastmcp": 800e-6, "pipe": 7e-6}
    servers = [bench.Server(name, cast(Any, None), [value] * 4) for name, value in medians.items()]
    [chart] = module.stdio_charts(bench.report(servers, batches=4, calls=10))
    [(_, bars)] = chart.groups
    assert [(bar.label, bar.text, bar.ours, bar.ratio) for bar in bars] == [
        ("mcptools", "50.0 µs", True, ""),
        ("mcptools standard", "90.0 µs", True, ""),
        ("mcp", "450.0 µs", False, "mcptools 9.00x faster"),
        ("fastmcp", "800.0 µs", False, "mcptools 16x faster"),
    ]
    assert "the pipe and client alone: 7.0 µs" in chart.subtitle and "Python 3." in chart.subtitle
