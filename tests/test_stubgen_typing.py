"""mypy, run on code that uses a generated stub, accepts right calls and rejects wrong ones.

One mypy run covers every case: each line marked ``# E: code`` must get exactly that error code, and no other
line may get an error (the generated stub itself included).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from mcptools._stubgen import generate_stubs

TOOLS = [
    {
        "name": "weather",
        "description": "Forecast the weather.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "days": {"type": "integer", "minimum": 1},
                "units": {"type": "string", "enum": ["c", "f"]},
            },
            "required": ["location"],
        },
        "outputSchema": {
            "type": "object",
            "properties": {"temperature": {"type": "number"}, "summary": {"type": "string"}},
            "required": ["temperature"],
        },
    },
    {"name": "ping", "inputSchema": {"type": "object", "additionalProperties": False}},
    # Schemas that accept any arguments (GitLab's reference server sends the first): any keyword, any type.
    {"name": "anything", "inputSchema": {}},
    {"name": "open_object", "inputSchema": {"type": "object"}},
    {
        "name": "odd",
        "inputSchema": {
            "type": "object",
            "properties": {"from": {"type": "string"}, "a-b": {"type": "integer"}},
            "required": ["from"],
        },
    },
    {"name": "kv", "inputSchema": {"type": "object", "additionalProperties": {"type": "integer"}}},
    {
        # "self" (and "arguments") are keywords like any other: the generated methods take self positionally.
        "name": "self_test",
        "inputSchema": {
            "type": "object",
            "properties": {"self": {"type": "integer"}, "arguments": {"type": "string"}},
            "required": ["self"],
        },
    },
]

CLIENT = """\
from typing import Any

from typing_extensions import assert_type

from weather_stub import AsyncTools, AsyncTypedClient, OddArguments, Tools, TypedClient, WeatherArguments
from weather_stub import WeatherResult


class Session:
    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"structuredContent": {"temperature": 21.0}}


class AsyncSession:
    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"structuredContent": {"temperature": 21.0}}


client = TypedClient(Session())
assert_type(client.weather(location="Paris"), WeatherResult)
assert_type(client.weather(location="Paris", days=2, units="f")["temperature"], float)
assert_type(client.ping(), dict[str, Any])
tools: Tools[dict[str, Any]] = client
arguments: WeatherArguments = {"location": "Paris", "units": "c"}
client.weather(**arguments)
odd: OddArguments = {"from": "x", "a-b": 1}
client.odd(**odd)
client.kv(a=1, b=2)
assert_type(client.anything(), dict[str, Any])
client.anything(project_id="42", page=2, labels=["bug"], confidential=None)
client.open_object(query={"nested": [1, "two"]}, self=object())
client.kv(self=1)
client.self_test(self=1, arguments="x")


async def use_async() -> None:
    asynchronous: AsyncTools[dict[str, Any]] = AsyncTypedClient(AsyncSession())
    assert_type(await asynchronous.weather(location="Paris"), WeatherResult)


client.weather(location="Paris", days="two")  # E: arg-type
client.weather(days=2)  # E: call-arg
client.weather(location="Paris", day=2)  # E: call-arg
client.weather(location="Paris", units="k")  # E: arg-type
client.ping(verbose=True)  # E: call-arg
bad: WeatherArguments = {"location": "Paris", "days": "two"}  # E: typeddict-item
missing: WeatherArguments = {"days": 2}  # E: typeddict-item
unknown: WeatherArguments = {"location": "Paris", "day": 2}  # E: typeddict-unknown-key
temperature: str = client.weather(location="Paris")["temperature"]  # E: assignment
client.weather(location="Paris")["humidity"]  # E: typeddict-item
client.kv(a="x")  # E: arg-type
odd_bad: OddArguments = {"from": "x", "a-b": "1"}  # E: typeddict-item
client.self_test(self="1")  # E: arg-type
client.self_test(arguments="x")  # E: call-arg


async def bad_async() -> None:
    await AsyncTypedClient(AsyncSession()).weather(location=1)  # E: arg-type
"""

MCP_CLIENT = """\
from mcp import ClientSession
from mcp.types import CallToolResult
from typing_extensions import assert_type

from weather_stub import AsyncTools, AsyncTypedClient, WeatherResult


async def forecast(session: ClientSession) -> None:
    client = AsyncTypedClient(session)
    assert_type(await client.weather(location="Paris", days=2), WeatherResult)
    assert_type(await client.ping(), CallToolResult)
    tools: AsyncTools[CallToolResult] = client
    await tools.weather(location="Paris", days="two")  # E: arg-type
"""

_ERROR = re.compile(r"^(?P<file>[\w.]+):(?P<line>\d+): error: .*\[(?P<code>[\w-]+)\]$")


def _mypy_errors(tmp_path: Path, cache: Path, client: str) -> tuple[set[tuple[int, str]], set[tuple[int, str]], str]:
    """Run mypy --strict once on a generated stub and ``client``: (expected, found) errors and the output."""
    (tmp_path / "weather_stub.py").write_text(generate_stubs(TOOLS, source="typing test"))
    (tmp_path / "client.py").write_text(client)
    (tmp_path / "mypy.ini").write_text("[mypy]\n")
    expected = {
        (number, match.group(1))
        for number, line in enumerate(client.splitlines(), start=1)
        if (match := re.search(r"# E: ([\w-]+)$", line))
    }
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--config-file",
            "mypy.ini",
            "--strict",
            "--python-version",
            "3.10",
            "--cache-dir",
            str(cache),
            "--show-error-codes",
            "--no-error-summary",
            "--no-pretty",
            "--hide-error-context",
            "weather_stub.py",
            "client.py",
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
        timeout=300,
    )
    output = completed.stdout + completed.stderr
    errors = [match for line in completed.stdout.splitlines() if (match := _ERROR.match(line))]
    assert all(error.group("file") == "client.py" for error in errors), output
    found = {(int(error.group("line")), error.group("code")) for error in errors}
    return expected, found, output


def test_mypy_accepts_right_calls_and_rejects_wrong_ones(tmp_path: Path, mypy_cache_dir: Path) -> None:
    expected, found, output = _mypy_errors(tmp_path, mypy_cache_dir, CLIENT)
    assert len(expected) == 15
    assert found == expected, output


@pytest.mark.skipif(
    not os.environ.get("CI"), reason="mypy through the official SDK's types takes about 10 s: run in CI"
)
def test_async_client_types_the_mcp_sdk_session(tmp_path: Path, mypy_cache_dir: Path) -> None:
    # The official SDK's ClientSession fits AsyncToolSession: its call_tool is a coroutine taking (name, arguments).
    pytest.importorskip("mcp")
    expected, found, output = _mypy_errors(tmp_path, mypy_cache_dir, MCP_CLIENT)
    assert found == expected == {(13, "arg-type")}, output
