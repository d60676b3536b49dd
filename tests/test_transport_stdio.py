"""The stdio transport: newline-delimited JSON-RPC, -32700 per bad line, clean exit at end of input."""

from __future__ import annotations

import asyncio
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from mcptools import ClientRequestError, Context, ToolRegistry
from mcptools._transports.stdio import serve_stdio_async

ROOT = Path(__file__).resolve().parent.parent


def serve_lines(registry: ToolRegistry, lines: list[bytes]) -> list[Any]:
    stdin = io.BytesIO(b"".join(lines))
    stdout = io.BytesIO()
    asyncio.run(asyncio.wait_for(serve_stdio_async(registry, stdin, stdout), 10))
    return [json.loads(line) for line in stdout.getvalue().splitlines()]


def test_bad_lines_get_parse_errors_and_the_server_reads_on() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def echo(text: str) -> str:
        return text

    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "é"}}}
    out = serve_lines(
        registry,
        [b"{oops\n", b"\n", b"   \n", b"\xff\xfe\n", json.dumps(call).encode() + b"\n", b"[1, 2\n"],
    )
    parse_errors = [m for m in out if "error" in m]
    assert [m["error"]["code"] for m in parse_errors] == [-32700, -32700, -32700]
    assert all(m["id"] is None for m in parse_errors)
    [answer] = [m for m in out if m.get("id") == 1]
    assert answer["result"]["content"] == [{"type": "text", "text": "é"}]


def test_eof_without_a_trailing_newline_still_serves_the_last_line() -> None:
    registry = ToolRegistry("stdio")
    out = serve_lines(registry, [b'{"jsonrpc": "2.0", "id": "x", "method": "ping"}'])
    assert out == [{"jsonrpc": "2.0", "id": "x", "result": {"resultType": "complete"}}]


TARGET = textwrap.dedent(
    """
    import os
    import sys

    from mcptools import ClientRequestError, Context, ToolRegistry
    from mcptools._context import Context

    print("printed at import time")
    sys.stdout.write("written to sys.stdout at import time\\n")

    registry = ToolRegistry("printer")

    @registry.tool
    def noisy() -> str:
        print("this must not reach stdout")
        os.write(1, b"written to fd 1 by a tool\\n")
        return "quiet result"

    @registry.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {"n": {"type": "string"}}})
        return "got " + answer["content"]["n"]
    """
)


def test_serve_subprocess_keeps_stdout_clean_and_talks_both_ways(tmp_path: Path) -> None:
    target = tmp_path / "printer.py"
    target.write_text(TARGET)
    process = subprocess.Popen(
        [sys.executable, "-m", "mcptools", "serve", str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdin is not None and process.stdout is not None

    def send(message: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message).encode() + b"\n")
        process.stdin.flush()

    def receive() -> Any:
        assert process.stdout is not None
        return json.loads(process.stdout.readline())

    try:
        send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {"elicitation": {}},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        )
        assert receive()["result"]["protocolVersion"] == "2025-06-18"
        send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "noisy"}})
        assert receive()["result"]["content"][0]["text"] == "quiet result"
        send({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "ask"}})
        question = receive()
        assert question["method"] == "elicitation/create"
        send({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "accept", "content": {"n": "Ada"}}})
        assert receive() == {
            "jsonrpc": "2.0",
            "id": 3,
            "result": {"content": [{"type": "text", "text": "got Ada"}], "isError": False},
        }
        process.stdin.close()
        assert process.wait(timeout=10) == 0
        assert process.stdout.read() == b""
        assert process.stderr is not None
        log = process.stderr.read()
        for noise in (
            b"printed at import time",
            b"written to sys.stdout at import time",
            b"this must not reach stdout",
            b"written to fd 1 by a tool",
        ):
            assert noise in log
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


# A session whose client can be asked (elicitation), then a call (id 2) of its tool `ask`.
ASKING_SESSION = (
    json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}},
        }
    ).encode()
    + b"\n"
    + json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "ask"}}).encode()
    + b"\n"
)


