"""Charts of the benchmark results, as SVG files the documentation's benchmarks page shows (docs/benchmarks/).

    .venv/bin/python tests/benchmarks/charts.py        # redraw every chart from the RESULTS*.md files

Each benchmark script calls ``write_charts(its RESULTS file)`` after writing the file, so the charts are redrawn
from the same figures the file publishes, on every run; nothing is drawn by hand. A chart puts the peers side by
side, labels each bar with its figure and its ratio to mcptools, and names the machine and the run in its
subtitle. The SVG is written by the few lines below (no plotting library: the output is small, diffable text, and
the benchmark extra gains no dependency); ``tests/test_benchmarks_charts.py`` redraws the committed charts from
the committed results and compares.
"""

from __future__ import annotations

import math
import os
import platform
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

HERE = Path(__file__).resolve().parent
CHARTS = HERE.parent.parent / "docs" / "benchmarks"

__all__ = ["CHARTS", "Bar", "Chart", "chart_folder", "machine", "render", "write_charts"]


def machine() -> str:
    """The processor, its count and the system: the line every results file names the machine with."""
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} CPUs, {platform.system()} {platform.release()}"


@dataclass(frozen=True)
class Bar:
    label: str
    value: float
    text: str  # the figure as the results file writes it
    ours: bool = False  # an mcptools row (drawn in the accent colour)
    ratio: str = ""  # "61x slower", "2.08x": against the group's mcptools bar


@dataclass(frozen=True)
class Chart:
    name: str  # the file: docs/benchmarks/<name>.svg
    title: str
    subtitle: str
    unit: str  # what the axis counts, and which way is better
    groups: tuple[tuple[str, tuple[Bar, ...]], ...]
    # "linear": one axis for every group; "log": one logarithmic axis; "per-group": each group on its own linear
    # axis (groups of different sizes, such as per-tool times and a total).
    scale: str = "linear"


# -- reading a results file --------------------------------------------------------------------------------------


def tables(text: str) -> Iterator[tuple[str, list[dict[str, str]]]]:
    """Each Markdown table of ``text`` with the heading above it: rows as ``{column: cell}``."""
    heading = ""
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            heading = line.lstrip("#").strip()
        if line.startswith("|") and index + 1 < len(lines) and lines[index + 1].startswith("|-"):
            columns = _cells(line)
            rows = []
            index += 2
            while index < len(lines) and lines[index].startswith("|"):
                rows.append(dict(zip(columns, _cells(lines[index]), strict=False)))
                index += 1
            yield heading, rows
            continue
        index += 1


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def number(cell: str) -> float:
    """The first figure of a cell (``1,794``, ``162 µs (±5%)``, ``0.158 s``), in the cell's own unit."""
    found = re.search(r"-?[\d,]*\.?\d+", cell)
    if found is None:
        raise ValueError(f"no figure in {cell!r}")
    return float(found.group().replace(",", ""))


def seconds_as_us(cell: str) -> float:
    """A duration cell in µs whatever unit it is written in (``162 µs``, ``0.158 s``, ``12 ms``)."""
    value = number(cell)
    if re.search(r"\d\s*s\b", cell):
        return value * 1e6
    if " ms" in cell:
        return value * 1e3
    return value


def run_line(text: str) -> str:
    """The machine and the run a results file names: its ``Machine:`` line and Python, else its Python line."""
    found = re.search(r"^- Machine: (.+)$", text, flags=re.M)
    python = re.search(r"Python \d+\.\d+\.\d+[^;\n`]*", text)
    when = re.search(r"(\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC", text)
    parts = [found.group(1) if found else "", python.group().rstrip(" ,:") if python else ""]
    if when:
        parts.append(when.group(1))
    return "; ".join(part for part in parts if part)


def _ratio(value: float, base: float, higher_is_better: bool = False) -> str:
    """How mcptools compares with this bar: "mcptools 54x faster", "mcptools 1.9x slower"."""
    if base <= 0 or value <= 0:
        return ""
    times = base / value if higher_is_better else value / base
    if math.isclose(times, 1.0, rel_tol=0.005):
        return "mcptools the same"
    word, times = ("faster", times) if times > 1 else ("slower", 1 / times)
    return f"mcptools {times:.0f}x {word}" if times >= 10 else f"mcptools {times:.2f}x {word}"


# -- the charts of each results file -------------------------------------------------------------------------------


