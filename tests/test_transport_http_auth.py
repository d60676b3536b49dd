"""Authorization over Streamable HTTP: the app as an OAuth 2.1 resource server (RFC 9728 metadata, RFC 6750
challenges, per-tool scopes), its verifiers, and the official client with a bearer token."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from http_support import LATEST, META, call, request, run, stateless_headers

from mcptools import Context, ToolRegistry
from mcptools._errors import ToolDefinitionError
from mcptools._transports.asgi import StreamableHTTPApp
from mcptools.auth import AuthSettings, JWTVerifier, Principal, StaticTokenVerifier, TokenVerifier, metadata_url

ROOT = Path(__file__).resolve().parent.parent
RESOURCE = "http://127.0.0.1:8000/mcp"


class Tokens:
    """A verifier over a fixed table of tokens, to give different callers different scopes."""

    def __init__(self, table: dict[str, Principal]) -> None:
        self.table = table
        self.seen: list[str] = []

    async def verify(self, token: str) -> Principal | None:
        self.seen.append(token)
        return self.table.get(token)


def scoped_registry() -> ToolRegistry:
    registry = ToolRegistry("auth-test")

    @registry.tool
    def echo(text: str) -> str:
        return text

    @registry.tool(scopes=["admin"])
    def reset() -> str:
        return "reset done"

    @registry.tool
    async def whoami(ctx: Context) -> str:
        principal = ctx.principal
        assert principal is not None
        return f"{principal.subject} {sorted(principal.scopes)} {principal.client_id}"

    return registry


TOKENS = {
    "user-token": Principal("alice", frozenset({"mcp"}), client_id="cli-1"),
    "admin-token": Principal("root", frozenset({"mcp", "admin"}), client_id="cli-2"),
    "expired-token": Principal("old", frozenset({"mcp", "admin"}), expires_at=time.time() - 5),
}


def make_app(**settings: Any) -> tuple[StreamableHTTPApp, Tokens]:
    verifier = Tokens(TOKENS)
    auth = AuthSettings(verifier, authorization_servers=["https://auth.example"], **settings)
    return StreamableHTTPApp(scoped_registry(), auth=auth), verifier


def bearer(token: str, **extra: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}", **extra}


def list_names(app: StreamableHTTPApp, token: str) -> list[str]:
    reply = run(call(app, body=request("tools/list"), headers=bearer(token, **stateless_headers("tools/list"))))
    assert reply.status == 200, reply.body
    return [tool["name"] for tool in reply.json()["result"]["tools"]]


def test_a_request_without_a_token_gets_401_pointing_at_the_metadata() -> None:
    app, _ = make_app()
    reply = run(call(app, body=request("tools/list"), headers=stateless_headers("tools/list")))
    assert reply.status == 401
    assert reply.headers["www-authenticate"] == (
        'Bearer resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp"'
    )
    for token in ("wrong-token", "expired-token"):
        refused = run(call(app, body=request("tools/list"), headers=bearer(token, **stateless_headers("tools/list"))))
        assert refused.status == 401
        assert refused.headers["www-authenticate"].startswith('Bearer error="invalid_token", resource_metadata=')


def test_other_schemes_are_not_accepted() -> None:
    app, verifier = make_app()
    for value in ("Basic dXNlcjpwYXNz", "Bearer", "user-token", "Bearer  "):
        reply = run(call(app, body=request("tools/list"), headers={"authorization": value}))
        assert reply.status == 401, value
    assert verifier.seen == []


def test_two_authorization_headers_are_refused_before_any_is_verified() -> None:
    # Which one would count? A proxy reading the last copy and this server the first would disagree.
    app, verifier = make_app()
    headers = bearer("user-token", **stateless_headers("tools/list"))
    for second in ("Bearer user-token", "Bearer admin-token"):
        reply = run(call(app, body=request("tools/list"), headers=headers, repeated=[("authorization", second)]))
        assert reply.status == 400
        assert reply.json()["error"]["message"] == "Bad Request: more than one Authorization header"
    assert verifier.seen == []


def test_required_scopes_are_named_in_the_challenge_and_a_token_lacking_them_gets_403() -> None:
    app, _ = make_app(required_scopes=["admin"])
    missing = run(call(app, body=request("tools/list"), headers=stateless_headers("tools/list")))
    assert missing.status == 401 and 'scope="admin"' in missing.headers["www-authenticate"]
    weak = run(call(app, body=request("tools/list"), headers=bearer("user-token", **stateless_headers("tools/list"))))
    assert weak.status == 403
    assert weak.headers["www-authenticate"].startswith('Bearer error="insufficient_scope"')
    assert list_names(app, "admin-token") == ["echo", "reset", "whoami"]


def test_metadata_is_served_at_the_root_and_the_path_suffixed_well_known_uri() -> None:
    app, _ = make_app()
    for path in ("/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"):
        reply = run(call(app, method="GET", path=path))
        assert reply.status == 200, path
        assert reply.json() == {
            "resource": RESOURCE,
            "authorization_servers": ["https://auth.example"],
            "scopes_supported": ["admin"],
            "bearer_methods_supported": ["header"],
        }
    configured, _ = make_app(resource="https://mcp.example.com/tools/mcp", scopes_supported=["mcp", "admin"])
    document = run(call(configured, method="GET", path="/.well-known/oauth-protected-resource")).json()
    assert document["resource"] == "https://mcp.example.com/tools/mcp"
    assert document["scopes_supported"] == ["mcp", "admin"]
    assert metadata_url(document["resource"]) == (
        "https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp"
    )
    bad_host = run(call(app, method="GET", path="/.well-known/oauth-protected-resource", headers={"host": "evil.com"}))
    assert bad_host.status == 403


def test_a_scoped_tool_is_hidden_from_and_refused_to_callers_without_its_scope() -> None:
    app, _ = make_app()
    assert list_names(app, "user-token") == ["echo", "whoami"]
    assert list_names(app, "admin-token") == ["echo", "reset", "whoami"]
    body = request("tools/call", {"name": "reset", "arguments": {}}, request_id=7)
    refused = run(call(app, body=body, headers=bearer("user-token", **stateless_headers("tools/call", "reset"))))
    assert refused.status == 403
    assert refused.headers["www-authenticate"] == (
        'Bearer error="insufficient_scope", '
        'resource_metadata="http://127.0.0.1:8000/.well-known/oauth-protected-resource/mcp", scope="admin"'
    )
    assert refused.json()["id"] == 7
    allowed = run(call(app, body=body, headers=bearer("admin-token", **stateless_headers("tools/call", "reset"))))
    assert allowed.status == 200 and allowed.json()["result"]["content"][0]["text"] == "reset done"


def test_scopes_are_not_enforced_without_authorization() -> None:
    registry = scoped_registry()
    app = StreamableHTTPApp(registry)
    names = [
        t["name"]
        for t in run(call(app, body=request("tools/list"), headers=stateless_headers("tools/list"))).json()["result"][
            "tools"
        ]
    ]
    assert "reset" in names
    assert registry.handle({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "reset"}}) is not None


def test_the_principal_is_readable_from_context() -> None:
    app, _ = make_app()
    body = request("tools/call", {"name": "whoami", "arguments": {}})
    reply = run(call(app, body=body, headers=bearer("admin-token", **stateless_headers("tools/call", "whoami"))))
    assert reply.status == 200
    assert reply.json()["result"]["content"][0]["text"] == "root ['admin', 'mcp'] cli-2"


def test_a_session_request_needs_the_token_on_every_request() -> None:
    app, _ = make_app()
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
    }
    opened = run(call(app, body=init, headers=bearer("user-token")))
    assert opened.status == 200
    session = {"mcp-session-id": opened.headers["mcp-session-id"]}
    listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    assert run(call(app, body=listing, headers=session)).status == 401
    reply = run(call(app, body=listing, headers={**session, **bearer("user-token")}))
    assert reply.status == 200 and '"reset"' not in reply.body.decode()


def test_static_verifier_compares_the_whole_token() -> None:
    verifier = StaticTokenVerifier("s3cret-token", scopes=["mcp"])
    assert isinstance(verifier, TokenVerifier)
    principal = asyncio.run(verifier.verify("s3cret-token"))
    assert principal is not None and principal.scopes == frozenset({"mcp"})
    for guess in ("s3cret-toke", "s3cret-token2", "", "S3CRET-TOKEN"):
        assert asyncio.run(verifier.verify(guess)) is None
    with pytest.raises(ValueError):
        StaticTokenVerifier("")


def test_tool_scopes_are_checked_at_definition() -> None:
    registry = ToolRegistry("bad-scopes")
    with pytest.raises(ToolDefinitionError, match=r"scopes=\['admin'\]"):
        registry.tool(scopes="admin")(lambda: None)
    with pytest.raises(ToolDefinitionError, match=r"function .*: scope 'a b' is not an OAuth scope token"):

        @registry.tool(scopes=["a b"])
        def spaced() -> str:
            return ""


# -- JWT -------------------------------------------------------------------------------------------------

jwt = pytest.importorskip("jwt")


@pytest.fixture(scope="module")
def rsa_key() -> Any:
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def mint(key: Any, **claims: Any) -> str:
    now = int(time.time())
    body = {"iss": "https://auth.example", "aud": RESOURCE, "sub": "carol", "exp": now + 60, "iat": now}
    body.update(claims)
    token: str = jwt.encode(
        {k: v for k, v in body.items() if v is not None}, key, algorithm="RS256", headers={"kid": "k1"}
    )
    return token


def test_jwt_verifier_checks_signature_issuer_audience_and_expiry(rsa_key: Any) -> None:
    verifier = JWTVerifier(issuer="https://auth.example", audience=RESOURCE, key=rsa_key.public_key())
    good = asyncio.run(verifier.verify(mint(rsa_key, scope="mcp admin", client_id="app")))
    assert good is not None
    assert (good.subject, good.scopes, good.client_id) == ("carol", frozenset({"mcp", "admin"}), "app")
    assert good.claims["iss"] == "https://auth.example"
    from cryptography.hazmat.primitives.asymmetric import rsa

    other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    for bad in (
        mint(rsa_key, aud="https://other.example/mcp"),
        mint(rsa_key, iss="https://evil.example"),
        mint(rsa_key, exp=int(time.time()) - 120),
        mint(rsa_key, exp=None),
        mint(other),
        "not.a.jwt",
    ):
        assert asyncio.run(verifier.verify(bad)) is None


def test_jwt_verifier_fetches_keys_from_a_jwks_document(rsa_key: Any) -> None:
    from jwt_support import JWKSServer

    with JWKSServer({"k1": rsa_key}) as server:
        verifier = JWTVerifier(issuer="https://auth.example", audience=RESOURCE, jwks_url=server.url)
        principal = asyncio.run(verifier.verify(mint(rsa_key, scp=["mcp"])))
        assert principal is not None and principal.scopes == frozenset({"mcp"})
        assert asyncio.run(verifier.verify(mint(rsa_key, aud="https://elsewhere/mcp"))) is None


# -- the official client and `mcptools serve --bearer-token-env` ----------------------------------------


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def served_with_token() -> Iterator[str]:
    """One ``mcptools serve --bearer-token-env`` for the module's tests: each only sends requests (a refused one,
    or a client's own session), so they need not pay a server process each."""
    port = _free_port()
    env = {**os.environ, "MCP_TEST_TOKEN": "tok-" + os.urandom(8).hex()}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mcptools",
            "serve",
            str(ROOT / "examples" / "weather.py"),
            "--http",
            "--port",
            str(port),
            "--bearer-token-env",
            "MCP_TEST_TOKEN",
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource", timeout=1)
                break
            except urllib.error.HTTPError:
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("server did not start") from None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp {env['MCP_TEST_TOKEN']}"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_with_bearer_token_env_refuses_anonymous_calls(served_with_token: str) -> None:
    url, _token = served_with_token.split()
    import json

    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": META}}).encode()
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "mcp-method": "tools/list",
        "mcp-protocol-version": LATEST,
    }
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(urllib.request.Request(url, body, headers), timeout=5)
    assert refused.value.code == 401
    assert refused.value.headers["www-authenticate"].startswith("Bearer resource_metadata=")
    metadata = json.load(urllib.request.urlopen(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")))
    assert metadata["resource"] == url and metadata["bearer_methods_supported"] == ["header"]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_official_client_with_a_bearer_token_lists_and_calls(served_with_token: str, mode: str) -> None:
    mcp = pytest.importorskip("mcp")
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    url, token = served_with_token.split()

    async def go() -> None:
        http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        async with http, mcp.Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            listing = await client.list_tools()
            assert [t.name for t in listing.tools] == ["weather"]
            result = await client.call_tool("weather", {"location": "Oslo"})
            assert result.content[0].text == "Oslo: sunny, 21°C, for the next 1 day(s)"

    asyncio.run(asyncio.wait_for(go(), 60))


# -- the official client's OAuth flow against a small authorization server on loopback -------------------


class _AuthorizationServer:
    """Just enough of an OAuth 2.1 authorization server for the SDK's client: RFC 8414 metadata, dynamic client
    registration (RFC 7591), the authorization-code grant with PKCE (the user "approves" in the client's
    redirect handler) and JWT access tokens whose audience is the resource the client asked for (RFC 8707)."""

    def __init__(self, key: Any) -> None:
        import base64
        import hashlib
        import json
        import secrets
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
        from urllib.parse import parse_qs

        self.codes: dict[str, dict[str, str]] = {}
        self.tokens_issued = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _json(self, status: int, document: dict[str, Any]) -> None:
                body = json.dumps(document).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                if self.path.startswith("/.well-known/oauth-authorization-server"):
                    self._json(
                        200,
                        {
                            "issuer": outer.issuer,
                            "authorization_endpoint": f"{outer.issuer}/authorize",
                            "token_endpoint": f"{outer.issuer}/token",
                            "registration_endpoint": f"{outer.issuer}/register",
                            "response_types_supported": ["code"],
                            "grant_types_supported": ["authorization_code"],
                            "code_challenge_methods_supported": ["S256"],
                            "token_endpoint_auth_methods_supported": ["none"],
                        },
                    )
                else:
                    self._json(404, {"error": "not_found"})

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(length).decode()
                if self.path == "/register":
                    document = json.loads(raw)
                    self._json(
                        201,
                        {
                            **document,
                            "client_id": "client-" + secrets.token_hex(4),
                            "token_endpoint_auth_method": "none",
                        },
                    )
                    return
                if self.path == "/token":
                    form = {k: v[0] for k, v in parse_qs(raw).items()}
                    grant = outer.codes.pop(form.get("code", ""), None)
                    verifier = form.get("code_verifier", "").encode()
                    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=").decode()
                    if grant is None or challenge != grant["challenge"]:
                        self._json(400, {"error": "invalid_grant"})
                        return
                    now = int(time.time())
                    claims = {
                        "iss": outer.issuer,
                        "aud": grant["resource"],
                        "sub": "oauth-user",
                        "exp": now + 300,
                        "iat": now,
                        "scope": grant["scope"],
                        "client_id": grant["client_id"],
                    }
                    outer.tokens_issued += 1
                    token = jwt.encode(claims, key, algorithm="RS256")
                    self._json(
                        200, {"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": grant["scope"]}
                    )
                    return
                self._json(404, {"error": "not_found"})

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.issuer = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def approve(self, authorization_url: str) -> tuple[str, str]:
        """The user consents: a code for the request in ``authorization_url``; (code, state)."""
        import secrets
        from urllib.parse import parse_qs, urlsplit

        query = {k: v[0] for k, v in parse_qs(urlsplit(authorization_url).query).items()}
        code = secrets.token_urlsafe(16)
        self.codes[code] = {
            "challenge": query["code_challenge"],
            "resource": query.get("resource", ""),
            "scope": query.get("scope", "mcp"),
            "client_id": query["client_id"],
        }
        return code, query["state"]


def test_official_oauth_client_against_a_loopback_authorization_server(rsa_key: Any) -> None:
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("mcp")
    from mcp import Client
    from mcp.client.auth import OAuthClientProvider
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
    from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata, OAuthToken
    from pydantic import AnyUrl

    authority = _AuthorizationServer(rsa_key)
    authority.thread.start()
    port = _free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    verifier = JWTVerifier(issuer=authority.issuer, audience=resource, key=rsa_key.public_key())
    settings = AuthSettings(verifier, resource=resource, authorization_servers=[authority.issuer])
    server = uvicorn.Server(
        uvicorn.Config(
            StreamableHTTPApp(scoped_registry(), auth=settings), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()

    class Memory:
        def __init__(self) -> None:
            self.tokens: OAuthToken | None = None
            self.client: Any = None

        async def get_tokens(self) -> OAuthToken | None:
            return self.tokens

        async def set_tokens(self, tokens: OAuthToken) -> None:
            self.tokens = tokens

        async def get_client_info(self) -> Any:
            return self.client

        async def set_client_info(self, client_info: Any) -> None:
            self.client = client_info

    approved: list[tuple[str, str]] = []

    async def redirect(url: str) -> None:
        approved.append(authority.approve(url))

    async def callback() -> AuthorizationCodeResult:
        code, state = approved[-1]
        return AuthorizationCodeResult(code=code, state=state)

    provider = OAuthClientProvider(
        server_url=resource,
        client_metadata=OAuthClientMetadata(
            redirect_uris=[AnyUrl("http://127.0.0.1:9/callback")],
            client_name="mcptools-test",
            grant_types=["authorization_code"],
            response_types=["code"],
            token_endpoint_auth_method="none",
            scope="mcp admin",
        ),
        storage=Memory(),
        redirect_handler=redirect,
        callback_handler=callback,
    )

    async def go() -> None:
        http = create_mcp_http_client(auth=provider)
        async with http, Client(streamable_http_client(resource, http_client=http), mode="auto") as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["echo", "reset", "whoami"]
            who: Any = await client.call_tool("whoami", {})
            # The client asks for the scopes the metadata publishes (scopes_supported: the tools' "admin").
            assert who.content[0].text.startswith("oauth-user ['admin'] client-")

    try:
        deadline = time.monotonic() + 15
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        asyncio.run(asyncio.wait_for(go(), 60))
        assert authority.tokens_issued == 1 and len(approved) == 1
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        authority.server.shutdown()
        authority.server.server_close()


def test_a_hostile_host_cannot_break_out_of_the_challenge_when_the_host_check_is_off() -> None:
    app = StreamableHTTPApp(scoped_registry(), allowed_hosts=["*"], auth=AuthSettings(Tokens(TOKENS)))
    reply = run(call(app, body=request("tools/list"), headers={"host": 'evil", error="x'}))
    assert reply.status == 401
    assert reply.headers["www-authenticate"] == (
        'Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource/mcp"'
    )


# -- what `mcptools serve` is told: the static token's scopes, the well-known paths, the limits --------------


def test_metadata_for_a_path_this_server_does_not_serve_is_404() -> None:
    app, _ = make_app()
    for path in ("/.well-known/oauth-protected-resource/other", "/.well-known/oauth-protected-resource/mcp/x"):
        reply = run(call(app, method="GET", path=path))
        assert reply.status == 404, path
        assert "/mcp" in reply.json()["error"]["message"]


SCOPED_TARGET = """
from mcptools import ToolRegistry

registry = ToolRegistry("scoped")


@registry.tool(scopes=["admin"])
def reset() -> str:
    return "reset done"
"""


def test_the_static_token_of_serve_carries_the_scopes_given_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcptools._options import resolve, to_worker
    from mcptools._serve import app_from_environment

    target = tmp_path / "scoped.py"
    target.write_text(SCOPED_TARGET)
    monkeypatch.setenv("SCOPED_TOKEN", "tok-1")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    headers = bearer("tok-1", **stateless_headers("tools/call", "reset"))
    body = request("tools/call", {"name": "reset", "arguments": {}, "_meta": META})

    # What the first process of `serve --http --workers 2 --bearer-token-env SCOPED_TOKEN` hands its workers.
    options = {"workers": 2, "bearer_token_env": "SCOPED_TOKEN"}
    monkeypatch.setenv(
        "MCPTOOLS_WORKER", to_worker(resolve("http", {**options, "bearer_token_scopes": []}), str(target), [])
    )
    assert run(call(app_from_environment(), body=body, headers=headers)).status == 403
    worker = to_worker(resolve("http", {**options, "bearer_token_scopes": ["mcp", "admin"]}), str(target), [])
    monkeypatch.setenv("MCPTOOLS_WORKER", worker)
    reply = run(call(app_from_environment(), body=body, headers=headers))
    assert reply.status == 200, reply.body
    assert reply.json()["result"]["content"][0]["text"] == "reset done"


def test_serve_splits_the_scopes_given_on_the_command_line() -> None:
    from mcptools._options import split_list

    assert split_list("read write") == ["read", "write"]
    assert split_list(" read,write ,, admin ") == ["read", "write", "admin"]
    assert split_list("") == []


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"timeout_body": -1.0}, "timeout_body must be a number of seconds above 0, got -1"),
        ({"timeout_headers": 0.0}, "timeout_headers must be a number of seconds above 0, got 0"),
        ({"timeout_keep_alive": -5}, "timeout_keep_alive must be a number of seconds above 0, got -5"),
        ({"timeout_question": 0}, "timeout_question must be a number of seconds above 0, got 0"),
        ({"timeout_shutdown": -1}, "timeout_shutdown must be a number of seconds above 0, got -1"),
        ({"max_sessions_per_client": 0}, "max_sessions_per_client must be a whole number above 0, got 0"),
        ({"bearer_token_scopes": ("admin",)}, "bearer_token_scopes needs bearer_token_env"),
    ],
)
def test_serve_refuses_options_that_would_silently_turn_a_guard_off(
    options: dict[str, Any], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("uvicorn")
    from mcptools import UsageError

    with pytest.raises(UsageError, match=re.escape(expected)):
        scoped_registry().run("http", port=_free_port(), **options)
