"""What a code change costs ``registry.handle`` with no middleware: two source trees, measured interleaved.

    .venv/bin/python tests/benchmarks/bench_overhead.py BEFORE_DIR AFTER_DIR [--rounds 7]

Each round runs one subprocess per tree (``PYTHONPATH=<tree>``, alternating so drift hits both alike); a subprocess
times the bench_handle weather tool (sync, async, valid and invalid arguments) through ``registry.handle`` and
reports microseconds per call. The figure per row is the median over rounds, and the ratio AFTER / BEFORE. Also
prints, for AFTER only, the cost of one pass-through middleware (when the tree has middleware). Not a test: speed
is only ever measured here, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, sys, time
from typing import Literal
import mcptools
from mcptools import ToolRegistry
print(mcptools.__file__, file=sys.stderr)

def make(middleware):
    registry = ToolRegistry("bench", **({"middleware": middleware} if middleware else {}))

    @registry.tool
    def weather(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
        return f"{location}: sunny for {days} day(s), temperatures in degrees {units.upper()}"

    @registry.tool
    async def weather_async(location: str, days: int = 1, units: Literal["c", "f"] = "c") -> str:
        return f"{location}: sunny for {days} day(s), temperatures in degrees {units.upper()}"

    return registry

ARGS = {"valid": {"location": "Paris", "days": 3}, "invalid": {"location": 5, "days": "x", "units": "k"}}

def per_call(registry, name, kind, n):
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": ARGS[kind]}}
    handle = registry.handle
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(n):
            handle(message)
        best = min(best, (time.perf_counter() - start) / n)
    return best * 1e6

rows = {}
plain = make(None)
for name, n in (("weather", 4000), ("weather_async", 300)):
    for kind in ("valid", "invalid"):
        rows[f"{name}/{kind}"] = per_call(plain, name, kind, n)
if hasattr(mcptools, "Middleware"):
    # A bare mcptools.Middleware() overrides nothing and is skipped: measure one that wraps on_call.
    class Pass(mcptools.Middleware):
        async def on_call(self, call, call_next):
            return await call_next(call)
    layered = make([Pass()])
    rows["weather/valid + 1 middleware"] = per_call(layered, "weather", "valid", 300)
print(json.dumps(rows))
"""


def measure(tree: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    # cwd=tree: `python -c` puts the working directory first on sys.path, ahead of PYTHONPATH.
    done = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=tree, capture_output=True, text=True, check=True)
    rows: dict[str, float] = json.loads(done.stdout)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    samples: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for _ in range(args.rounds):
        for label, tree in (("before", args.before), ("after", args.after)):
            for row, value in measure(tree).items():
                samples[label].setdefault(row, []).append(value)
    print(f"{'row':34} {'before µs':>10} {'after µs':>10} {'ratio':>7}")
    for row, values in samples["after"].items():
        after = statistics.median(values)
        before_values = samples["before"].get(row)
        if before_values is None:
            print(f"{row:34} {'':>10} {after:10.2f}")
            continue
        before = statistics.median(before_values)
        print(f"{row:34} {before:10.2f} {after:10.2f} {after / before:7.3f}")


if __name__ == "__main__":
    main()
