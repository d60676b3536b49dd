"""Serving options of the wrong type or out of range are refused before anything is served, each with a
``UsageError`` naming the option as its caller spelled it (``port=`` in Python, ``--port`` on the command line)."""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcptools import ToolRegistry, UsageError
from mcptools._options import resolve
from mcptools._transports import StreamableHTTPApp
from mcptools._transports.sse import SSEApp

ROOT = Path(__file__).resolve().parent.parent


def registry() -> ToolRegistry:
    served = ToolRegistry("options")

    @served.tool
    def ping() -> str:
        return "pong"

    return served


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        # A string is a sequence of strings to mypy: each letter would have been an allowed host.
        (
            {"allowed_hosts": "example.com"},
            "allowed_hosts must be a list of strings or None, got 'example.com' (a list: "
            "allowed_hosts=['example.com'])",
        ),
        ({"port": "abc"}, "port must be a whole number, got 'abc'"),
        ({"port": True}, "port must be a whole number, got True"),
        ({"port": -5}, "port must be a port number from 0 to 65535 (0: any free port), got -5"),
        ({"port": 70000}, "port must be a port number from 0 to 65535 (0: any free port), got 70000"),
        ({"workers": "2"}, "workers must be a whole number, got '2'"),
        ({"workers": 0}, "workers must be a whole number above 0, got 0"),
        ({"host": None}, "host must be a string, got None"),
        ({"stateless": "no"}, "stateless must be True or False, got 'no'"),
        ({"timeout_body": "30"}, "timeout_body must be a number, got '30'"),
        ({"timeout_body": 0}, "timeout_body must be a number of seconds above 0, got 0"),
        ({"max_sessions": 2.5}, "max_sessions must be a whole number, got 2.5"),
        ({"bearer_token_scopes": "read"}, "bearer_token_scopes must be a list of strings, got 'read' (a list: "),
        ({"stack": "turbo"}, "stack must be one of 'auto', 'standard', 'fast', got 'turbo'"),
        ({"log_level": "loud"}, "log_level must be one of 'DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL' or None"),
    ],
)
def test_run_refuses_a_value_of_the_wrong_type_or_out_of_range(options: dict[str, Any], expected: str) -> None:
    with pytest.raises(UsageError, match="^registry.run: " + re.escape(expected)):
        registry().run("http", **options)


def test_the_checks_accept_what_the_types_say() -> None:
    resolved = resolve(
        "http",
        {"port": 0, "timeout_body": 5, "allowed_hosts": ("example.com",), "log_level": "info", "stateless": True},
    )
    assert resolved["port"] == 0 and resolved["timeout_body"] == 5 and resolved["log_level"] == "INFO"
    assert resolved["allowed_hosts"] == ("example.com",)


def test_an_option_is_refused_for_a_transport_it_does_not_apply_to_in_the_callers_spelling() -> None:
    with pytest.raises(UsageError, match=r"^port applies to HTTP only; pass transport='http'"):
        resolve("stdio", {"port": 9000})
    with pytest.raises(UsageError, match=r"^--allow-host, --port apply to HTTP only; add --http"):
        resolve("stdio", {"allowed_hosts": ["a.example"], "port": 9000}, flags=True)
    assert resolve("sse", {"port": 9000})["port"] == 9000  # the HTTP options are both HTTP transports'


