"""The command line, run as a user would: a subprocess on the example file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WEATHER = str(ROOT / "examples" / "weather.py")
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
STATELESS_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcptools", *args], capture_output=True, text=True, timeout=60, cwd=ROOT, check=False
    )


def test_list_prints_the_tools_list_result() -> None:
    done = run("list", WEATHER)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["resultType"] == "complete"
    [weather] = result["tools"]
    assert weather["name"] == "weather"
    assert weather["inputSchema"]["required"] == ["location"]


def test_call_prints_the_contract_response_for_bad_arguments() -> None:
    done = run("call", WEATHER, "weather", '{"location": "Paris", "days": "two"}')
    assert done.returncode == 1
    assert json.loads(done.stdout) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "resultType": "complete",
            "content": [{"type": "text", "text": "Invalid arguments: property 'days' must be integer"}],
            "isError": True,
        },
    }


def test_call_runs_the_tool_for_good_arguments() -> None:
    done = run("call", WEATHER, "weather", '{"location": "Paris", "days": 2}')
    assert done.returncode == 0, done.stderr
    response = json.loads(done.stdout)
    assert response["result"]["isError"] is False
    assert response["result"]["content"][0]["text"].startswith("Paris: ")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("call", WEATHER, "weather", "{not json"), "not valid JSON"),
        (("list", "no/such/file.py"), "no such file"),
        (("list", "examples/weather.py:nothing"), "has no attribute 'nothing'"),
        (("list", "examples/weather.py:Literal"), "not a ToolRegistry"),
        (("list", "no_such_module_xyz"), "cannot import module"),
    ],
)
def test_errors_are_one_clear_line(args: tuple[str, ...], needle: str) -> None:
    done = run(*args)
    assert done.returncode == 2
    assert needle in done.stderr
    assert "Traceback" not in done.stderr


def test_module_attribute_target(tmp_path: Path) -> None:
    (tmp_path / "two_servers.py").write_text(
        "from mcptools import ToolRegistry\n"
        "a = ToolRegistry('a')\nb = ToolRegistry('b')\n"
        "@b.tool\ndef only_b() -> str:\n    return 'b'\n"
    )
    ambiguous = run("list", str(tmp_path / "two_servers.py"))
    assert ambiguous.returncode == 2 and "several registries" in ambiguous.stderr
    named = run("list", f"{tmp_path / 'two_servers.py'}:b")
    assert named.returncode == 0, named.stderr
    assert [t["name"] for t in json.loads(named.stdout)["tools"]] == ["only_b"]


def test_stubgen_writes_a_module_that_matches_the_committed_stub(tmp_path: Path) -> None:
    out = tmp_path / "weather_tools.py"
    done = run("stubgen", "examples/weather.py", "-o", str(out), "--line-length", "120")
    assert done.returncode == 0, done.stderr
    assert out.read_text() == (ROOT / "stubs" / "weather_tools.py").read_text()
    stale = run("stubgen", WEATHER, "-o", str(ROOT / "stubs" / "everything_server_tools.py"), "--check")
    assert stale.returncode == 1


def test_a_module_target_is_found_in_the_current_directory_by_the_console_script(tmp_path: Path) -> None:
    (tmp_path / "mytools.py").write_text(
        "from mcptools import ToolRegistry\nregistry = ToolRegistry('mine')\n"
        "@registry.tool\ndef hello() -> str:\n    return 'hi'\n"
    )
    script = Path(sys.executable).parent / "mcptools"
    for target in ("mytools", "mytools:registry"):
        done = subprocess.run(
            [str(script), "call", target, "hello"],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["result"]["content"][0]["text"] == "hi"


ARGV_APP = """\
import argparse
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcptools import Context, ToolRegistry


@asynccontextmanager
async def lifespan(registry: ToolRegistry) -> AsyncIterator[str]:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tz", default="UTC")
    yield parser.parse_args(sys.argv[1:]).tz  # strict: mcptools' own arguments would be refused


registry = ToolRegistry("clock", lifespan=lifespan)


@registry.tool
def zone(ctx: Context[str]) -> str:
    return f"{ctx.state} {sys.argv[0]}"
