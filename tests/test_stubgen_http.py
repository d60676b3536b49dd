"""``mcptools stubgen --url``: a running server's tools over Streamable HTTP (urllib only).

One server is this project's own Streamable HTTP app, bridged to a stdlib HTTP server (so the test needs no
ASGI server); the other is a small hand-written server of the older generation: no tools/list before the
initialize handshake, a session id, SSE-framed answers and a paginated list.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

import mcptools
from mcptools._stubgen import StubgenError, fetch_tools, generate_stubs, stubgen_main
from mcptools._target import load_registry
from mcptools._transports import StreamableHTTPApp

ROOT = Path(__file__).resolve().parent.parent


class _AsgiBridge:
    """Runs an ASGI app on its own event loop thread and answers one HTTP request at a time with it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def request(self, method: str, path: str, headers: list[tuple[str, str]], body: bytes) -> tuple[int, Any, bytes]:
        future = asyncio.run_coroutine_threadsafe(self._call(method, path, headers, body), self.loop)
        return future.result(timeout=30)

    async def _call(
        self, method: str, path: str, headers: list[tuple[str, str]], body: bytes
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in headers],
            "client": ("127.0.0.1", 50000),
            "server": ("127.0.0.1", 80),
        }
        delivered = False
        status = 500
        response_headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []

        async def receive() -> dict[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # the client never disconnects mid-answer
            raise AssertionError("unreachable")

        async def send(message: dict[str, Any]) -> None:
            nonlocal status, response_headers
            if message["type"] == "http.response.start":
                status = message["status"]
                response_headers = list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        return status, response_headers, b"".join(chunks)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)


def _serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/mcp"


@pytest.fixture
def weather_server() -> Iterator[str]:
    bridge = _AsgiBridge(StreamableHTTPApp(load_registry(str(ROOT / "examples" / "weather.py"))))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            status, headers, answer = bridge.request("POST", self.path, list(self.headers.items()), body)
            self.send_response(status)
            for name, value in headers:
                self.send_header(name.decode("latin-1"), value.decode("latin-1"))
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server, url = _serve(Handler)
    yield url
    server.shutdown()
    bridge.close()


def test_url_lists_the_tools_of_a_running_server(weather_server: str, tmp_path: Path) -> None:
    tools = fetch_tools(weather_server)
    assert tools == load_registry(str(ROOT / "examples" / "weather.py")).list_tools()
    output = tmp_path / "weather_tools.py"
    assert stubgen_main(["--url", weather_server, "-o", str(output)]) == 0
    assert output.read_text() == generate_stubs(tools, source=weather_server)


class _LegacyHandler(BaseHTTPRequestHandler):
    """An older server: initialize first, then a session id on every request, answers as SSE, two pages."""

    sessions: ClassVar[set[str]] = set()
    seen: ClassVar[list[tuple[str, dict[str, str]]]] = []
    client_info: ClassVar[list[Any]] = []  # what the client called itself: 2026-07-28 _meta, then initialize
    pages: ClassVar[dict[str | None, dict[str, Any]]] = {
        None: {"tools": [{"name": "alpha", "inputSchema": {"type": "object"}}], "nextCursor": "page-2"},
        "page-2": {"tools": [{"name": "beta", "inputSchema": {"type": "object"}}]},
    }

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        type(self).seen.append((message["method"], {name.lower(): value for name, value in self.headers.items()}))
        params = message.get("params", {})
        if message["method"] == "initialize":
            type(self).client_info.append(params.get("clientInfo"))
        elif "_meta" in params:
            type(self).client_info.append(params["_meta"].get("io.modelcontextprotocol/clientInfo"))
        session = self.headers.get("Mcp-Session-Id")
        if message["method"] == "initialize":
            type(self).sessions.add("s-1")
            result = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": {"name": "old"}}
            self._sse(message["id"], result, {"Mcp-Session-Id": "s-1"})
        elif message["method"] == "notifications/initialized":
            self.send_response(202)
            self.end_headers()
        elif session not in type(self).sessions:
            body = json.dumps(
                {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32600, "message": "no session"}}
            )
            self.send_response(400)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())
        else:
            self._sse(message["id"], self.pages[message.get("params", {}).get("cursor")], {})

    def _sse(self, request_id: int, result: Any, headers: dict[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        notice = json.dumps({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info"}})
        answer = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
        self.wfile.write(f"event: message\ndata: {notice}\n\nid: 7\ndata: {answer}\n\n".encode())

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_url_falls_back_to_the_handshake_and_follows_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mcptools, "__version__", "9.9.9+test", raising=False)
    _LegacyHandler.sessions.clear()
    _LegacyHandler.seen.clear()
    _LegacyHandler.client_info.clear()
    server, url = _serve(_LegacyHandler)
    try:
        tools = fetch_tools(url, headers={"Authorization": "Bearer token"})
    finally:
        server.shutdown()
    assert [tool["name"] for tool in tools] == ["alpha", "beta"]
    methods = [method for method, _ in _LegacyHandler.seen]
    assert methods == ["tools/list", "initialize", "notifications/initialized", "tools/list", "tools/list"]
    first_headers = _LegacyHandler.seen[0][1]
    assert first_headers["mcp-protocol-version"] == "2026-07-28"
    assert first_headers["mcp-method"] == "tools/list"
    assert "text/event-stream" in first_headers["accept"]
    later_headers = _LegacyHandler.seen[-1][1]
    assert later_headers["mcp-session-id"] == "s-1"
    assert later_headers["mcp-protocol-version"] == "2025-06-18"
    assert all(headers["authorization"] == "Bearer token" for _, headers in _LegacyHandler.seen)
    # The client names itself with the package's own version (the metadata's, not a copy of it).
    stubgen = {"name": "mcptools-stubgen", "version": "9.9.9+test"}
    assert _LegacyHandler.client_info == [stubgen, stubgen]


def test_url_that_answers_nothing_useful_is_an_error() -> None:
    class Refusing(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(404)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server, url = _serve(Refusing)
    try:
        with pytest.raises(StubgenError):
            fetch_tools(url)
    finally:
        server.shutdown()
    with pytest.raises(StubgenError, match="cannot reach"):
        fetch_tools("http://127.0.0.1:9/mcp", timeout=2)
