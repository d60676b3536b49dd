"""2025 sessions against callers that are not who opened them, questions nobody answers and streams nobody reads
(issue 17), driven in-process: a session belongs to the principal that opened it; a question to the client has a
deadline and ends when its stream is gone for good; work nobody waits for lets its session expire; idle expiry
is checked on use; each client holds a bounded number of sessions, GET and listen streams; a stream ends when
the token that opened it expires; ``stopping()`` stops the sessions of an app wherever it is mounted.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from http_support import META, Reply, call, request, run, stateless_headers

from mcptools import ToolRegistry
from mcptools._context import Context
from mcptools._errors import ClientRequestError
from mcptools._transports.asgi import MAX_LISTEN_STREAMS, StreamableHTTPApp
from mcptools._transports.asgi_sessions import MAX_GET_STREAMS
from mcptools.auth import AuthSettings, Principal

ISSUER = {"iss": "https://issuer.test"}
PRINCIPALS = {
    "alice": Principal("alice", client_id="app", claims=ISSUER),
    "alice-other-app": Principal("alice", client_id="other", claims=ISSUER),
    "alice-other-issuer": Principal("alice", client_id="app", claims={"iss": "https://elsewhere.test"}),
    "bob": Principal("bob", client_id="app", claims=ISSUER),
}
FORM = {"type": "object", "properties": {"name": {"type": "string"}}}
cancelled: list[str] = []


class Tokens:
    async def verify(self, token: str) -> Principal | None:
        if token == "short-lived":
            return Principal("carol", claims=ISSUER, expires_at=time.time() + 0.15)
        return PRINCIPALS.get(token)


def registry() -> ToolRegistry:
    tools = ToolRegistry("guarded")

    @tools.tool
    async def ask(ctx: Context) -> str:
        try:
            answer = await ctx.elicit("Name?", FORM)
        except ClientRequestError as error:
            return f"gave up: {error.message}"
        return f"hello {answer['content']['name']}"

    @tools.tool
    async def hang(ctx: Context) -> str:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append("hang")
            raise
        return "never"

    return tools


def app_with(**options: Any) -> StreamableHTTPApp:
    return StreamableHTTPApp(registry(), **options)


def bearer(token: str | None) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"} if token is not None else {}


async def open_session(app: StreamableHTTPApp, token: str | None = None, peer: str = "127.0.0.1") -> dict[str, str]:
    body = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}}, "clientInfo": {"name": "t"}},
    }
    reply = await call(app, body=body, headers=bearer(token), peer=peer)
    assert reply.status == 200, reply.body
    return {"mcp-session-id": reply.headers["mcp-session-id"], **bearer(token)}


def tool_call(name: str, request_id: int = 1) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": {"name": name}}


def ping(request_id: int = 9) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": "ping"}


def has_question(reply: Reply) -> bool:
    return any("method" in m for m in reply.messages())


async def question_of(app: StreamableHTTPApp, headers: dict[str, str]) -> tuple[str, str]:
    """(the stream id, the question's id) once the session's tool has asked."""
    entry = app._sessions[headers["mcp-session-id"]]
    for _ in range(500):
        for stream in entry.streams.values():
            for message in stream.messages:
                if "method" in message:
                    return stream.id, message["id"]
        await asyncio.sleep(0.002)
    raise AssertionError("no question was asked")


def result_text(reply: Reply, request_id: int = 1) -> str:
    [answer] = [m for m in reply.messages() if m.get("id") == request_id and "method" not in m]
    text: str = answer["result"]["content"][0]["text"]
    return text


def test_a_session_and_everything_through_it_answers_only_the_principal_that_opened_it() -> None:
    app = app_with(auth=AuthSettings(Tokens()))

    async def scenario() -> None:
        alice = await open_session(app, "alice")
        asking = asyncio.ensure_future(call(app, body=tool_call("ask"), headers=alice))
        stream_id, question = await question_of(app, alice)
        sid = alice["mcp-session-id"]
        answer = {"jsonrpc": "2.0", "id": question, "result": {"action": "accept", "content": {"name": "mallory"}}}
        for other in ("bob", "alice-other-app", "alice-other-issuer"):
            stranger = {"mcp-session-id": sid, **bearer(other)}
            sse = {**stranger, "accept": "text/event-stream"}
            refused = [
                await call(app, body=answer, headers=stranger),
                await call(app, body=ping(), headers=stranger),
                await call(app, body=[ping()], headers=stranger),
                await call(app, "GET", headers=sse),
                await call(app, "GET", headers={**sse, "last-event-id": f"{stream_id}:0"}),
                await call(app, "DELETE", headers=stranger),
            ]
            assert [r.status for r in refused] == [404] * 6, (other, [r.body for r in refused])
        assert (await call(app, body=answer, headers={"mcp-session-id": sid})).status == 401
        # Unguessable too: a sequence (s-1, s-2) named the questions of every session alike.
        assert question.startswith("s-") and len(question) > 16 and question != "s-1"
        mine = {"jsonrpc": "2.0", "id": question, "result": {"action": "accept", "content": {"name": "alice"}}}
        assert (await call(app, body=mine, headers=alice)).status == 202
        assert result_text(await asking) == "hello alice"
        assert (await call(app, "DELETE", headers=alice)).status == 204

    run(scenario())


def test_a_question_has_a_deadline_the_tool_can_handle() -> None:
    app = app_with(timeout_question=0.1)

    async def scenario() -> Reply:
        return await call(app, body=tool_call("ask"), headers=await open_session(app))

    started = time.monotonic()
    reply = run(scenario())
    assert result_text(reply) == "gave up: the client did not answer elicitation/create within 0.1 seconds"
    assert time.monotonic() - started < 5


def test_a_question_waits_for_a_client_that_comes_back_and_ends_when_its_stream_is_gone_for_good() -> None:
    app = app_with(timeout_reconnect=0.1)

    async def scenario() -> tuple[str, str]:
        headers = await open_session(app)
        sse = {**headers, "accept": "text/event-stream"}
        # The client drops the stream once it has the question, and comes back at once.
        first = await call(app, body=tool_call("ask", 1), headers=headers, hang_up=has_question)
        last_id = first.events()[-1]["id"]
        resumed = asyncio.ensure_future(call(app, "GET", headers={**sse, "last-event-id": last_id}))
        await asyncio.sleep(0.2)  # past the reconnect limit, but the stream is being read again
        _, question = await question_of(app, headers)
        answer = {"jsonrpc": "2.0", "id": question, "result": {"action": "accept", "content": {"name": "back"}}}
        assert (await call(app, body=answer, headers=headers)).status == 202
        came_back = result_text(await resumed, 1)
        # This time it never comes back: the question ends, the tool answers, and the answer can be resumed.
        second = await call(app, body=tool_call("ask", 2), headers=headers, hang_up=has_question)
        await asyncio.sleep(0.25)
        late = await call(app, "GET", headers={**sse, "last-event-id": second.events()[-1]["id"]})
        return came_back, result_text(late, 2)

    came_back, gone = run(scenario())
    assert came_back == "hello back"
    assert gone == "gave up: the client's stream closed and was not resumed within 0.1 seconds"


def test_idle_expiry_is_checked_on_use_and_work_nobody_waits_for_does_not_hold_a_session() -> None:
    app = app_with(session_idle_seconds=0.1)
    cancelled.clear()

    async def scenario() -> list[int]:
        idle = await open_session(app)
        abandoned = await open_session(app)
        listening = await open_session(app)
        # A call that never ends, whose client left after the first event; a GET stream held open.
        await call(app, body=tool_call("hang"), headers=abandoned, hang_up=lambda reply: bool(reply.body))
        held = asyncio.ensure_future(call(app, "GET", headers={**listening, "accept": "text/event-stream"}))
        await asyncio.sleep(0.15)
        statuses = [(await call(app, body=ping(), headers=h)).status for h in (idle, abandoned, listening)]
        app.close_sessions()
        await held
        return statuses

    assert run(scenario()) == [404, 404, 200]  # the held stream is use; the abandoned call is not
    assert cancelled == ["hang"]  # expiring the session ended the work nobody waited for


def test_one_client_cannot_evict_another_clients_sessions() -> None:
    app = app_with(max_sessions=10, max_sessions_per_client=3)

    async def scenario() -> tuple[list[int], list[int], int, Any]:
        other = await open_session(app, peer="10.0.0.2")
        flood = [await open_session(app) for _ in range(20)]
        alive = [(await call(app, body=ping(), headers=h)).status for h in (other, *flood[-3:])]
        evicted = [(await call(app, body=ping(), headers=h)).status for h in flood[:-3]]
        for session_id in app._sessions:
            app._sessions[session_id].attached = 1  # every session busy now
        body = {"jsonrpc": "2.0", "id": 41, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
        refused = await call(app, body=body)
        return alive, evicted, len(app._sessions), refused

    alive, evicted, open_now, refused = run(scenario())
    assert alive == [200] * 4 and set(evicted) == {404} and open_now == 4
    assert refused.status == 429 and refused.json()["id"] == 41


def test_get_streams_are_capped_per_session_and_a_resumed_stream_has_one_reader() -> None:
    app = app_with()

    async def scenario() -> None:
        headers = await open_session(app)
        sse = {**headers, "accept": "text/event-stream"}
        last_ids = []
        for n in range(MAX_GET_STREAMS):
            hung = await call(app, body=tool_call("hang", n), headers=headers, hang_up=lambda r: bool(r.body))
            last_ids.append(hung.events()[-1]["id"])
        first = asyncio.ensure_future(call(app, "GET", headers={**sse, "last-event-id": last_ids[0]}))
        await asyncio.sleep(0.05)
        again = asyncio.ensure_future(call(app, "GET", headers={**sse, "last-event-id": last_ids[0]}))
        await asyncio.wait_for(first, 2)  # cut off: the client is reading the stream on its new connection
        readers = [again, asyncio.ensure_future(call(app, "GET", headers=sse))]
        readers += [
            asyncio.ensure_future(call(app, "GET", headers={**sse, "last-event-id": i})) for i in last_ids[1:-1]
        ]
        await asyncio.sleep(0.05)
        assert app._sessions[headers["mcp-session-id"]].gets == MAX_GET_STREAMS
        refused = await call(app, "GET", headers={**sse, "last-event-id": last_ids[-1]})
        assert refused.status == 409 and "GET streams open" in refused.json()["error"]["message"]
        app.close_sessions()
        await asyncio.gather(*readers)

    run(scenario())


def test_get_and_listen_streams_end_when_the_token_that_opened_them_expires() -> None:
    app = app_with(auth=AuthSettings(Tokens()))
    listen = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": META},
    }

    async def scenario() -> tuple[Reply, Reply]:
        headers = await open_session(app, "short-lived")
        stream = call(app, "GET", headers={**headers, "accept": "text/event-stream"})
        listening = call(
            app, body=listen, headers={**bearer("short-lived"), **stateless_headers("subscriptions/listen")}
        )
        got, listened = await asyncio.gather(stream, listening)
        return got, listened

    started = time.monotonic()
    got, listened = run(scenario())
    assert time.monotonic() - started < 5  # both would stay open until the client left
    assert got.status == 200
    assert listened.messages()[-1] == {"jsonrpc": "2.0", "id": 3, "result": listened.messages()[-1]["result"]}
    assert listened.messages()[-1]["result"]["resultType"] == "complete"


def test_listen_streams_are_capped_per_client() -> None:
    app = app_with()
    listen = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "subscriptions/listen",
        "params": {"notifications": {"toolsListChanged": True}, "_meta": META},
    }
    headers = stateless_headers("subscriptions/listen")

    async def scenario() -> tuple[Reply, Reply]:
        held = [asyncio.ensure_future(call(app, body=listen, headers=headers)) for _ in range(MAX_LISTEN_STREAMS)]
        await asyncio.sleep(0.05)
        refused = await call(app, body=listen, headers=headers)
        elsewhere = asyncio.ensure_future(call(app, body=listen, headers=headers, peer="10.0.0.2"))
        await asyncio.sleep(0.05)
        app.stopping()
        await asyncio.gather(*held)
        return refused, await elsewhere

    refused, elsewhere = run(scenario())
    assert refused.status == 429 and refused.json()["id"] == 3
    assert elsewhere.status == 200 and elsewhere.messages()[-1]["result"]["resultType"] == "complete"


def test_stopping_a_mounted_app_ends_its_sessions_questions() -> None:
    from starlette.applications import Starlette

    from mcptools import mount

    inner = app_with()
    outer = Starlette(routes=[mount("/mcp", inner)])

    async def scenario() -> tuple[str, int]:
        headers = await open_session(inner)
        asking = asyncio.ensure_future(call(outer, body=tool_call("ask"), headers=headers))
        await question_of(inner, headers)
        inner.stopping()
        answered = result_text(await asking)
        return answered, (await call(inner, body=ping(), headers=headers)).status

    answered, status = run(scenario())
    assert answered == "gave up: the session is closed" and status == 404


def test_stopping_with_a_deadline_answers_what_still_runs_with_an_error_before_it() -> None:
    # uvicorn cancels what still runs at its graceful-shutdown deadline, mid-response. Told the deadline, the app
    # cuts first and answers every request: a session's call on its stream, a stateless call, a sync tool still
    # in its thread, and each request of a 2025-03-26 batch still running (not those already answered).
    tools = registry()

    @tools.tool
    def snooze() -> str:
        time.sleep(0.6)
        return "rested"

    app = StreamableHTTPApp(tools)

    async def scenario() -> tuple[Reply, Reply, Reply, Reply, Reply, float]:
        headers = await open_session(app)
        old = {"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "t"}}
        opened = await call(app, body={"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": old})
        batch_headers = {"mcp-session-id": opened.headers["mcp-session-id"]}
        stateless = {**request("tools/call", {"name": "hang", "arguments": {}}), "id": 5}
        running = [
            asyncio.ensure_future(call(app, body=tool_call("hang"), headers=headers)),
            asyncio.ensure_future(call(app, body=stateless, headers=stateless_headers("tools/call", "hang"))),
            asyncio.ensure_future(call(app, body=tool_call("snooze", 2), headers=headers)),
            asyncio.ensure_future(call(app, body=[ping(7), tool_call("hang", 8)], headers=batch_headers)),
            asyncio.ensure_future(
                call(app, body=[tool_call("hang", 3), ping(4)], headers={**batch_headers, "accept": "application/json"})
            ),
        ]
        await asyncio.sleep(0.1)
        began = time.monotonic()
        app.stopping(within=0.4)
        session_call, stateless_call, sync_call, batch, json_batch = await asyncio.gather(*running)
        return session_call, stateless_call, sync_call, batch, json_batch, time.monotonic() - began

    session_call, stateless_call, sync_call, batch, json_batch, took = run(scenario())
    assert 0.25 < took < 0.4, took  # a fifth of the grace period before its end
    shutting_down = "Server shutting down: the request did not finish before the server's shutdown deadline"
    answers = {
        "session": session_call.messages()[-1],
        "stateless": stateless_call.json(),
        "sync": sync_call.messages()[-1],
    }
    assert {name: (a["id"], a["error"]["code"], a["error"]["message"]) for name, a in answers.items()} == {
        "session": (1, -32000, shutting_down),
        "stateless": (5, -32000, shutting_down),
        "sync": (2, -32000, shutting_down),
    }
    assert stateless_call.status == 503  # unavailable: a client may send it again elsewhere
    assert [(m["id"], "result" in m) for m in batch.messages()] == [(7, True), (8, False)]
    assert batch.messages()[1]["error"]["message"] == shutting_down
    # As one JSON body too: the member that finished in time keeps its result.
    assert sorted((m["id"], "result" in m) for m in json_batch.json()) == [(3, False), (4, True)]


def test_an_app_served_again_after_its_shutdown_deadline_answers_as_new() -> None:
    app = app_with()
    stateless = {**request("tools/call", {"name": "hang", "arguments": {}}), "id": 5}
    listing = request("tools/list")

    async def scenario() -> tuple[Reply, Reply]:
        hanging = asyncio.ensure_future(call(app, body=stateless, headers=stateless_headers("tools/call", "hang")))
        await asyncio.sleep(0.05)
        app.stopping(within=0.1)
        cut = await hanging
        app.close_sessions()  # the lifespan's shutdown: the server is done
        return cut, await call(app, body=listing, headers=stateless_headers("tools/list"))

    cut, later = run(scenario())
    assert cut.json()["error"]["code"] == -32000
    assert later.status == 200 and later.json()["result"]["resultType"] == "complete"


def test_a_cut_batch_gets_an_answer_per_request_even_where_a_client_reused_an_id() -> None:
    from mcptools._transports.cutoff import cut_answers

    finished = {"jsonrpc": "2.0", "id": 7, "result": {}}
    notice = {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}}
    answer = cut_answers([7, 7, 8], [notice, finished])
    assert isinstance(answer, list)
    assert [(m["id"], "error" in m) for m in answer] == [(7, False), (7, True), (8, True)]