def handle_charts(text: str) -> list[Chart]:
    rows = next(rows for heading, rows in tables(text) if heading.startswith("`tools/call` end to end"))
    peers = [
        ("mcptools", "handle", "sync"),
        ("mcp", "kernel", "async"),
        ("mcp", "stream", "async"),
        ("fastmcp", "kernel", "async"),
        ("fastmcp", "stream", "async"),
    ]
    groups = []
    for arguments in ("valid", "invalid"):
        for request in ("2026-07-28", "2025 (no `_meta`)"):
            picked = []
            for implementation, path, tool in peers:
                row = next(
                    (
                        r
                        for r in rows
                        if (r["implementation"], r["path"], r["tool"], r["arguments"], r["request"])
                        == (implementation, path, tool, arguments, request)
                    ),
                    None,
                )
                if row is not None:
                    value = number(row["median ns per call"]) / 1000
                    picked.append((f"{implementation} {path}", value, implementation == "mcptools"))
            base = next((value for _, value, ours in picked if ours), 0.0)
            bars = tuple(
                Bar(label, value, f"{value:,.1f} µs", ours, "" if ours else _ratio(value, base))
                for label, value, ours in picked
            )
            groups.append((f"{arguments} arguments, {request.replace('`', '')} request", bars))
    charts = [
        Chart(
            "handle",
            "tools/call end to end: registry.handle against the official SDK and fastmcp",
            run_line(text),
            "µs per call, median (lower is better)",
            tuple(groups),
        )
    ]
    imports = [rows for heading, rows in tables(text) if heading.startswith("Import time")]
    if imports:
        statements: list[Bar] = []
        base = next(number(r["net wall ms"]) for r in imports[0] if r["statement"] == "`import mcptools`")
        for row in imports[0]:
            if row["statement"] == "`python -c pass`":
                continue
            value = number(row["net wall ms"])
            ours = row["statement"] == "`import mcptools`"
            statements.append(
                Bar(row["statement"].strip("`"), value, f"{value:,.1f} ms", ours, "" if ours else _ratio(value, base))
            )
        charts.append(
            Chart(
                "import",
                "Import time, net of the interpreter's start",
                run_line(text),
                "ms, median wall time (lower is better)",
                (("a fresh interpreter", tuple(statements)),),
            )
        )
    return charts


def validation_charts(text: str) -> list[Chart]:
    rows = next(rows for heading, rows in tables(text) if heading.startswith("Argument validation"))
    groups = []
    for schema in dict.fromkeys(row["schema"] for row in rows):
        for column, label in (("valid", "valid arguments"), ("invalid (3 errors)", "invalid arguments (3 errors)")):
            picked = [
                r for r in rows if r["schema"] == schema and r["implementation"] != "mcptools validate(args, schema)"
            ]
            base = next(number(r[column]) for r in picked if r["implementation"] == "mcptools errors()")
            bars = tuple(
                Bar(
                    r["implementation"],
                    number(r[column]),
                    f"{number(r[column]):,.0f} ns",
                    r["implementation"].startswith("mcptools"),
                    "" if r["implementation"].startswith("mcptools") else _ratio(number(r[column]), base),
                )
                for r in picked
            )
            groups.append((f"{schema}: {label}", bars))
    return [
        Chart(
            "validation",
            "Argument validation against the JSON Schema validators and pydantic",
            run_line(text) + "; ratios against mcptools errors()",
            "ns per call, median (lower is better; log scale)",
            tuple(groups),
            scale="log",
        )
    ]


def register_charts(text: str) -> list[Chart]:
    rows = next(rows for _, rows in tables(text) if rows and "scenario" in rows[0])
    groups = []
    for row in rows:
        base = seconds_as_us(row["mcptools"])
        bars = []
        for peer in ("mcptools", "mcp", "fastmcp"):
            if peer not in row or not re.search(r"\d", row[peer]):
                continue
            value = seconds_as_us(row[peer])
            shown = f"{value / 1e6:.3f} s" if value >= 1e5 else f"{value:,.0f} µs"
            bars.append(Bar(peer, value, shown, peer == "mcptools", "" if peer == "mcptools" else _ratio(value, base)))
        groups.append((row["scenario"], tuple(bars)))
    return [
        Chart(
            "register",
            "Registering tools",
            run_line(text),
            "CPU time (lower is better; each group on its own scale)",
            tuple(groups),
            scale="per-group",
        )
    ]


def http_charts(text: str) -> list[Chart]:
    groups = []
    for heading, rows in tables(text):
        if not rows or "req/s" not in rows[0]:  # bench_http_flood's latency table has none
            continue
        measured = [r for r in rows if re.search(r"\d", r["req/s"])]
        base = next(
            (number(r["req/s"]) for r in measured if r["server"].startswith("mcptools") and "fast" not in r["server"]),
            0.0,
        )
        bars = tuple(
            Bar(
                r["server"],
                number(r["req/s"]),
                f"{number(r['req/s']):,.0f} req/s",
                r["server"].startswith("mcptools"),
                "" if r["server"].startswith("mcptools") else _ratio(number(r["req/s"]), base, higher_is_better=True),
            )
            for r in measured
        )
        groups.append((heading, bars))
    return [
        Chart(
            "http",
            "HTTP throughput: tools/call over loopback, one uvicorn worker each",
            run_line(text),
            "requests per second, median of rounds (higher is better)",
            tuple(groups),
        )
    ]


