"""Import-time benchmark: ``import mcptools`` in fresh interpreters, beside the official SDK and fastmcp.

    .venv/bin/python tests/benchmarks/bench_import.py            # 20 runs per statement
    .venv/bin/python tests/benchmarks/bench_import.py --quick    # 3 runs, for a look

Each statement runs as ``python -c STATEMENT`` in a new process, the runs of all statements interleaved; a row's
figure is the median wall time minus the median of ``python -c pass`` (interpreter start-up, site-packages and
process creation), which is what a user waits for on top of Python itself. ``-X importtime`` then names the
modules that cost ``import mcptools`` the most, and the module census shows what it pulls in beyond the
standard library (the rule: ``typing_extensions`` only).

``bench_handle.py`` adds this section to ``RESULTS-handle.md``; run alone, it prints.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# (label, statement); the first is the baseline every other row is measured against.
STATEMENTS: list[tuple[str, str]] = [
    ("python -c pass", "pass"),
    ("import mcptools", "import mcptools"),
    ("import mcp.server.mcpserver", "import mcp.server.mcpserver"),
    ("import fastmcp", "import fastmcp"),
]
TARGET_MS = 60.0
# An installed package imports from bytecode. Where PYTHONDONTWRITEBYTECODE is set (as in some sandboxes),
# every import would recompile mcptools from source and measure the compiler, not the import.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def precompile() -> None:
    compileall.compile_dir(str(ROOT / "mcptools"), quiet=1)


def run_ms(statement: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of one fresh interpreter running ``statement``, run from the repository root so that
    ``mcptools`` is the working tree's. CPU time (user + system, of the child) hardly moves when other work
    shares the machine, where wall time does."""
    before = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", statement], cwd=ROOT, check=True, capture_output=True, env=ENV)
    wall = (time.perf_counter() - start) * 1000
    return wall, (_children_cpu() - before) * 1000


def _children_cpu() -> float:
    try:
        import resource
    except ImportError:  # not on Windows
        return 0.0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def importable(module: str) -> bool:
    done = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=ROOT, capture_output=True, check=False)
    return done.returncode == 0


def wall_times(runs: int) -> dict[str, list[tuple[float, float]]]:
    """label -> (wall ms, CPU ms) per run, for the statements whose modules are installed; runs interleaved."""
    statements = [(label, code) for label, code in STATEMENTS if code == "pass" or importable(code.split()[1])]
    samples: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in statements}
    for _ in range(runs):
        for label, code in statements:
            samples[label].append(run_ms(code))
    return samples


def importtime(module: str) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) from ``-X importtime`` for ``import module``, in import order; the
    interpreter's own start-up imports (``site`` and what it loads) are left out."""
    startup = {name.strip() for _, _, name in _importtime("pass")}
    return [row for row in _importtime(f"import {module}") if row[2].strip() not in startup]


def _importtime(statement: str) -> list[tuple[int, int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        env=ENV,
    )
    rows: list[tuple[int, int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        own, cumulative, name = line.removeprefix("import time:").split("|", 2)
        rows.append((int(own), int(cumulative), name.rstrip()))
    return rows


def census(module: str) -> dict[str, list[str]]:
    """The modules ``import module`` adds to ``sys.modules``, split into standard library and the rest."""
    code = (
        "import sys, json; before = set(sys.modules); import " + module + "; "
        "new = sorted(set(sys.modules) - before); "
        "std = [m for m in new if m.split('.')[0] in sys.stdlib_module_names or m.split('.')[0] == '_distutils_hack']; "
        "print(json.dumps({'stdlib': std, 'other': [m for m in new if m not in std]}))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, text=True)
    found: dict[str, list[str]] = json.loads(done.stdout)
    return found


def import_section(*, runs: int, top: int = 12) -> list[str]:
    precompile()
    samples = wall_times(runs)

    def median(label: str, which: int) -> float:
        return statistics.median(sample[which] for sample in samples[label])

    base_wall, base_cpu = median("python -c pass", 0), median("python -c pass", 1)
    lines = [
        f"## Import time (fresh interpreter, median of {runs} interleaved runs, minus `python -c pass`)",
        "",
        "| statement | median wall ms | net wall ms | net CPU ms | ÷ `import mcptools` (wall) |",
        "|---|---:|---:|---:|---:|",
    ]
    ours = median("import mcptools", 0) - base_wall
    for label in samples:
        wall, cpu = median(label, 0), median(label, 1)
        times = "-" if label == "python -c pass" else f"{(wall - base_wall) / ours:,.1f}x"
        lines.append(f"| `{label}` | {wall:,.1f} | {wall - base_wall:,.1f} | {cpu - base_cpu:,.1f} | {times} |")
    verdict = "met" if ours < TARGET_MS else "NOT met"
    lines += [
        "",
        f"Target: `import mcptools` under {TARGET_MS:.0f} ms: **{ours:.1f} ms** wall, {verdict} "
        f"(CPU: {median('import mcptools', 1) - base_cpu:.1f} ms).",
        "",
    ]
    modules = census("mcptools")
    others = sorted({name.split(".")[0] for name in modules["other"]})
    lines += [
        f"`import mcptools` loads {len(modules['stdlib']) + len(modules['other'])} modules: "
        f"{len(modules['stdlib'])} from the standard library, and {', '.join(f'`{m}`' for m in others)}.",
        "",
    ]
    rows = importtime("mcptools")
    total = next((cumulative for _, cumulative, name in rows if name.strip() == "mcptools"), 0)
    lines += [
        f"Top {top} by own time under `-X importtime` (one run; `mcptools` cumulative {total / 1000:.1f} ms):",
        "",
        "| module | own ms | cumulative ms |",
        "|---|---:|---:|",
    ]
    for own, cumulative, name in sorted(rows, reverse=True)[:top]:
        lines.append(f"| `{name.strip()}` | {own / 1000:.2f} | {cumulative / 1000:.2f} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="3 runs per statement instead of 20")
    parser.add_argument("--runs", type=int, default=None, help="runs per statement")
    parser.add_argument("--top", type=int, default=12, help="rows of the -X importtime table")
    options = parser.parse_args()
    runs = options.runs if options.runs is not None else (3 if options.quick else 20)
    print("\n".join(import_section(runs=runs, top=options.top)))


if __name__ == "__main__":
    main()
