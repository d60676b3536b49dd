"""The Streamable HTTP app at 2025 revisions: sessions, their SSE streams and resumption, batches, cancellation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from http_support import LATEST, META, Reply, call, initialize, make_registry, request, run, stateless_headers

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._transports.asgi import StreamableHTTPApp


@pytest.fixture
def app() -> StreamableHTTPApp:
    return StreamableHTTPApp(make_registry())


# -- 2025 sessions -------------------------------------------------------------------------------------


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


def test_a_batch_past_the_entry_limit_is_400_with_an_error_for_each_id(app: StreamableHTTPApp) -> None:
    from mcptools._protocol.request_rules import MAX_BATCH_ENTRIES

    sid = {"mcp-session-id": initialize(app, "2025-03-26")}
    # The attack of issue 17: one body of tools/list requests made an 83 MiB answer and a gigabyte of memory.
    batch = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(20 * MAX_BATCH_ENTRIES)]
    reply = run(call(app, body=batch[: 10 * MAX_BATCH_ENTRIES], headers=sid))
    assert reply.status == 400 and reply.headers["content-type"] == "application/json"
    answers = reply.json()
    assert [a["id"] for a in answers] == list(range(10 * MAX_BATCH_ENTRIES))
    assert all(a["error"]["code"] == -32600 and "result" not in a for a in answers)
    # Past ten times the limit no client expected it served: one error, costing no more than reading it did.
    whole = run(call(app, body=batch, headers=sid))
    assert whole.status == 400 and whole.json()["id"] is None and whole.json()["error"]["code"] == -32600
    within = run(call(app, body=batch[:MAX_BATCH_ENTRIES], headers={**sid, "accept": "application/json"}))
    assert within.status == 200 and [a["id"] for a in within.json()] == list(range(MAX_BATCH_ENTRIES))


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


def test_an_unknown_session_404_echoes_the_request_id(app: StreamableHTTPApp) -> None:
    headers = {"mcp-session-id": "never-issued", "mcp-protocol-version": "2025-11-25"}
    reply = run(call(app, body={"jsonrpc": "2.0", "id": "abc", "method": "ping"}, headers=headers))
    assert reply.status == 404 and reply.json()["id"] == "abc" and reply.json()["error"]["code"] == -32001