def test_end_of_input_fails_questions_that_can_no_longer_be_answered() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    async def ask(ctx: Context) -> str:
        await ctx.elicit("Name?", {"type": "object", "properties": {}})
        return "never"

    out = serve_lines(registry, [ASKING_SESSION])
    [answer] = [m for m in out if m.get("id") == 2]
    assert answer["result"]["isError"] is True


def test_a_question_the_client_never_answers_ends_at_its_deadline() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    async def ask(ctx: Context) -> str:
        try:
            await ctx.elicit("Name?", {"type": "object", "properties": {}})
        except ClientRequestError as error:
            return error.message
        return "answered"

    read_end, write_end = os.pipe()
    os.write(write_end, ASKING_SESSION)
    stdout = io.BytesIO()

    async def scenario() -> None:
        with open(read_end, "rb", buffering=0) as stdin:
            serving = asyncio.ensure_future(serve_stdio_async(registry, stdin, stdout, question_timeout=0.2))
            # The input stays open (the client is there, it just never answers) until the call has its answer.
            while b'"id":2,' not in stdout.getvalue():
                await asyncio.sleep(0.01)
            os.close(write_end)
            await serving

    asyncio.run(asyncio.wait_for(scenario(), 10))
    [answer] = [json.loads(line) for line in stdout.getvalue().splitlines() if b'"id":2,' in line]
    assert answer["result"]["content"][0]["text"] == "the client did not answer elicitation/create within 0.2 seconds"


def _initialize_line(version: str) -> bytes:
    message = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    return json.dumps(message).encode() + b"\n"


def test_a_batch_line_on_a_2025_03_26_session_gets_one_line_holding_the_array() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def echo(text: str) -> str:
        return text

    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "b"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "ping"},
    ]
    notes_only = [{"jsonrpc": "2.0", "method": "notifications/initialized"}]
    out = serve_lines(
        registry,
        [
            # before initialize: refused like any batch outside a 2025-03-26 session
            b'[{"jsonrpc": "2.0", "id": 9, "method": "ping"}]\n',
            _initialize_line("2025-03-26"),
            json.dumps(batch).encode() + b"\n",
            json.dumps(notes_only).encode() + b"\n",
            b"[]\n",
        ],
    )
    # Lines are served concurrently, so answers come in the order they are ready, not the order asked.
    assert len(out) == 4  # the notifications-only batch wrote no line at all
    [array] = [m for m in out if isinstance(m, list)]
    [init] = [m for m in out if isinstance(m, dict) and "result" in m]
    refusals = sorted((m for m in out if isinstance(m, dict) and "error" in m), key=lambda m: "empty" in str(m))
    first_refusal, empty_refusal = refusals
    assert first_refusal["error"]["code"] == -32600 and first_refusal["id"] is None
    assert "without a 2025-03-26 session" in first_refusal["error"]["message"]
    assert init["result"]["protocolVersion"] == "2025-03-26"
    assert array == [
        {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "b"}], "isError": False}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]
    assert empty_refusal["error"]["code"] == -32600 and "empty" in empty_refusal["error"]["message"]


def test_a_batch_line_on_a_later_revision_gets_a_single_invalid_request_error() -> None:
    out = serve_lines(
        ToolRegistry("stdio"),
        [_initialize_line("2025-06-18"), b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]\n'],
    )
    assert out[0]["result"]["protocolVersion"] == "2025-06-18"
    assert out[1]["id"] is None and out[1]["error"]["code"] == -32600
    assert "batches are not supported" in out[1]["error"]["message"]


def test_a_batch_line_past_the_entry_limit_gets_one_line_of_errors_carrying_the_ids() -> None:
    from mcptools._protocol.request_rules import MAX_BATCH_ENTRIES

    pings = [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in range(MAX_BATCH_ENTRIES + 1)]
    out = serve_lines(ToolRegistry("stdio"), [_initialize_line("2025-03-26"), json.dumps(pings).encode() + b"\n"])
    [array] = [m for m in out if isinstance(m, list)]
    assert [(m["id"], m["error"]["code"]) for m in array] == [(n, -32600) for n in range(MAX_BATCH_ENTRIES + 1)]