def test_serve_spells_the_fix_with_its_flags(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text("from mcptools import ToolRegistry\nregistry = ToolRegistry('app')\n", encoding="utf-8")
    for flags, expected in [
        (["--port", "9000"], "mcptools: --port applies to HTTP only; add --http (or --transport sse)"),
        (["--http", "--workers", "0"], "mcptools: --workers must be a whole number above 0, got 0"),
    ]:
        done = subprocess.run(
            [sys.executable, "-m", "mcptools", "serve", f"{target}:registry", *flags],
            check=False,
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(expected), done.stderr


def test_workers_get_their_environment_while_they_run_and_it_is_restored_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    seen: dict[str, str | None] = {}

    def fake_run(app: str, **options: Any) -> None:  # uvicorn's supervisor: what it would hand each worker
        seen.update({name: os.environ.get(name) for name in ("MCPTOOLS_WORKER", "MCPTOOLS_STATE_SECRET")})

    monkeypatch.setattr(uvicorn, "run", fake_run)
    monkeypatch.delenv("MCPTOOLS_WORKER", raising=False)
    monkeypatch.delenv("MCPTOOLS_STATE_SECRET", raising=False)
    from mcptools._options import resolve as resolve_options
    from mcptools._run import serve_http

    options = resolve_options("http", {"workers": 2, "port": 0})
    assert serve_http(registry(), options, target="app.py:registry") == 0
    assert seen["MCPTOOLS_WORKER"] is not None and '"target": "app.py:registry"' in seen["MCPTOOLS_WORKER"]
    assert seen["MCPTOOLS_STATE_SECRET"]
    assert "MCPTOOLS_WORKER" not in os.environ and "MCPTOOLS_STATE_SECRET" not in os.environ


def test_several_workers_with_nothing_to_load_them_from_is_a_usage_error() -> None:
    pytest.importorskip("uvicorn")
    with pytest.raises(UsageError, match=r"^registry.run: workers > 1 needs a TARGET the workers can import"):
        registry().run("http", workers=2, port=0)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda r: StreamableHTTPApp(r, path="mcp"), "StreamableHTTPApp: path must be a URL path starting with '/'"),
        (lambda r: StreamableHTTPApp(r, max_body_bytes=-1), "StreamableHTTPApp: max_body_bytes must be a number"),
        (lambda r: StreamableHTTPApp(r, session_idle_seconds=0), "StreamableHTTPApp: session_idle_seconds must be"),
        (lambda r: SSEApp(r, message_path="messages"), "SSEApp: message_path must be a URL path starting with '/'"),
        (lambda r: SSEApp(r, keepalive_seconds=0), "SSEApp: keepalive_seconds must be a number above 0, got 0"),
    ],
)
def test_a_mounted_app_refuses_its_own_bad_settings_when_built(
    build: Callable[[ToolRegistry], object], expected: str
) -> None:
    # Accepted, each of these would answer every request with 404 or 413, or end sessions before their first use.
    with pytest.raises(UsageError, match="^" + re.escape(expected)):
        build(registry())


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"host": ""}, "host must be an interface name or address (0.0.0.0 for every interface), got ''"),
        ({"host": "  "}, "host must be an interface name or address"),
        ({"bearer_token_env": ""}, "bearer_token_env must be the name of an environment variable, got ''"),
    ],
)
def test_a_blank_host_or_token_variable_is_refused(options: dict[str, Any], expected: str) -> None:
    # An empty host binds every interface: what host=os.environ.get("HOST", "") does when HOST is unset.
    with pytest.raises(UsageError, match="^registry.run: " + re.escape(expected)):
        registry().run("http", **options)


def test_a_token_variable_that_is_not_set_is_said_so(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("uvicorn")
    monkeypatch.delenv("NOPE_UNSET", raising=False)
    with pytest.raises(UsageError, match="environment variable NOPE_UNSET is not set; export the token"):
        registry().run("http", bearer_token_env="NOPE_UNSET", port=0)
    monkeypatch.setenv("NOPE_UNSET", "")
    with pytest.raises(UsageError, match="environment variable NOPE_UNSET is empty"):
        registry().run("http", bearer_token_env="NOPE_UNSET", port=0)


def test_the_registrys_own_settings_are_checked_where_they_are_written() -> None:
    with pytest.raises(UsageError, match=r"^ToolRegistry\('w'\): port must be a whole number, got 'x'"):
        ToolRegistry("w", port="x")  # type: ignore[arg-type]
    served = ToolRegistry("w", log_level="INFO", port=8080)
    with pytest.raises(UsageError, match=r"port must be a port number from 0 to 65535 \(0: any free port\), got -1"):
        served.settings.port = -1
    assert served.settings.port == 8080


def test_an_option_of_a_transport_other_than_http_is_named_with_its_transports(monkeypatch: pytest.MonkeyPatch) -> None:
    from mcptools import _options

    options = dict(_options._options())
    port, kind = options["port"]
    monkeypatch.setitem(options, "port", (dataclasses.replace(port, transports=frozenset({"http", "tcp"})), kind))
    monkeypatch.setattr(_options, "_options", lambda: options)
    with pytest.raises(UsageError, match=r"^port applies to http and tcp only; pass one of them as the transport"):
        resolve("stdio", {"port": 9000})


def test_a_task_store_that_cannot_be_opened_stops_the_server_with_one_line(tmp_path: Path) -> None:
    target = tmp_path / "app.py"
    target.write_text(
        "from mcptools import ToolRegistry\nregistry = ToolRegistry('app')\n\n"
        "@registry.tool(task='optional')\nasync def slow() -> str:\n    return 'done'\n",
        encoding="utf-8",
    )
    store = f"sqlite:///{tmp_path}/missing/dir/tasks.db"
    done = subprocess.run(
        [sys.executable, "-m", "mcptools", "serve", f"{target}:registry", "--task-store", store],
        check=False,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done.stderr
    assert "cannot open the task store" in done.stderr and "Traceback" not in done.stderr, done.stderr
