"""Run the official MCP conformance suite against ``examples/everything_server.py``, both protocol legs.

    python tests/conformance/run_mcp_conformance.py            # 2025-11-25 and 2026-07-28
    python tests/conformance/run_mcp_conformance.py --leg 2026-07-28 --verbose
    python tests/conformance/run_mcp_conformance.py --leg tasks  # the Tasks extension's ten scenarios

It installs ``@modelcontextprotocol/conformance`` (a pinned version) with npm into a cache directory, starts
``mcptools serve examples/everything_server.py --http`` on a free loopback port, runs ``--suite all`` for each
protocol revision with ``mcp-baseline.yml`` as the expected failures, and exits non-zero when any leg has a
failure that is not in the baseline (or a baseline entry that now passes). The ``tasks`` leg runs the Tasks
extension's scenarios (``tasks-*``: extension scenarios, which ``--spec-version`` filters out) one per suite
process, several at once, and fails on any failed check. Needs Node.js 20+ and npm.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final

try:
    import fcntl
except ImportError:  # Windows: no lock, so run the legs one at a time there
    fcntl = None  # type: ignore[assignment]

SUITE_PACKAGE: Final = "@modelcontextprotocol/conformance"
SUITE_VERSION: Final = os.environ.get("MCP_CONFORMANCE_VERSION", "0.2.0-alpha.12")
LEGS: Final = ("2025-11-25", "2026-07-28")
TASKS_LEG: Final = "tasks"
TASK_SCENARIOS: Final = (
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
)
# Scenarios leave 60-second tasks running (never cancelled): the server runs plenty at once, so none waits.
TASK_WORKERS: Final = "64"
_PASSED: Final = re.compile(r"Passed: (\d+)/(\d+), (\d+) failed")
HERE: Final = Path(__file__).resolve().parent
ROOT: Final = HERE.parent.parent
BASELINE: Final = HERE / "mcp-baseline.yml"
SERVER_TARGET: Final = ROOT / "examples" / "everything_server.py"
# Exit status when the suite cannot be installed (no npm, no registry): the pytest wrapper skips on it.
INSTALL_FAILED: Final = 3
# With several workers each process has its own registry: a tool-list change a call makes in one worker reaches
# the subscriptions/listen streams of that worker only, and whether the suite's listen stream and its trigger
# call land on the same worker is the kernel's choice. So with --workers this one check may pass or fail; it is
# expected to fail, and its passing (a "stale" entry) is no failure either.
PER_PROCESS_CHECK: Final = "server-stateless:sep-2575-server-sends-tools-list-changed-on-subscription"


def cache_dir() -> Path:
    configured = os.environ.get("MCP_CONFORMANCE_CACHE")
    base = Path(configured) if configured else Path.home() / ".cache" / "mcptools"
    return base / f"mcp-conformance-{SUITE_VERSION}"


def install_suite() -> Path:
    """The suite's entry script, installing the pinned package on first use.

    Runs started together (pytest-xdist workers) take turns: two npm installs into one folder break each other.
    """
    home = cache_dir()
    home.mkdir(parents=True, exist_ok=True)
    with (home / ".install.lock").open("a") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        return _install_suite(home)


def _install_suite(home: Path) -> Path:
    package = home / "node_modules" / "@modelcontextprotocol" / "conformance"
    manifest = package / "package.json"
    if not manifest.is_file() or f'"version": "{SUITE_VERSION}"' not in manifest.read_text("utf-8"):
        npm = shutil.which("npm")
        if npm is None:
            print("run_mcp_conformance: npm is not installed (the suite is an npm package)", file=sys.stderr)
            sys.exit(INSTALL_FAILED)
        home.mkdir(parents=True, exist_ok=True)
        installed = subprocess.run(
            [
                npm,
                "install",
                "--prefix",
                str(home),
                "--no-audit",
                "--no-fund",
                "--silent",
                f"{SUITE_PACKAGE}@{SUITE_VERSION}",
            ],
            check=False,
        )
        if installed.returncode != 0:
            print("run_mcp_conformance: npm could not install the suite", file=sys.stderr)
            sys.exit(INSTALL_FAILED)
    return node20_compatible(package / "dist" / "index.js")


def node_has_glob_sync(node: str) -> bool:
    probe = subprocess.run([node, "-e", "process.exit(require('fs').globSync ? 0 : 1)"], check=False)
    return probe.returncode == 0


def node20_compatible(entry: Path) -> Path:
    """The entry script, or a copy that runs on Node 20.

    The published bundle imports ``globSync`` from ``fs``, which Node 20 does not have; the suite only uses
    it to look for optional baseline files next to the server, so the copy binds that name to a function that
    finds nothing and drops it from the import list.
    """
    node = shutil.which("node")
    if node is None:
        print("run_mcp_conformance: node is not installed", file=sys.stderr)
        sys.exit(INSTALL_FAILED)
    if node_has_glob_sync(node):
        return entry
    adapted = entry.with_name("index.node20-mcptools.js")
    if adapted.is_file() and adapted.stat().st_mtime >= entry.stat().st_mtime:
        return adapted
    source = entry.read_text("utf-8")
    found = re.search(r"\bglobSync as ([A-Za-z_$][\w$]*)\s*,?", source)
    if found is None:
        sys.exit("run_mcp_conformance: cannot find the globSync import to adapt for this Node version")
    alias = found.group(1)
    without_import = source[: found.start()] + source[found.end() :]
    lines = without_import.split("\n", 1)
    shebang, rest = (lines[0] + "\n", lines[1]) if lines[0].startswith("#!") else ("", without_import)
    adapted.write_text(f"{shebang}const {alias} = () => [];\n{rest}", "utf-8")
    return adapted


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until_listening(port: int, server: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit(f"run_mcp_conformance: the server exited early with status {server.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    sys.exit("run_mcp_conformance: the server did not start listening in time")


def run_leg(entry: Path, url: str, version: str, verbose: bool, workdir: Path, workers: int = 1) -> int:
    baseline = BASELINE
    if workers > 1:
        baseline = workdir / "mcp-baseline-workers.yml"
        text = BASELINE.read_text("utf-8")
        baseline.write_text(text.replace("server:\n", f"server:\n  - {PER_PROCESS_CHECK}\n", 1), "utf-8")
    command = [
        "node",
        str(entry),
        "server",
        "--url",
        url,
        "--suite",
        "all",
        "--spec-version",
        version,
        "--expected-failures",
        str(baseline),
    ]
    if verbose:
        command.append("--verbose")
    print(f"== MCP conformance, protocol {version}", flush=True)
    completed = subprocess.run(command, cwd=workdir, capture_output=True, text=True, check=False)
    output = completed.stdout + completed.stderr
    if verbose:
        print(output, flush=True)
    else:
        summary = output[output.find("=== SUMMARY ===") :] if "=== SUMMARY ===" in output else output
        print(summary.strip(), flush=True)
    if completed.returncode != 0 and workers > 1 and _only_stale_is_per_process(output):
        print(f"(with {workers} workers {PER_PROCESS_CHECK} passed this time: fine, see PER_PROCESS_CHECK)")
        return 0
    return completed.returncode


def _only_stale_is_per_process(output: str) -> bool:
    """Whether the suite's only complaint is that the per-process check passed."""
    if "Unexpected failures" in output or "Stale baseline entries" not in output:
        return False
    stale = output[output.find("Stale baseline entries") :].splitlines()[1:]
    listed = [line.strip() for line in stale if line.strip().startswith("✓")]
    return listed == [f"✓ {PER_PROCESS_CHECK}"]


