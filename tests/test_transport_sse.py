"""The deprecated HTTP+SSE transport in-process: the endpoint event, messages both ways, and the guards it shares
with Streamable HTTP (Host and Origin, the bearer token and its caller, the body limit, the cap on streams),
mounted alone under a prefix, its lifespan, and its streams ending when the server stops. The official client's
SSE client drives it end to end in tests/test_dropin.py."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, MutableMapping
from contextlib import asynccontextmanager
from typing import Any

from http_support import Reply, call

from mcptools import ToolRegistry
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools._transports.sse import HTTPApps, SSEApp, SSEConnection
from mcptools.auth import AuthSettings, Principal

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}


def _registry() -> ToolRegistry:
    registry = ToolRegistry("sse")

    @registry.tool
    def echo(text: str) -> str:
        return text

    return registry


class Stream:
    """One GET of the event stream, running as a task: its status, and its events as they arrive."""

    def __init__(self, app: Any, headers: dict[str, str] | None = None, root_path: str = "", path: str = "/sse"):
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.events: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self.ended = asyncio.Event()
        self.leave = asyncio.Event()
        base = {"host": "127.0.0.1:8000", "accept": "text/event-stream", **(headers or {})}
        scope = {
            "type": "http",
            "method": "GET",
            "path": root_path + path,
            "root_path": root_path,
            "query_string": b"",
            "client": ("127.0.0.1", 50000),
            "headers": [(k.encode(), v.encode()) for k, v in base.items()],
        }
        self._pending = b""
        self.task = asyncio.ensure_future(app(scope, self._receive, self._send))

    async def _receive(self) -> dict[str, Any]:
        await self.leave.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            self.headers = {k.decode(): v.decode() for k, v in message.get("headers", [])}
            return
        chunk = message.get("body", b"")
        self.body += chunk
        self._pending += chunk
        while b"\n\n" in self._pending:
            block, self._pending = self._pending.split(b"\n\n", 1)
            fields = dict(line.split(": ", 1) for line in block.decode().split("\n") if not line.startswith(":"))
            if fields:
                self.events.put_nowait((fields["event"], fields["data"]))
        if not message.get("more_body", False):
            self.ended.set()

    async def event(self) -> tuple[str, str]:
        return await asyncio.wait_for(self.events.get(), 5)

    async def endpoint(self) -> tuple[str, str]:
        """The path and the query string to POST to, from the first event."""
        name, data = await self.event()
        assert name == "endpoint"
        path, _, query = data.partition("?")
        return path, query

    async def close(self) -> None:
        self.leave.set()
        await asyncio.wait_for(self.task, 5)


@asynccontextmanager
async def streaming(app: Any, **options: Any) -> AsyncIterator[Stream]:
    stream = Stream(app, **options)
    try:
        yield stream
    finally:
        await stream.close()


async def post(
    app: Any, path: str, query: str, body: Any, headers: dict[str, str] | None = None, root_path: str = ""
) -> Reply:
    return await call(app, body=body, path=path, query=query, headers=headers, root_path=root_path)


def test_the_endpoint_event_then_answers_on_the_stream_mounted_under_a_prefix() -> None:
    async def scenario() -> None:
        app = SSEApp(_registry())
        async with streaming(app, root_path="/legacy") as stream:
            path, query = await stream.endpoint()
            assert stream.status == 200 and stream.headers["content-type"] == "text/event-stream"
            assert path == "/legacy/messages/" and re.fullmatch(r"session_id=[0-9a-f]{32}", query)
            assert (await post(app, path, query, INITIALIZE, root_path="/legacy")).status == 202
            name, data = await stream.event()
            assert name == "message" and json.loads(data)["result"]["serverInfo"]["name"] == "sse"
            params = {"name": "echo", "arguments": {"text": "hi"}}
            echo = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}
            assert (await post(app, path, query, echo, root_path="/legacy")).status == 202
            _, data = await stream.event()
            assert json.loads(data)["result"]["content"] == [{"type": "text", "text": "hi"}]
            # Not JSON: 400 with -32700, and nothing on the stream.
            broken = await call(app, raw=b"{nope", path=path, query=query, root_path="/legacy")
            assert broken.status == 400 and broken.json()["error"]["code"] == -32700
        # The client left: its session is gone, and a POST to it is refused.
        assert (await post(app, path, query, INITIALIZE, root_path="/legacy")).status == 404

    asyncio.run(scenario())


def test_the_guards_streamable_http_has() -> None:
    async def scenario() -> None:
        app = SSEApp(_registry(), max_body_bytes=1000, max_sessions=1)
        for headers in ({"host": "evil.example"}, {"origin": "http://evil.example"}):
            refused = Stream(app, headers)
            await asyncio.wait_for(refused.task, 5)
            assert refused.status == 403
        async with streaming(app) as stream:
            path, query = await stream.endpoint()
            assert (await post(app, path, query, INITIALIZE, {"host": "evil.example"})).status == 403
            assert (await post(app, path, "", INITIALIZE)).status == 400  # no session_id
            assert (await post(app, path, "session_id=" + "0" * 32, INITIALIZE)).status == 404
            big = {**INITIALIZE, "params": {**INITIALIZE["params"], "pad": "x" * 2000}}  # type: ignore[dict-item]
            assert (await post(app, path, query, big)).status == 413
            wrong_type = await post(app, path, query, INITIALIZE, {"content-type": "text/plain"})
            assert wrong_type.status == 415
            assert (await call(app, method="GET", path=path, query=query)).status == 405
            # One stream is the cap here: the next GET is refused until this one ends.
            second = Stream(app)
            await asyncio.wait_for(second.task, 5)
            assert second.status == 503
            assert stream.events.empty()  # nothing refused reached the stream

    asyncio.run(scenario())


def test_the_bearer_token_guards_both_requests_and_a_post_must_come_from_the_streams_caller() -> None:
    class TwoTokens:
        async def verify(self, token: str) -> Principal | None:
            return {"ada-token": Principal("ada"), "bob-token": Principal("bob")}.get(token)

    async def scenario() -> None:
        app = SSEApp(_registry(), auth=AuthSettings(TwoTokens()))
        anonymous = Stream(app)
        await asyncio.wait_for(anonymous.task, 5)
        assert anonymous.status == 401 and anonymous.headers["www-authenticate"].startswith("Bearer ")
        ada = {"authorization": "Bearer ada-token"}
        async with streaming(app, headers=ada) as stream:
            path, query = await stream.endpoint()
            assert (await post(app, path, query, INITIALIZE)).status == 401
            # Another caller's session is no session to them.
            assert (await post(app, path, query, INITIALIZE, {"authorization": "Bearer bob-token"})).status == 404
            assert (await post(app, path, query, INITIALIZE, ada)).status == 202
            name, _ = await stream.event()
            assert name == "message"

    asyncio.run(scenario())


def test_an_inbox_past_its_bound_refuses_instead_of_growing() -> None:
    async def scenario() -> None:
        async def ignore(message: Any) -> None:
            return None

        connection = SSEConnection(ignore, None, None)
        accepted = [connection.deliver({"jsonrpc": "2.0", "method": "ping", "id": n}) for n in range(300)]
        assert accepted.count(True) == 256 and accepted[-1] is False

    asyncio.run(scenario())


def test_beside_streamable_http_the_lifespan_runs_once_and_stopping_ends_the_streams() -> None:
    events: list[str] = []

    @asynccontextmanager
    async def lifespan(registry: ToolRegistry) -> AsyncIterator[str]:
        events.append("start")
        yield "state"
        events.append("stop")

    registry = ToolRegistry("both", lifespan=lifespan)
    app = HTTPApps(registry, StreamableHTTPApp(registry), SSEApp(registry))

    async def scenario() -> None:
        startup: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        sent: list[str] = []

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message["type"])

        for message in ("lifespan.startup", "lifespan.shutdown"):
            startup.put_nowait({"type": message})
        serving = asyncio.ensure_future(app({"type": "lifespan"}, startup.get, send))
        stream = Stream(app)
        await stream.endpoint()
        # uvicorn's graceful shutdown: the app hears "stopping" first, and its open streams end on their own.
        app.stopping()
        await asyncio.wait_for(stream.ended.wait(), 5)
        await asyncio.wait_for(serving, 5)
        assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]

    asyncio.run(scenario())
    assert events == ["start", "stop"]


def test_per_client_streams_are_capped_and_a_stream_ends_when_its_token_expires() -> None:
    import time

    class Expiring:
        async def verify(self, token: str) -> Principal | None:
            # "late": valid for an hour; "soon": already past its expiry by the time the stream is open.
            expires = time.time() + (3600 if token == "late" else 0.05)
            return Principal("ada", expires_at=expires)

    async def scenario() -> None:
        app = SSEApp(_registry(), auth=AuthSettings(Expiring()), max_sessions_per_client=1)
        async with streaming(app, headers={"authorization": "Bearer late"}) as first:
            await first.endpoint()
            second = Stream(app, {"authorization": "Bearer late"})  # the same caller: over its cap of one
            await asyncio.wait_for(second.task, 5)
            assert second.status == 429
        expiring = Stream(app, {"authorization": "Bearer soon"})
        await expiring.endpoint()
        await asyncio.wait_for(expiring.ended.wait(), 5)  # the server ended it: the token expired

    asyncio.run(scenario())


def test_stopping_with_a_deadline_answers_a_call_still_running_before_the_stream_ends() -> None:
    registry = _registry()

    @registry.tool
    async def hang() -> str:
        await asyncio.Event().wait()
        return "never"

    async def scenario() -> None:
        app = SSEApp(registry)
        stream = Stream(app)
        path, query = await stream.endpoint()
        await post(app, path, query, INITIALIZE)
        await stream.event()
        hanging = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}
        assert (await post(app, path, query, hanging)).status == 202
        await asyncio.sleep(0.05)
        # A 2025-03-26 client's batch: the member that finishes in time is answered, the other cut.
        old = {**INITIALIZE, "params": {**INITIALIZE["params"], "protocolVersion": "2025-03-26"}}  # type: ignore[dict-item]
        batch_stream = Stream(app)
        batch_path, batch_query = await batch_stream.endpoint()
        await post(app, batch_path, batch_query, old)
        await batch_stream.event()
        listing = {"jsonrpc": "2.0", "id": 5, "method": "tools/list"}
        assert (await post(app, batch_path, batch_query, [{**hanging, "id": 4}, listing])).status == 202
        await asyncio.sleep(0.05)
        app.stopping(within=0.2)  # without a deadline the stream would wait for the call for ever
        name, data = await stream.event()
        assert name == "message" and json.loads(data)["id"] == 2
        assert json.loads(data)["error"]["message"].startswith("Server shutting down")
        await asyncio.wait_for(stream.ended.wait(), 5)
        _, data = await batch_stream.event()
        assert sorted((m["id"], "result" in m) for m in json.loads(data)) == [(4, False), (5, True)]

    asyncio.run(scenario())
