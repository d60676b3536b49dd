"""A real Redis server for the tests that need one (Debian's ``redis-server``).

``.ci/run`` installs and starts one and exports its URL in ``MCPTOOLS_TEST_REDIS_URL``; elsewhere the
``redis_url`` fixture (conftest.py) starts its own on a free loopback port, one per test process, when the binary
is installed. Without it a test that needs Redis is skipped on a developer's machine and fails in CI (``CI`` set),
so a broken install can never pass as green. Tests share the server and keep apart by key prefix.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Final

REDIS_URL_ENV: Final = "MCPTOOLS_TEST_REDIS_URL"
IN_CI: Final = os.environ.get("CI", "").lower() in ("1", "true", "yes")
MISSING: Final = (
    "needs a Redis server: install Debian's redis-server (apt-get install -y redis-server) or point "
    f"{REDIS_URL_ENV} at one"
)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def start_redis(workdir: Path) -> tuple[subprocess.Popen[bytes], str] | None:
    """A fresh redis-server on a free loopback port, with nothing saved to disk; ``None`` without the binary."""
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    port = free_port()
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    server = subprocess.Popen([*command, "--dir", str(workdir)], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"redis-server exited with status {server.returncode} before it listened")
        if _answers_ping(port):
            return server, f"redis://127.0.0.1:{port}/0"
        time.sleep(0.02)
    server.kill()
    raise RuntimeError("redis-server did not answer PING within 10 s")