def run_tasks_leg(entry: Path, url: str, verbose: bool, workdir: Path) -> int:
    """The Tasks extension's scenarios, each in a suite process of its own, all at once; the figure printed."""
    print("== MCP conformance, the Tasks extension (io.modelcontextprotocol/tasks)", flush=True)
    running = {
        scenario: subprocess.Popen(
            ["node", str(entry), "server", "--url", url, "--scenario", scenario],
            cwd=workdir,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for scenario in TASK_SCENARIOS
    }
    passed = total = failed = 0
    bad: list[str] = []
    skipped: list[str] = []
    for scenario, process in running.items():
        output, _ = process.communicate(timeout=300)
        found = _PASSED.search(output)
        if verbose or found is None or process.returncode != 0 or found.group(3) != "0":
            print(output, flush=True)
        if found is None or process.returncode != 0 or found.group(3) != "0":
            bad.append(scenario)
            continue
        passed, total, failed = passed + int(found.group(1)), total + int(found.group(2)), failed + int(found.group(3))
        if found.group(2) == "0":
            skipped.append(scenario)
        print(f"  {scenario}: {found.group(1)}/{found.group(2)} checks passed", flush=True)
    print(
        f"Tasks: {len(TASK_SCENARIOS) - len(bad)}/{len(TASK_SCENARIOS)} scenarios pass, {passed}/{total} checks"
        + (f"; skipped by the suite itself: {', '.join(skipped)}" if skipped else ""),
        flush=True,
    )
    if bad:
        print(f"!! tasks: failing scenarios: {', '.join(bad)}", flush=True)
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument(
        "--leg", choices=(*LEGS, TASKS_LEG), action="append", help="run only this protocol revision (or: tasks)"
    )
    parser.add_argument("--verbose", action="store_true", help="show every check")
    parser.add_argument(
        "--workers", type=int, default=1, help="serve with this many uvicorn workers (2026-07-28 leg only)"
    )
    args = parser.parse_args(argv)
    legs = args.leg or LEGS
    if args.workers > 1 and list(legs) != ["2026-07-28"]:
        parser.error("--workers > 1 serves statelessly: run it with --leg 2026-07-28")
    entry = install_suite()
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcptools",
            "serve",
            str(SERVER_TARGET),
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--workers",
            str(args.workers),
            "--task-workers",
            TASK_WORKERS,
        ],
        cwd=ROOT,
    )
    failures = 0
    try:
        wait_until_listening(port, server)
        with tempfile.TemporaryDirectory(prefix="mcp-conformance-") as workdir:
            for version in legs:
                url = f"http://127.0.0.1:{port}/mcp"
                if version == TASKS_LEG:
                    failures += run_tasks_leg(entry, url, args.verbose, Path(workdir))
                    continue
                if run_leg(entry, url, version, args.verbose, Path(workdir), args.workers) != 0:
                    failures += 1
                    print(f"!! protocol {version}: unexpected failures (or stale baseline entries)", flush=True)
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
