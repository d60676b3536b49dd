"""The Streamable HTTP ASGI app, driven in-process: guards, header rules, sessions, SSE and resumption."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import subprocess
import sys
from collections.abc import Coroutine, MutableMapping
from typing import Any, TypeVar

import pytest

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._transports.asgi import StreamableHTTPApp

T = TypeVar("T")
LATEST = "2026-07-28"
LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"]
META = {
    "io.modelcontextprotocol/protocolVersion": LATEST,
    "io.modelcontextprotocol/clientCapabilities": {},
}


def make_registry() -> ToolRegistry:
    registry = ToolRegistry("http-test")

    @registry.tool
    def echo(text: str) -> str:
        return text

    @registry.tool
    async def slow_progress(ctx: Context) -> str:
        for step in (1, 2):
            await ctx.report_progress(step, 2)
            await asyncio.sleep(0.01)
        return "progressed"

    @registry.tool
    async def reconnect(ctx: Context) -> str:
        await ctx.close_stream()
        await asyncio.sleep(0.05)
        return "after the cut"

    @registry.tool(
        input_schema={
            "type": "object",
            "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
            "required": ["region"],
            "additionalProperties": False,
        }
    )
    def regional(region: str) -> str:
        return region

    return registry


class Reply:
    def __init__(self, status: int, headers: dict[str, str], body: bytes) -> None:
        self.status = status
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> list[dict[str, str]]:
        parsed = []
        for block in self.body.decode().split("\n\n"):
            if not block.strip():
                continue
            event: dict[str, str] = {}
            for line in block.split("\n"):
                name, _, value = line.partition(": ")
                event[name] = value
            parsed.append(event)
        return parsed

    def messages(self) -> list[Any]:
        return [json.loads(e["data"]) for e in self.events() if e.get("data")]


async def call(
    app: StreamableHTTPApp,
    method: str = "POST",
    body: Any = None,
    headers: dict[str, str] | None = None,
    path: str = "/mcp",
    raw: bytes | None = None,
) -> Reply:
    payload = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
    base = {
        "host": "127.0.0.1:8000",
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
    }
    base.update({k.lower(): v for k, v in (headers or {}).items()})
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in base.items() if v is not None],
    }
    sent = False
    finished = asyncio.Event()
    status = 0
    response_headers: dict[str, str] = {}
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": payload, "more_body": False}
        await finished.wait()
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            response_headers.update({k.decode(): v.decode() for k, v in message.get("headers", [])})
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                finished.set()

    await asyncio.wait_for(app(scope, receive, send), 10)
    return Reply(status, response_headers, b"".join(chunks))


def stateless_headers(method: str, name: str | None = None, **extra: str) -> dict[str, str]:
    headers = {"mcp-protocol-version": LATEST, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    headers.update(extra)
    return headers


def request(method: str, params: dict[str, Any] | None = None, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": {**(params or {}), "_meta": META}}


@pytest.fixture
def app() -> StreamableHTTPApp:
    return StreamableHTTPApp(make_registry())


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


# -- guards --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "origin", "status"),
    [
        ("127.0.0.1:8000", None, 200),
        ("localhost", "http://localhost:3000", 200),
        ("[::1]:9", "https://[::1]", 200),
        ("evil.example.com", None, 403),
        ("evil.example.com:8000", "http://evil.example.com:8000", 403),
        ("127.0.0.1:8000", "http://evil.example.com", 403),
        ("localhost.evil.com", None, 403),
        ("127.0.0.1:notaport", None, 403),
        ("", None, 403),
        (None, None, 403),
        ("LOCALHOST:8000", "HTTP://LOCALHOST:8000", 200),
        ("[::1]", None, 200),
        ("[::1]:8000", "http://[::1]:5173", 200),
        ("::1", None, 403),  # an IPv6 literal must be in brackets in Host
        ("[::1", None, 403),
        ("[::2]:8000", None, 403),
        ("[::1]:8000", "http://[::2]:8000", 403),
        ("localhost", "null", 403),  # sandboxed pages and files
        ("localhost", "file://localhost", 403),
        ("localhost", "http://localhost@evil.example.com", 403),
        ("localhost", "http://evil.example.com#localhost", 403),
        ("localhost", "http://127.0.0.1.evil.example.com", 403),
    ],
)
def test_dns_rebinding_guard(app: StreamableHTTPApp, host: str | None, origin: str | None, status: int) -> None:
    headers = stateless_headers("tools/list")
    headers["host"] = host  # type: ignore[assignment]  # None: the request carries no Host at all
    if origin is not None:
        headers["origin"] = origin
    reply = run(call(app, body=request("tools/list"), headers=headers))
    assert reply.status == status


@pytest.mark.parametrize(
    ("allowed", "host", "origin", "status"),
    [
        (["mcp.example.com:8443"], "mcp.example.com:8443", "https://mcp.example.com:8443", 200),
        (["mcp.example.com:8443"], "mcp.example.com:9000", None, 403),
        (["mcp.example.com:8443"], "mcp.example.com", None, 403),  # port 80 implied
        (["mcp.example.com:80"], "mcp.example.com", "http://mcp.example.com", 200),
        (["mcp.example.com:443"], "mcp.example.com", "https://mcp.example.com", 403),  # plain-http request
        (["https://app.example.com", "mcp.example.com"], "mcp.example.com", "https://app.example.com", 200),
        (["MCP.Example.com"], "mcp.example.COM:1", "http://MCP.example.com:2", 200),
        (["::1"], "[::1]:8000", "http://[::1]:3000", 200),
        (["10.0.0.7"], "10.0.0.7:8000", None, 200),
        (["10.0.0.7"], "localhost:8000", None, 403),  # an explicit list replaces the default
    ],
)
def test_allow_list_entries_with_ports_ipv6_and_origins(
    allowed: list[str], host: str, origin: str | None, status: int
) -> None:
    custom = StreamableHTTPApp(make_registry(), allowed_hosts=allowed)
    headers = stateless_headers("tools/list", host=host)
    if origin is not None:
        headers["origin"] = origin
    assert run(call(custom, body=request("tools/list"), headers=headers)).status == status


@pytest.mark.parametrize("entry", ["http://", "mcp.example.com:port", "[::1", "ftp://x.example"])
def test_allow_list_entries_that_name_no_host_are_definition_errors(entry: str) -> None:
    with pytest.raises(ValueError, match="allowed host"):
        StreamableHTTPApp(make_registry(), allowed_hosts=[entry])


def test_allow_list_adds_hosts_and_star_disables_the_guard() -> None:
    custom = StreamableHTTPApp(make_registry(), allowed_hosts=["mcp.example.com"])
    headers = stateless_headers("tools/list", host="mcp.example.com", origin="https://mcp.example.com")
    assert run(call(custom, body=request("tools/list"), headers=headers)).status == 200
    assert run(call(custom, body=request("tools/list"), headers=stateless_headers("tools/list"))).status == 403
    open_app = StreamableHTTPApp(make_registry(), allowed_hosts=["*"])
    headers = stateless_headers("tools/list", host="anything.example")
    assert run(call(open_app, body=request("tools/list"), headers=headers)).status == 200


def test_http_level_refusals(app: StreamableHTTPApp) -> None:
    body = request("tools/list")
    headers = stateless_headers("tools/list")
    assert run(call(app, body=body, headers=headers, path="/other")).status == 404
    assert run(call(app, "PUT", body=body, headers=headers)).status == 405
    assert run(call(app, body=body, headers={**headers, "content-type": "text/plain"})).status == 415
    assert run(call(app, body=body, headers={**headers, "accept": "text/html"})).status == 406
    small = StreamableHTTPApp(make_registry(), max_body_bytes=64)
    assert run(call(small, body=body, headers=headers)).status == 413
    assert run(call(small, body=body, headers={**headers, "content-length": "999999"})).status == 413
    parse = run(call(app, raw=b"{not json", headers=headers))
    assert parse.status == 400 and parse.json()["error"]["code"] == -32700
    batch = run(call(app, body=[body], headers=headers))
    assert batch.status == 400 and batch.json()["error"]["code"] == -32600


def _deep_tools_call(depth: int) -> bytes:
    envelope = json.dumps(request("tools/call", {"name": "echo", "arguments": {"text": "X"}}))
    return envelope.replace('"X"', "[" * depth + "]" * depth).encode()


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
        b"[" * 1000 + b"]" * 1000,
        _deep_tools_call(3000),
    ],
    ids=["arrays-100000", "objects-50000", "arrays-1000", "tools-call-3000"],
)
def test_deeply_nested_bodies_are_parse_errors_not_500(body: bytes) -> None:
    app = StreamableHTTPApp(make_registry(), max_body_bytes=1_000_000)
    reply = run(call(app, raw=body, headers=stateless_headers("tools/call", "echo")))
    assert reply.status == 400
    assert reply.json()["error"]["code"] == -32700
    assert "nests deeper than" in reply.json()["error"]["message"]


def test_nesting_within_the_limit_reaches_the_tool_and_gets_a_clean_answer(app: StreamableHTTPApp) -> None:
    reply = run(call(app, raw=_deep_tools_call(400), headers=stateless_headers("tools/call", "echo")))
    assert reply.status == 200
    assert reply.json()["result"]["isError"] is True  # the schema wants a string: a validation error, no crash


# -- 2026-07-28 stateless POST -------------------------------------------------------------------------


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


# -- 2025 sessions -------------------------------------------------------------------------------------


def initialize(app: StreamableHTTPApp, version: str = "2025-11-25") -> str:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = run(call(app, body=body))
    assert reply.status == 200
    assert reply.json()["result"]["protocolVersion"] == version
    session_id = reply.headers["mcp-session-id"]
    assert session_id and all(0x21 <= ord(c) <= 0x7E for c in session_id)
    return session_id


def test_session_lifecycle(app: StreamableHTTPApp) -> None:
    session_id = initialize(app)
    sid = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    note = run(call(app, body={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=sid))
    assert note.status == 202 and note.body == b""
    listed = run(call(app, body={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, headers=sid))
    assert listed.status == 200 and listed.headers["content-type"] == "text/event-stream"
    priming, *rest = listed.events()
    assert priming["data"] == "" and priming["retry"] and priming["id"]
    assert [e["id"] for e in rest] and rest[-1]["event"] == "message"
    assert json.loads(rest[-1]["data"])["result"]["tools"][0]["name"] == "echo"
    json_only = run(
        call(
            app,
            body={"jsonrpc": "2.0", "id": 2, "method": "ping"},
            headers={**sid, "accept": "application/json"},
        )
    )
    assert json_only.json() == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert run(call(app, "DELETE", headers=sid)).status == 204
    gone = run(call(app, body={"jsonrpc": "2.0", "id": 3, "method": "ping"}, headers=sid))
    assert gone.status == 404
    assert gone.json()["id"] == 3  # the 404 answers the request it refuses
    assert run(call(app, "DELETE", headers=sid)).status == 404


def test_old_revisions_get_no_priming_event(app: StreamableHTTPApp) -> None:
    session_id = initialize(app, "2025-03-26")
    reply = run(call(app, body={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"mcp-session-id": session_id}))
    assert all(e.get("data") for e in reply.events())


def test_get_rules(app: StreamableHTTPApp) -> None:
    assert run(call(app, "GET", headers={"accept": "text/event-stream"})).status == 405
    session_id = initialize(app)
    assert run(call(app, "GET", headers={"mcp-session-id": session_id, "accept": "application/json"})).status == 406
    assert run(call(app, "GET", headers={"mcp-session-id": "nope", "accept": "text/event-stream"})).status == 404
    bad_version = run(
        call(
            app,
            body={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"mcp-session-id": session_id, "mcp-protocol-version": "1999-01-01"},
        )
    )
    assert bad_version.status == 400


def test_a_cut_stream_resumes_with_last_event_id(app: StreamableHTTPApp) -> None:
    session_id = initialize(app)
    sid = {"mcp-session-id": session_id}
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "reconnect"}}

    async def scenario() -> tuple[Reply, Reply]:
        first = await call(app, body=body, headers=sid)
        last_id = first.events()[-1]["id"]
        second = await call(app, "GET", headers={**sid, "accept": "text/event-stream", "last-event-id": last_id})
        return first, second

    first, second = run(scenario())
    assert [m for m in first.messages() if "result" in m] == []
    [answer] = second.messages()
    assert answer["id"] == 9 and answer["result"]["content"][0]["text"] == "after the cut"


def test_stateless_only_refuses_sessions() -> None:
    app = StreamableHTTPApp(make_registry(), stateless_only=True)
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    reply = run(call(app, body=body, headers={"mcp-method": "initialize"}))
    assert reply.status == 400 and "mcp-session-id" not in reply.headers
    # The legacy client's only diagnostic: it names the versions this server speaks.
    assert reply.json()["id"] == 0
    assert reply.json()["error"]["code"] == -32022
    assert reply.json()["error"]["data"] == {"supported": [LATEST], "requested": "2025-11-25"}
    assert LATEST in reply.json()["error"]["message"]


def test_a_stateless_only_server_names_only_the_stateless_revision() -> None:
    app = StreamableHTTPApp(make_registry(), stateless_only=True)
    discover = run(call(app, body=request("server/discover"), headers=stateless_headers("server/discover")))
    assert discover.json()["result"]["supportedVersions"] == [LATEST]
    future = request("tools/list")
    future["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": "2025-11-25"}
    headers = stateless_headers("tools/list", **{"mcp-protocol-version": "2025-11-25"})
    refused = run(call(app, body=future, headers=headers))
    assert refused.status == 400 and refused.json()["error"]["data"] == {
        "supported": [LATEST],
        "requested": "2025-11-25",
    }


def test_a_json_only_client_cannot_be_asked_questions() -> None:
    registry = ToolRegistry("asker")

    @registry.tool
    async def ask(ctx: Context) -> str:
        await ctx.elicit("Name?", {"type": "object", "properties": {}})
        return "never"

    app = StreamableHTTPApp(registry)
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session_id = run(call(app, body=body)).headers["mcp-session-id"]
    reply = run(
        call(
            app,
            body={"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask"}},
            headers={"mcp-session-id": session_id, "accept": "application/json"},
        )
    )
    assert reply.status == 200 and reply.json()["result"]["isError"] is True


# -- 2025-03-26 batches --------------------------------------------------------------------------------


def test_a_2025_03_26_session_takes_batches_over_sse_and_json(app: StreamableHTTPApp) -> None:
    sid = {"mcp-session-id": initialize(app, "2025-03-26")}
    batch = [
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "slow_progress", "_meta": {"progressToken": "p"}},
        },
    ]
    streamed = run(call(app, body=batch, headers=sid))
    assert streamed.status == 200 and streamed.headers["content-type"] == "text/event-stream"
    messages = streamed.messages()
    assert [m.get("id") for m in messages if "method" not in m] == [1, 2]
    assert [m["method"] for m in messages if "method" in m] == ["notifications/progress"] * 2
    last = messages[-1]
    assert last["id"] == 2 and last["result"]["content"][0]["text"] == "progressed"
    assert all(e.get("id") for e in streamed.events())  # resumable like any session stream

    json_only = run(call(app, body=batch, headers={**sid, "accept": "application/json"}))
    assert json_only.status == 200 and json_only.headers["content-type"] == "application/json"
    answers = json_only.json()
    assert [a["id"] for a in answers] == [1, 2]
    assert answers[0]["result"] == {} and answers[1]["result"]["content"][0]["text"] == "progressed"


def test_a_batch_owing_no_response_is_202_with_no_body(app: StreamableHTTPApp) -> None:
    sid = {"mcp-session-id": initialize(app, "2025-03-26")}
    for batch in (
        [{"jsonrpc": "2.0", "method": "notifications/initialized"}],
        [{"jsonrpc": "2.0", "id": "s-1", "result": {}}, {"jsonrpc": "2.0", "id": "s-2", "error": {"code": 1}}],
    ):
        reply = run(call(app, body=batch, headers=sid))
        assert (reply.status, reply.body) == (202, b"")


def test_a_batch_of_invalid_members_gets_their_errors(app: StreamableHTTPApp) -> None:
    sid = {"mcp-session-id": initialize(app, "2025-03-26"), "accept": "application/json"}
    reply = run(call(app, body=[1, {"jsonrpc": "2.0"}], headers=sid))
    assert reply.status == 200
    assert [(a["id"], a["error"]["code"]) for a in reply.json()] == [(None, -32600), (None, -32600)]


@pytest.mark.parametrize(
    ("version", "batch", "words"),
    [
        ("2025-03-26", [], "empty"),
        (
            "2025-03-26",
            [{"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}],
            "initialize must not be part of a JSON-RPC batch",
        ),
        ("2025-06-18", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "protocol revision 2025-06-18"),
        ("2025-11-25", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "protocol revision 2025-11-25"),
        (None, [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "without a 2025-03-26 session"),
        (None, [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}], "initialize must not"),
    ],
)
def test_batches_refused_whole_with_400_and_one_error(
    app: StreamableHTTPApp, version: str | None, batch: list[Any], words: str
) -> None:
    headers = {"mcp-session-id": initialize(app, version)} if version is not None else {}
    reply = run(call(app, body=batch, headers=headers))
    assert reply.status == 400 and "mcp-session-id" not in reply.headers
    error = reply.json()
    assert error["id"] is None and error["error"]["code"] == -32600
    assert words in error["error"]["message"]


def test_serve_allows_the_address_it_listens_on_and_refuses_bad_allow_host_entries(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcptools._transports import _allowed_hosts, serve_main

    assert _allowed_hosts(["mcp.example.com"], "192.168.1.5") == [
        "localhost",
        "127.0.0.1",
        "[::1]",
        "mcp.example.com",
        "192.168.1.5",
    ]
    assert _allowed_hosts(None, "0.0.0.0") == ["localhost", "127.0.0.1", "[::1]"]
    assert _allowed_hosts(None, "::") == ["localhost", "127.0.0.1", "[::1]"]
    target = tmp_path / "tools.py"
    target.write_text("from mcptools import ToolRegistry\nregistry = ToolRegistry('t')\n")
    assert serve_main([str(target), "--http", "--allow-host", "http://"]) == 2
    assert "--allow-host" in capsys.readouterr().err


def test_notifications_cancelled_stops_a_call_on_a_session_stream() -> None:
    registry = ToolRegistry("cancel-http")
    seen: list[bool] = []

    @registry.tool
    async def sleepy(ctx: Context) -> str:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen.append(ctx.cancelled)
            raise
        return "woke"

    app = StreamableHTTPApp(registry)
    sid = {"mcp-session-id": initialize(app, "2025-06-18")}

    async def scenario() -> tuple[Reply, Reply]:
        body = {"jsonrpc": "2.0", "id": "long", "method": "tools/call", "params": {"name": "sleepy"}}
        streaming = asyncio.ensure_future(call(app, body=body, headers=sid))
        while not seen and not app._sessions[sid["mcp-session-id"]].session._running:
            await asyncio.sleep(0.005)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "long"}}
        accepted = await call(app, body=cancel, headers=sid)
        return await streaming, accepted

    streamed, accepted = run(scenario())
    assert accepted.status == 202
    assert streamed.status == 200 and streamed.messages() == []  # no response for a cancelled request
    assert seen == [True]


# -- Accept and Content-Type ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("accept", "status", "content_type"),
    [
        (None, 200, "application/json"),
        ("application/json, text/event-stream", 200, "application/json"),
        ("*/*", 200, "application/json"),
        ("application/*", 200, "application/json"),
        ("APPLICATION/JSON;q=0.5", 200, "application/json"),
        ("text/html", 406, "application/json"),
        ("application/json;q=0, text/event-stream;q=0", 406, "application/json"),
        ("*/*, application/json;q=0, text/event-stream;q=0", 406, "application/json"),
        ("application/json;q=0, */*", 200, "application/json"),  # */* lets the stream through
        ("text/event-stream", 200, "text/event-stream"),  # nothing to stream: SSE carries the one answer
    ],
)
def test_accept_ranges_and_weights(app: StreamableHTTPApp, accept: str | None, status: int, content_type: str) -> None:
    headers = stateless_headers("tools/list")
    headers["accept"] = accept  # type: ignore[assignment]  # None: no Accept header at all
    reply = run(call(app, body=request("tools/list"), headers=headers))
    assert reply.status == status
    if status == 200 and accept != "text/event-stream":
        assert reply.headers["content-type"] == content_type


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 200),
        ("Application/JSON; charset=UTF-8", 200),
        ('application/json; charset="utf-8"', 200),
        ("application/json; charset=latin-1", 415),
        ("application/jsonx", 415),
        ("text/json", 415),
        ("", 415),
        (None, 415),
    ],
)
def test_content_type_must_be_utf8_json(app: StreamableHTTPApp, content_type: str | None, status: int) -> None:
    headers = stateless_headers("tools/list")
    headers["content-type"] = content_type  # type: ignore[assignment]  # None: no Content-Type header at all
    reply = run(call(app, body=request("tools/list"), headers=headers))
    assert reply.status == status
    if status == 415:
        assert reply.json()["error"]["code"] == -32600


@pytest.mark.parametrize(
    ("accept", "status"), [("text/event-stream", 200), ("text/*", 200), ("text/event-stream;q=0", 406)]
)
def test_get_needs_an_event_stream_it_may_send(app: StreamableHTTPApp, accept: str, status: int) -> None:
    session_id = initialize(app)

    async def scenario() -> int:
        opened = asyncio.ensure_future(call(app, "GET", headers={"mcp-session-id": session_id, "accept": accept}))
        await asyncio.sleep(0.02)
        await call(app, "DELETE", headers={"mcp-session-id": session_id})  # ends the standalone stream
        return (await opened).status

    assert run(scenario()) == status


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


def test_an_unknown_session_404_echoes_the_request_id(app: StreamableHTTPApp) -> None:
    headers = {"mcp-session-id": "never-issued", "mcp-protocol-version": "2025-11-25"}
    reply = run(call(app, body={"jsonrpc": "2.0", "id": "abc", "method": "ping"}, headers=headers))
    assert reply.status == 404 and reply.json()["id"] == "abc" and reply.json()["error"]["code"] == -32001


def test_serve_on_a_busy_port_says_so_and_never_claims_to_be_serving(tmp_path: Any) -> None:
    pytest.importorskip("uvicorn")
    target = tmp_path / "tools.py"
    target.write_text("from mcptools import ToolRegistry\nregistry = ToolRegistry('t')\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for workers in ("1", "2"):
            command = ["-m", "mcptools", "serve", str(target), "--http", "--port", str(port), "--workers", workers]
            done = subprocess.run([sys.executable, *command], check=False, capture_output=True, timeout=60, text=True)
            assert done.returncode == 1
            assert f"cannot listen on 127.0.0.1:{port}" in done.stderr
            assert "serving" not in done.stderr