def test_deeply_nested_lines_get_parse_errors_and_calls_in_flight_still_answer() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def echo(x: Any) -> str:
        return json.dumps(x)[:20]

    def tools_call(request_id: int, depth: int) -> bytes:
        arguments = '{"x":' + "[" * depth + "]" * depth + "}"
        envelope = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": "echo"}}
        return json.dumps(envelope).replace('"echo"}', '"echo","arguments":' + arguments + "}").encode() + b"\n"

    out = serve_lines(
        registry,
        [
            tools_call(1, 400),
            b"[" * 1000 + b"]" * 1000 + b"\n",
            tools_call(2, 3000),
            b'{"a":' * 50_000 + b"1" + b"}" * 50_000 + b"\n",
            b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n',
        ],
    )
    errors = [m for m in out if "error" in m]
    assert [(m["id"], m["error"]["code"]) for m in errors] == [(None, -32700)] * 3
    assert all("nests deeper than" in m["error"]["message"] for m in errors)
    answers = {m["id"]: m["result"] for m in out if "result" in m}
    assert answers[1]["content"] == [{"type": "text", "text": "[" * 20}]
    assert 3 in answers


def _no_constants(name: str) -> Any:
    raise AssertionError(f"{name} on the wire")


def test_nan_never_reaches_the_wire() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def ratio() -> float:
        return float("nan")

    @registry.tool
    async def progress(ctx: Context) -> str:
        await ctx.report_progress(float("inf"), 1)  # a notification JSON cannot carry is dropped
        await ctx.report_progress(1, 1)
        return "done"

    def tools_call(request_id: int, name: str) -> bytes:
        params = {"name": name, "_meta": {"progressToken": "p"}}
        return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}).encode()

    stdin = io.BytesIO(tools_call(1, "ratio") + b"\n" + tools_call(2, "progress") + b"\n")
    stdout = io.BytesIO()
    asyncio.run(asyncio.wait_for(serve_stdio_async(registry, stdin, stdout), 10))
    text = stdout.getvalue().decode()
    out = [json.loads(line, parse_constant=_no_constants) for line in text.splitlines()]
    [ratio_answer] = [m for m in out if m.get("id") == 1]
    assert ratio_answer["result"]["isError"] is True
    progress_events = [m["params"]["progress"] for m in out if m.get("method") == "notifications/progress"]
    assert progress_events == [1]
    assert [m["result"]["content"][0]["text"] for m in out if m.get("id") == 2] == ["done"]


def test_a_lone_surrogate_gets_a_parse_error_not_a_silently_lost_reply() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def echo(text: str) -> str:
        return text

    lines = [
        rb'{"jsonrpc": "2.0", "id": "\ud800", "method": "ping"}' + b"\n",
        rb'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
        + rb'"params": {"name": "echo", "arguments": {"text": "\udfff"}}}'
        + b"\n",
        b'{"jsonrpc": "2.0", "id": 3, "method": "ping"}\n',
    ]
    out = serve_lines(registry, lines)
    # Both bad lines answered (-32700, id null, as for any line that does not parse); the server reads on.
    assert [(m.get("id"), m.get("error", {}).get("code")) for m in out if "error" in m] == [(None, -32700)] * 2
    assert [m for m in out if m.get("id") == 3] == [{"jsonrpc": "2.0", "id": 3, "result": {"resultType": "complete"}}]


def test_a_tool_returning_a_lone_surrogate_gets_an_error_for_its_id_not_a_lost_reply() -> None:
    registry = ToolRegistry("stdio")

    @registry.tool
    def broken() -> str:
        return "a\ud800b"  # no UTF-8 can carry it: the write itself used to fail, and the reply was gone

    @registry.tool
    async def noisy(ctx: Context) -> str:
        await ctx.log("info", "\udfff")  # a notification no client could read is dropped, not the call
        return "still here"

    lines = [
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "broken"}}\n',
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "noisy"}}\n',
    ]
    out = serve_lines(registry, lines)
    assert [(m["id"], m["error"]["code"]) for m in out if "error" in m] == [(1, -32603)]
    assert [m["result"]["content"][0]["text"] for m in out if m.get("id") == 2] == ["still here"]
