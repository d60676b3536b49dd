"""Mounting the Streamable HTTP app inside real Starlette and FastAPI applications, as users write it: with
``mcptools.mount`` (Starlette's own ``Mount`` answers ``POST /mcp`` with a redirect to ``/mcp/``)."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from http_support import LATEST, META, make_registry

pytest.importorskip("starlette")
pytest.importorskip("fastapi")
from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.testclient import TestClient

from mcptools import mount
from mcptools._transports.asgi import StreamableHTTPApp

HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-method": "tools/call",
    "mcp-name": "echo",
    "mcp-protocol-version": LATEST,
}
BODY: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 3,
    "method": "tools/call",
    "params": {"name": "echo", "arguments": {"text": "hi"}},
}


def echo_call(client: TestClient, url: str) -> Any:
    body = {**BODY, "params": {**BODY["params"], "_meta": META}}
    return client.post(url, json=body, headers=HEADERS)


def starlette_app(prefix: str) -> Starlette:
    return Starlette(routes=[mount(prefix, StreamableHTTPApp(make_registry()))])


@pytest.mark.parametrize("url", ["/mcp", "/mcp/"])
def test_mounted_in_starlette_at_mcp_answers_at_mcp(url: str) -> None:
    with TestClient(starlette_app("/mcp"), base_url="http://127.0.0.1") as client:
        reply = echo_call(client, url)
        assert reply.status_code == 200, reply.text
        assert reply.json()["result"]["content"][0]["text"] == "hi"
        assert client.post("/elsewhere", json=BODY, headers=HEADERS).status_code == 404


def test_mounted_under_a_prefix_answers_at_the_prefix_and_its_own_path() -> None:
    with TestClient(starlette_app("/api"), base_url="http://127.0.0.1") as client:
        assert echo_call(client, "/api/mcp").status_code == 200
        assert echo_call(client, "/api").status_code == 200
        assert echo_call(client, "/api/other").status_code == 404
        assert echo_call(client, "/mcp").status_code == 404


def test_mounted_in_fastapi() -> None:
    api = FastAPI()

    @api.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    api.router.routes.append(mount("/mcp", StreamableHTTPApp(make_registry())))
    # No lifespan: TestClient outside a `with` block sends none, as FastAPI never forwards it to mounts.
    client = TestClient(api, base_url="http://127.0.0.1")
    assert client.get("/health").json() == {"status": "ok"}
    reply = echo_call(client, "/mcp")
    assert reply.status_code == 200 and reply.json()["result"]["content"][0]["text"] == "hi"


def test_sessions_expire_without_lifespan_events_in_a_mount() -> None:
    inner = StreamableHTTPApp(make_registry(), session_idle_seconds=0.05)
    api = FastAPI()
    api.mount("/mcp", inner)
    client = TestClient(api, base_url="http://127.0.0.1")
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    first = client.post("/mcp", json=init, headers={"accept": "application/json, text/event-stream"})
    assert first.status_code == 200
    assert len(inner._sessions) == 1
    time.sleep(0.1)
    second = client.post("/mcp", json=init, headers={"accept": "application/json, text/event-stream"})
    assert second.status_code == 200
    # The idle one went when the next one opened: no lifespan or background task needed.
    assert list(inner._sessions) == [second.headers["mcp-session-id"]]


def test_mounted_with_authorization_the_challenge_points_at_a_document_naming_the_mount() -> None:
    # The 401 names the metadata at the host's root (RFC 9728 inserts the well-known path before the
    # endpoint's path), which the outer app must route: mounting the same app there serves it.
    from mcptools.auth import AuthSettings, StaticTokenVerifier

    inner = StreamableHTTPApp(make_registry(), auth=AuthSettings(StaticTokenVerifier("tok")))
    app = Starlette(routes=[mount("/mcp", inner), mount("/.well-known/oauth-protected-resource", inner)])
    with TestClient(app, base_url="http://127.0.0.1") as client:
        refused = echo_call(client, "/mcp")
        assert refused.status_code == 401
        challenge = refused.headers["www-authenticate"]
        assert challenge == 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"'
        document = client.get("/.well-known/oauth-protected-resource/mcp")
        assert document.status_code == 200 and document.json()["resource"] == "http://127.0.0.1/mcp"
        # Below the MCP mount there is no metadata: a document there would name a resource that is not one.
        assert client.get("/mcp/.well-known/oauth-protected-resource").status_code == 404
        assert client.get("/mcp/.well-known/oauth-protected-resource/mcp").status_code == 404
        allowed = client.post(
            "/mcp",
            json={**BODY, "params": {**BODY["params"], "_meta": META}},
            headers={**HEADERS, "authorization": "Bearer tok"},
        )
        assert allowed.status_code == 200 and allowed.json()["result"]["content"][0]["text"] == "hi"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def served(app: Any) -> Iterator[int]:
    """``app`` under a real uvicorn on loopback; yields the port."""
    uvicorn = pytest.importorskip("uvicorn")
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def fastapi_app() -> FastAPI:
    api = FastAPI()
    api.router.routes.append(mount("/mcp", StreamableHTTPApp(make_registry())))
    return api


@pytest.fixture(scope="module")
def mounted_url() -> Iterator[str]:
    with served(fastapi_app()) as port:
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.mark.parametrize("framework", ["starlette", "fastapi"])
def test_post_at_the_mount_point_is_answered_there_without_a_redirect(framework: str) -> None:
    # Starlette's Mount("/mcp", ...) routes /mcp/ and below only: its router answers POST /mcp with 307 to /mcp/,
    # every call is sent twice, and a client that does not follow a redirected POST (http.client) gets nothing.
    app = starlette_app("/mcp") if framework == "starlette" else fastapi_app()
    body = json.dumps({**BODY, "params": {**BODY["params"], "_meta": META}})
    with served(app) as port:
        for url in ("/mcp", "/mcp/"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            connection.request("POST", url, body, HEADERS)
            reply = connection.getresponse()
            answer = reply.read()
            connection.close()
            assert reply.status == 200, (url, reply.status, reply.getheader("location"))
            assert json.loads(answer)["result"]["content"][0]["text"] == "hi"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_official_client_through_a_fastapi_mount(mounted_url: str, mode: str) -> None:
    mcp = pytest.importorskip("mcp")

    async def go() -> None:
        async with mcp.Client(mounted_url, mode=mode) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert "echo" in names
            result = await client.call_tool("echo", {"text": "through the mount"})
            assert result.content[0].text == "through the mount"

    asyncio.run(asyncio.wait_for(go(), 60))