def stdio_charts(text: str) -> list[Chart]:
    rows = next(rows for _, rows in tables(text) if rows and "server" in rows[0])
    measured = {row["server"]: number(row["median µs per round trip"]) for row in rows}
    base = measured["mcptools"]
    bars = tuple(
        Bar(
            server,
            value,
            f"{value:,.1f} µs",
            server.startswith("mcptools"),
            "" if server.startswith("mcptools") else _ratio(value, base),
        )
        for server, value in measured.items()
        if server != "pipe"  # the floor, not a peer: named in the subtitle
    )
    floor = f"; the pipe and client alone: {measured['pipe']:,.1f} µs" if "pipe" in measured else ""
    return [
        Chart(
            "stdio",
            "stdio: sequential tools/call round trips, one server process each",
            run_line(text) + floor,
            "µs per round trip, median (lower is better)",
            (("a sync tool, 2025-11-25 session, one request at a time", bars),),
        )
    ]


READERS: dict[str, Callable[[str], list[Chart]]] = {
    "RESULTS-handle.md": handle_charts,
    "RESULTS.md": validation_charts,
    "RESULTS-register.md": register_charts,
    "RESULTS-http.md": http_charts,
    "RESULTS-stdio.md": stdio_charts,
}


# -- drawing -------------------------------------------------------------------------------------------------------

WIDTH = 860
LABEL_WIDTH = 230
FIGURE_WIDTH = 250
ROW = 20
OURS = "#2563eb"
PEER = "#9ca3af"


def _scale(chart: Chart, bars: tuple[Bar, ...]) -> Callable[[float], float]:
    """Bar lengths for ``bars`` (one group of ``chart``)."""
    shown = bars if chart.scale == "per-group" else tuple(bar for _, group in chart.groups for bar in group)
    values = [bar.value for bar in shown if bar.value > 0]
    span = WIDTH - LABEL_WIDTH - FIGURE_WIDTH
    top = max(values)
    if chart.scale == "log":
        low = min(values) / 2  # the smallest bar stays visible
        return lambda value: (
            span * (math.log10(max(value, low)) - math.log10(low)) / (math.log10(top) - math.log10(low))
        )
    return lambda value: span * value / top


def render(chart: Chart) -> str:
    """The chart as a standalone SVG document."""
    rows: list[str] = []
    y = 70
    for heading, bars in chart.groups:
        width_of = _scale(chart, bars)
        rows.append(f'<text x="10" y="{y + 14}" class="group">{escape(heading)}</text>')
        y += ROW + 2
        for bar in bars:
            width = max(width_of(bar.value), 1.0)
            colour = OURS if bar.ours else PEER
            figure = bar.text + (f"  ({bar.ratio})" if bar.ratio else "")
            rows += [
                f'<text x="{LABEL_WIDTH - 8}" y="{y + 14}" class="label" text-anchor="end">{escape(bar.label)}</text>',
                f'<rect x="{LABEL_WIDTH}" y="{y + 3}" width="{width:.1f}" height="{ROW - 6}" fill="{colour}"/>',
                f'<text x="{LABEL_WIDTH + width + 6:.1f}" y="{y + 14}" class="figure">{escape(figure)}</text>',
            ]
            y += ROW
        y += 8
    height = y + 10
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-label="{escape(chart.title)}">',
        "<style>text{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;font-size:12px;fill:#1f2937}"
        ".title{font-size:15px;font-weight:600}.subtitle{fill:#4b5563}.group{font-weight:600}"
        ".figure{fill:#374151}</style>",
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="10" y="22" class="title">{escape(chart.title)}</text>',
        f'<text x="10" y="40" class="subtitle">{escape(chart.subtitle)}</text>',
        f'<text x="10" y="58" class="subtitle">{escape(chart.unit)}; blue: mcptools</text>',
    ]
    return "\n".join([*head, *rows, "</svg>", ""])


def chart_folder(results: Path, kind: str | None = None) -> Path:
    """Where a results file's charts go: the committed ones (docs/benchmarks/) only from the committed results
    file; a run written elsewhere with ``--out`` draws them beside that file."""
    committed = HERE / (kind or results.name)
    return CHARTS if results.resolve() == committed.resolve() else results.resolve().parent


def write_charts(results: Path, into: Path | None = None, *, kind: str | None = None) -> list[Path]:
    """Redraw the charts of one results file (``kind``: which one it is, by its usual name, when it was written
    elsewhere with ``--out``) into ``into``, by default ``chart_folder``'s; returns the files written."""
    reader = READERS[kind or results.name]
    into = into if into is not None else chart_folder(results, kind)
    into.mkdir(parents=True, exist_ok=True)
    written = []
    for chart in reader(results.read_text(encoding="utf-8")):
        path = into / f"{chart.name}.svg"
        path.write_text(render(chart), encoding="utf-8")
        written.append(path)
    return written


def main() -> int:
    for name in READERS:
        results = HERE / name
        if results.exists():
            for path in write_charts(results):
                print(f"wrote {path.relative_to(HERE.parent.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
