"""The Streamable HTTP app at 2026-07-28: every POST stands alone, and its headers must agree with its body."""

from __future__ import annotations

import base64

import pytest
from http_support import LATEST, LEGACY, META, call, initialize, make_registry, request, run, stateless_headers

from mcptools._transports.asgi import StreamableHTTPApp


@pytest.fixture
def app() -> StreamableHTTPApp:
    return StreamableHTTPApp(make_registry())


def test_stateless_json_answer(app: StreamableHTTPApp) -> None:
    reply = run(
        call(
            app,
            body=request("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
            headers=stateless_headers("tools/call", "echo"),
        )
    )
    assert reply.status == 200 and reply.headers["content-type"] == "application/json"
    assert reply.json()["result"]["content"] == [{"type": "text", "text": "hi"}]
    assert "mcp-session-id" not in reply.headers


@pytest.mark.parametrize(
    ("headers", "code", "status"),
    [
        ({"mcp-protocol-version": LATEST}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "prompts/list"}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "TOOLS/CALL"}, -32020, 400),
        ({"mcp-method": "tools/call", "mcp-name": "echo"}, -32020, 400),
        ({"mcp-protocol-version": "2025-11-25", "mcp-method": "tools/call", "mcp-name": "echo"}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call"}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "other"}, -32020, 400),
        ({"MCP-PROTOCOL-VERSION": LATEST, "MCP-METHOD": " tools/call ", "Mcp-Name": "  echo  "}, None, 200),
        # A name may travel base64-encoded, and is decoded before the comparison.
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "=?base64?ZWNobw==?="}, None, 200),
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "=?base64?b3RoZXI=?="}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "=?base64?ZWNobw?="}, -32020, 400),
        ({"mcp-protocol-version": LATEST, "mcp-method": "tools/call", "mcp-name": "=?base64?!!!!?="}, -32020, 400),
    ],
)
def test_headers_must_agree_with_the_body(
    app: StreamableHTTPApp, headers: dict[str, str], code: int | None, status: int
) -> None:
    body = request("tools/call", {"name": "echo", "arguments": {"text": "x"}}, request_id=41)
    reply = run(call(app, body=body, headers=headers))
    assert reply.status == status
    if code is not None:
        assert reply.json() == {"jsonrpc": "2.0", "id": 41, "error": reply.json()["error"]}
        assert reply.json()["error"]["code"] == code


def test_a_header_left_out_is_named_as_missing_one_with_another_value_is_not() -> None:
    app = StreamableHTTPApp(make_registry())
    body = request("tools/call", {"name": "echo", "arguments": {"text": "x"}})
    left_out = run(call(app, body=body, headers={"mcp-method": "tools/call", "mcp-name": "echo"}))
    assert left_out.json()["error"]["message"] == (
        "Header mismatch: MCP-Protocol-Version must equal _meta's protocolVersion (the header is missing)"
    )
    other = run(call(app, body=body, headers=stateless_headers("tools/call", "other")))
    assert other.json()["error"]["message"] == "Header mismatch: Mcp-Name must equal the body's name"


def test_meta_problems_and_versions_map_to_http_statuses(app: StreamableHTTPApp) -> None:
    missing = {"jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": {}}
    reply = run(call(app, body=missing, headers=stateless_headers("server/discover")))
    assert (reply.status, reply.json()["error"]["code"], reply.json()["id"]) == (400, -32602, 3)
    future = request("server/discover")
    future["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": "v999"}
    reply = run(
        call(app, body=future, headers=stateless_headers("server/discover", **{"mcp-protocol-version": "v999"}))
    )
    assert reply.status == 400
    assert reply.json()["error"]["data"] == {"supported": [LATEST, *LEGACY], "requested": "v999"}
    unknown = run(call(app, body=request("nope/nope"), headers=stateless_headers("nope/nope")))
    assert (unknown.status, unknown.json()["error"]["code"]) == (404, -32601)


def test_notifications_stream_as_sse_then_the_answer(app: StreamableHTTPApp) -> None:
    body = request("tools/call", {"name": "slow_progress"})
    body["params"]["_meta"]["progressToken"] = "p1"
    reply = run(call(app, body=body, headers=stateless_headers("tools/call", "slow_progress")))
    assert reply.status == 200 and reply.headers["content-type"] == "text/event-stream"
    messages = reply.messages()
    assert [m.get("method") for m in messages] == ["notifications/progress", "notifications/progress", None]
    assert messages[-1]["result"]["content"][0]["text"] == "progressed"


@pytest.mark.parametrize(
    ("header", "accepted"),
    [
        ("Hello", True),
        ("=?base64?" + base64.b64encode(b"Hello").decode() + "?=", True),
        ("=?base64?SGVsbG8?=", False),
        ("=?base64?SGVs!!!bG8=?=", False),
        ("Goodbye", False),
        (None, False),
    ],
)
def test_mcp_param_headers(app: StreamableHTTPApp, header: str | None, accepted: bool) -> None:
    headers = stateless_headers("tools/call", "regional")
    if header is not None:
        headers["mcp-param-region"] = header
    reply = run(
        call(
            app,
            body=request("tools/call", {"name": "regional", "arguments": {"region": "Hello"}}),
            headers=headers,
        )
    )
    if accepted:
        assert reply.status == 200 and reply.json()["result"]["content"][0]["text"] == "Hello"
    else:
        assert reply.status == 400 and reply.json()["error"]["code"] == -32020


def test_a_2026_request_ignores_an_mcp_session_id_header(app: StreamableHTTPApp) -> None:
    headers = stateless_headers("tools/call", "echo", **{"mcp-session-id": "no-such-session"})
    reply = run(call(app, body=request("tools/call", {"name": "echo", "arguments": {"text": "hi"}}), headers=headers))
    assert reply.status == 200 and reply.json()["result"]["content"][0]["text"] == "hi"
    assert "mcp-session-id" not in reply.headers
    # A live 2025 session's id on a 2026 request changes nothing either: the request is served statelessly.
    session_id = initialize(app)
    headers = stateless_headers("tools/list", **{"mcp-session-id": session_id})
    listed = run(call(app, body=request("tools/list"), headers=headers))
    assert listed.status == 200 and listed.json()["result"]["resultType"] == "complete"
