"""The official MCP conformance suite, both legs, as part of the test run (skipped without Node.js and npm).

The work is done by ``run_mcp_conformance.py`` next to this file; see it for what runs and the baseline.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RUNNER = Path(__file__).resolve().parent / "run_mcp_conformance.py"
INSTALL_FAILED = 3


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs Node.js and npm")
def test_both_protocol_legs_pass_apart_from_the_baseline() -> None:
    completed = subprocess.run([sys.executable, str(RUNNER)], capture_output=True, text=True, timeout=600, check=False)
    if completed.returncode == INSTALL_FAILED:
        pytest.skip("the conformance suite could not be installed: " + completed.stderr.strip())
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.count("Baseline check passed") == 2


@pytest.mark.skipif(shutil.which("node") is None or shutil.which("npm") is None, reason="needs Node.js and npm")
def test_the_stateless_leg_passes_across_several_worker_processes() -> None:
    # Input-required rounds, cursors and header checks must not depend on which worker takes a request.
    completed = subprocess.run(
        [sys.executable, str(RUNNER), "--leg", "2026-07-28", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if completed.returncode == INSTALL_FAILED:
        pytest.skip("the conformance suite could not be installed: " + completed.stderr.strip())
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "Baseline check passed" in completed.stdout
