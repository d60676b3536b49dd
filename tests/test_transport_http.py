"""The Streamable HTTP ASGI app, driven in-process: the HTTP-level rules (Host/Origin guard, bodies, Accept and
Content-Type) and what ``serve`` listens on.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from typing import Any

import pytest
from http_support import call, initialize, make_registry, request, run, stateless_headers

from mcptools import Context, ToolRegistry
from mcptools._transports.asgi import StreamableHTTPApp


@pytest.fixture
def app() -> StreamableHTTPApp:
    return StreamableHTTPApp(make_registry())


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


def test_serve_allows_the_address_it_listens_on_and_refuses_bad_allow_host_entries(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from mcptools._cli import main
    from mcptools._run import allowed_hosts as _allowed_hosts

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
    assert main(["serve", str(target), "--http", "--allow-host", "http://"]) == 2
    assert "--allow-host" in capsys.readouterr().err


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


@pytest.mark.parametrize(
    ("repeated", "named"),
    [
        ([("host", "127.0.0.1:8000")], "Host"),  # even the same value twice (RFC 9112 section 3.2)
        ([("host", "evil.example.com")], "Host"),
        ([("origin", "http://localhost"), ("origin", "http://evil.example.com")], "Origin"),
    ],
)
def test_a_repeated_host_or_origin_is_refused(
    app: StreamableHTTPApp, repeated: list[tuple[str, str]], named: str
) -> None:
    # The first copy used to win: a proxy that checks the last one would have let through what we judge apart.
    reply = run(call(app, body=request("tools/list"), headers=stateless_headers("tools/list"), repeated=repeated))
    assert reply.status == 400
    assert reply.json()["error"]["message"] == f"Bad Request: more than one {named} header"


def test_other_repeated_headers_are_not_refused(app: StreamableHTTPApp) -> None:
    repeated = [("accept", "application/json"), ("x-forwarded-for", "10.0.0.1"), ("x-forwarded-for", "10.0.0.2")]
    reply = run(call(app, body=request("tools/list"), headers=stateless_headers("tools/list"), repeated=repeated))
    assert reply.status == 200


@pytest.mark.parametrize(
    "body",
    [
        rb'{"jsonrpc":"2.0","id":"\ud800","method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}',
        rb'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"\udc00"}}}',
    ],
    ids=["in-the-id", "in-an-argument"],
)
def test_a_lone_surrogate_is_a_parse_error_not_a_500(app: StreamableHTTPApp, body: bytes) -> None:
    reply = run(call(app, raw=body, headers=stateless_headers("tools/call", "echo")))
    assert reply.status == 400
    assert reply.json()["error"]["code"] == -32700 and reply.json()["id"] is None


def test_a_tool_returning_a_lone_surrogate_gets_an_error_for_its_id_not_a_500() -> None:
    registry = ToolRegistry("surrogates")

    @registry.tool
    def broken() -> str:
        return "a\ud800b"

    @registry.tool
    async def broken_later(ctx: Context) -> str:
        await ctx.report_progress(1, 2)
        return "\udfff"

    app = StreamableHTTPApp(registry)
    for name in ("broken", "broken_later"):
        plain = run(
            call(app, body=request("tools/call", {"name": name}, 5), headers=stateless_headers("tools/call", name))
        )
        assert plain.status == 200 and plain.json()["id"] == 5 and plain.json()["error"]["code"] == -32603
    session = {"mcp-session-id": initialize(app)}
    for name in ("broken", "broken_later"):
        body = {
            "jsonrpc": "2.0",
            "id": 6,
            "method": "tools/call",
            "params": {"name": name, "_meta": {"progressToken": 1}},
        }
        streamed = run(call(app, body=body, headers=session))
        assert streamed.status == 200
        [answer] = [m for m in streamed.messages() if m.get("id") == 6]
        assert answer["error"]["code"] == -32603
