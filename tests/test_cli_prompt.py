"""``mcptools call`` answers a tool's questions at the terminal when it is interactive (answers read back in
their types, URL mode shown to open), and refuses clearly when stdin is no terminal or the tool wants sampling."""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from mcptools._cli import main
from mcptools._prompt import TerminalPrompter

SERVER = """
from mcptools import Context, ToolRegistry

registry = ToolRegistry("ask")

@registry.tool
async def order(ctx: Context) -> str:
    schema = {
        "type": "object",
        "properties": {
            "size": {"type": "string", "enum": ["S", "L"]},
            "count": {"type": "integer", "description": "how many"},
            "gift": {"type": "boolean"},
            "note": {"type": "string", "default": "none"},
        },
        "required": ["size", "count"],
    }
    answer = await ctx.elicit("Your order?", schema)
    return f"{answer['action']} {answer.get('content')}"

@registry.tool
async def login(ctx: Context) -> str:
    return (await ctx.elicit_url("Sign in", "https://auth.example/login")).action

@registry.tool
async def think(ctx: Context) -> str:
    await ctx.sample("hi", max_tokens=3)
    return "thought"
"""


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def server(tmp_path: Path) -> str:
    path = tmp_path / "ask_server.py"
    path.write_text(SERVER)
    return str(path)


def _call(server: str, tool: str, stdin: io.StringIO, capsys: pytest.CaptureFixture[str]) -> tuple[int, Any, str]:
    original = sys.stdin
    sys.stdin = stdin
    try:
        code = main(["call", server, tool])
    finally:
        sys.stdin = original
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_an_interactive_call_prompts_for_each_field_in_its_type(
    server: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # accept; size "M" is refused then "L"; count "x" refused then 3; gift y; note left to its default.
    code, response, prompts = _call(server, "order", _Terminal("\nM\nL\nx\n3\ny\n\n"), capsys)
    assert code == 0
    assert response["result"]["content"][0]["text"] == "accept {'size': 'L', 'count': 3, 'gift': True, 'note': 'none'}"
    assert "The tool asks: Your order?" in prompts and "choose one of: S, L" in prompts
    assert "enter a whole number" in prompts and "how many" in prompts


def test_decline_cancel_and_end_of_input(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert "decline None" in _call(server, "order", _Terminal("d\n"), capsys)[1]["result"]["content"][0]["text"]
    assert "cancel None" in _call(server, "order", _Terminal("\nS\n"), capsys)[1]["result"]["content"][0]["text"]


def test_url_mode_shows_the_url(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, response, prompts = _call(server, "login", _Terminal("\n"), capsys)
    assert code == 0 and response["result"]["content"][0]["text"] == "accept"
    assert "Open this URL: https://auth.example/login" in prompts
    assert _call(server, "login", _Terminal("d\n"), capsys)[1]["result"]["content"][0]["text"] == "decline"


def test_without_a_terminal_the_call_is_refused_clearly(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, response, message = _call(server, "order", io.StringIO(""), capsys)
    assert code == 1 and response["error"]["code"] == -32021
    assert "stdin is not a terminal" in message


def test_sampling_is_refused_clearly(server: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, response, message = _call(server, "think", _Terminal(""), capsys)
    assert code == 1 and response["error"]["message"] == "Missing required client capability: sampling"
    assert "no model to ask" in message


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_a_real_pseudo_terminal_is_recognised(server: str) -> None:
    import subprocess

    leader, follower = os.openpty()
    try:
        os.write(leader, b"\nS\n2\nn\n\n")
        done = subprocess.run(
            [sys.executable, "-m", "mcptools", "call", server, "order"],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"]["content"][0]["text"].startswith("accept {'size': 'S', 'count': 2")


def test_prompter_reads_numbers_and_booleans() -> None:
    out = io.StringIO()
    prompter = TerminalPrompter(io.StringIO("y\n2.5\nmaybe\nno\n"), out)
    schema = {"type": "object", "properties": {"x": {"type": "number"}, "b": {"type": "boolean"}}}
    assert prompter({"message": "m", "requestedSchema": schema}) == {
        "action": "accept",
        "content": {"x": 2.5, "b": False},
    }
    assert "answer y or n" in out.getvalue()