"""


def test_call_gives_the_target_its_own_argv_and_the_arguments_after_the_separator(tmp_path: Path) -> None:
    # The lifespan reads sys.argv as `python app.py --tz ...` would: not `call app.py zone {}`, which its
    # argparse refused (exit 2, a usage line naming mcptools), and `-- --tz` was dropped silently.
    target = tmp_path / "clock.py"
    target.write_text(ARGV_APP)
    plain = run("call", str(target), "zone")
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout)["result"]["content"][0]["text"] == f"UTC {target}"
    forwarded = run("call", str(target), "zone", "{}", "--", "--tz", "Europe/Oslo")
    assert forwarded.returncode == 0, forwarded.stderr
    assert json.loads(forwarded.stdout)["result"]["content"][0]["text"] == f"Europe/Oslo {target}"


def test_list_runs_the_lifespan_as_a_server_lists() -> None:
    # notes_app enables its admin tools in its lifespan (--admin): list showed them to no one, call ran them.
    notes = str(ROOT / "examples" / "notes_app.py")
    plain = run("list", notes)
    admin = run("list", notes, "--", "--admin")
    assert plain.returncode == admin.returncode == 0, admin.stderr
    names = [tool["name"] for tool in json.loads(admin.stdout)["tools"]]
    assert "purge" in names and "purge" not in [tool["name"] for tool in json.loads(plain.stdout)["tools"]]


@pytest.mark.parametrize("command", [("list",), ("call", "zone")])
def test_a_lifespan_that_fails_to_start_is_said_once_and_exits_1(tmp_path: Path, command: tuple[str, ...]) -> None:
    target = tmp_path / "clock.py"
    target.write_text(ARGV_APP.replace("    parser = ", "    raise ConnectionError('db down')\n    parser = ", 1))
    done = run(command[0], str(target), *command[1:])
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr.startswith("ERROR mcptools: mcptools: the lifespan of 'clock' failed\nTraceback")
    assert done.stderr.endswith("ConnectionError: db down\n")


# -- logging: the target's own configuration, and --log-level for ours ------------------------------------------

LOGGING_TARGET = """
import logging

from mcptools import ToolRegistry
from mcptools.middleware import LogCalls

CONFIGURE = True
if CONFIGURE:
    logging.basicConfig(level=logging.INFO, format="TARGET %(name)s: %(message)s")
registry = ToolRegistry("logs", middleware=[LogCalls()])


@registry.tool
def hello(name: str) -> str:
    logging.getLogger("target.tool").info("hello from the tool to %s", name)
    return f"hello {name}"
"""


def logging_target(tmp_path: Path, *, configure: bool) -> str:
    path = tmp_path / "logs_target.py"
    path.write_text(LOGGING_TARGET.replace("CONFIGURE = True", f"CONFIGURE = {configure}"))
    return str(path)


def test_the_targets_own_logging_configuration_works_under_call_and_serve(tmp_path: Path) -> None:
    # The CLI configured logging before importing the target, so its basicConfig did nothing: no LogCalls line,
    # none of the tool's own.
    target = logging_target(tmp_path, configure=True)
    called = run("call", target, "hello", '{"name": "Ada"}')
    assert called.returncode == 0, called.stderr
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "hello",
            "arguments": {"name": "Bo"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    served = subprocess.run(
        [sys.executable, "-m", "mcptools", "serve", target],
        input=json.dumps(call) + "\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert '"hello Bo"' in served.stdout, served.stderr
    for name, stderr in (("Ada", called.stderr), ("Bo", served.stderr)):
        assert f"TARGET target.tool: hello from the tool to {name}" in stderr
        assert "TARGET mcptools.calls: tools/call hello by " in stderr


def test_log_level_sets_the_level_of_mcptools_loggers_only(tmp_path: Path) -> None:
    target = logging_target(tmp_path, configure=False)
    done = run("call", target, "hello", '{"name": "Ada"}', "--log-level", "info")
    assert done.returncode == 0, done.stderr
    assert "INFO mcptools.calls: tools/call hello by " in done.stderr
    assert "hello from the tool" not in done.stderr  # the target's logger keeps the default (WARNING)


def test_log_level_reaches_worker_processes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `serve --http --workers 2 --log-level info`: each worker process builds its app from what the first one
    # handed over (one environment variable), and sets mcptools' level from it before serving.
    import logging

    from mcptools._options import resolve, to_worker
    from mcptools._serve import app_from_environment

    target = logging_target(tmp_path, configure=False)
    ours = logging.getLogger("mcptools")
    monkeypatch.setattr(ours, "level", logging.NOTSET)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setenv("MCPTOOLS_WORKER", to_worker(resolve("http", {"workers": 2, "log_level": "info"}), target, []))
    app_from_environment()
    assert ours.level == logging.INFO


@pytest.mark.skipif(
    not IN_CI, reason="starts a server of two worker processes (CI only; the worker path is tested above)"
)
def test_log_level_reaches_the_workers_of_a_running_server(tmp_path: Path) -> None:
    import http.client
    import socket
    import time

    target = logging_target(tmp_path, configure=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "mcptools", "serve", target, "--http", "--port", str(port), "--workers", "2"]
    server = subprocess.Popen([*command, "--log-level", "INFO"], stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        body = json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "hello", "arguments": {"name": "Wo"}, "_meta": STATELESS_META},
            }
        )
        headers = {
            "content-type": "application/json",
            "accept": "application/json",
            "mcp-protocol-version": "2026-07-28",
        }
        headers |= {"mcp-method": "tools/call", "mcp-name": "hello"}
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                connection.request("POST", "/mcp", body, headers)
                assert connection.getresponse().status == 200
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
    finally:
        server.terminate()
        _, stderr = server.communicate(timeout=30)
    assert "INFO mcptools.calls: tools/call hello by " in stderr
