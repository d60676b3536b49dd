"""How the Streamable HTTP app answers a routed request: as one JSON body, or as an event stream.

A request that can say nothing before its response (``can_stream`` is false: every method but a call to a tool
that runs on the loop, and ``subscriptions/listen``) is answered inline, with no task and no stream to follow.
Anything else runs as a task writing into an ``EventStream``: a stateless request streams its notifications and
then its response (or, when nothing came before it, answers with plain JSON); a request on a 2025 session belongs
to the session, not to the HTTP response, so it goes on if the client drops the connection, and a later GET with
``Last-Event-ID`` resumes the stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from .._call import Call
from .._errors import ClientRequestError
from .._jsonrpc import INTERNAL_ERROR, RequestId
from .._protocol.listen import LISTEN_METHOD
from .._protocol.request_rules import http_status_for
from .._protocol.wire import encode_message
from .asgi_io import SSE_HEADERS, Answer, ASGISend, Disconnected, Receive, send_empty, send_json, until_disconnect
from .cutoff import Cutoff, cut_answers, cut_error
from .streams import EventStream, sse_event

if TYPE_CHECKING:
    from .._protocol.engine import Engine
    from .._protocol.session import Session
    from .asgi_sessions import HTTPSession

__all__ = [
    "RECONNECT_TIMEOUT",
    "EventSink",
    "answer_at_once",
    "answer_in_session",
    "answer_stateless",
    "can_stream",
    "follow",
]


# How long a question waits for its client to resume a stream that has nobody reading it, by default: clients
# reconnect within a second or two (the TypeScript SDK's backoff starts at one second and caps at thirty).
RECONNECT_TIMEOUT: Final = 30.0


def can_stream(routed: Call | dict[str, Any]) -> bool:
    """Whether answering may emit anything before the response, or be worth interrupting when the client goes
    away: a ``subscriptions/listen`` stream, a call to a tool that runs on the loop (``Tool.needs_loop``:
    async, taking a ``Context``, timed, or a task tool), and 2025-11-25's ``tasks/result`` (which asks the task's
    questions on its stream). A sync tool runs in a thread no cancellation can stop."""
    if type(routed) is not Call or routed.refusal is not None:
        return False
    method = routed.method
    return method == LISTEN_METHOD or (method == "tools/call" and routed.tool.needs_loop) or method == "tasks/result"


@final
@dataclass(slots=True, eq=False)
class EventSink:
    """One request's ``Stream`` into an ``EventStream``. Over a plain JSON answer (``questions`` false) there is
    no room for the server's questions, so they fail at once instead of waiting forever; ``close`` cuts the
    current reader off where a later GET can resume (``resumable``).

    A question asked on a ``session``'s stream waits while someone reads the stream, or until a reader comes back
    within ``reconnect`` seconds of the last one leaving: past that its client is gone, and the question fails
    with ``ClientRequestError`` (its own deadline, ``Session.question_timeout``, holds either way)."""

    events: EventStream
    questions: bool = True
    resumable: bool = False
    session: Session | None = None
    reconnect: float = RECONNECT_TIMEOUT
    _asked: list[RequestId] = field(default_factory=list)
    _timer: asyncio.TimerHandle | None = None
    streaming: ClassVar[bool] = True

    async def send(self, message: dict[str, Any]) -> None:
        if "id" in message and "method" in message:
            if not self.questions:
                raise ClientRequestError(
                    INTERNAL_ERROR, "the client takes no event stream, so it cannot be asked anything"
                )
            if self.session is not None:
                self._asked.append(message["id"])
                self._watch(self.reconnect)
        self.events.push(message)

    async def close(self) -> None:
        if self.resumable:
            self.events.cut()

    def _watch(self, delay: float) -> None:
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(delay, self._check)

    def _check(self) -> None:
        """While questions wait: fail them once the stream has gone unread for ``reconnect`` seconds."""
        self._timer = None
        session = self.session
        assert session is not None
        self._asked = [asked for asked in self._asked if session.waiting(asked)]
        if not self._asked:
            return
        since = self.events.unheard_since
        unheard = time.monotonic() - since if since is not None else 0.0
        if unheard < self.reconnect:
            self._watch(self.reconnect - unheard)
            return
        reason = f"the client's stream closed and was not resumed within {self.reconnect:g} seconds"
        for asked in self._asked:
            session.fail(asked, reason)
        self._asked.clear()


async def answer_stateless(
    engine: Engine,
    message: dict[str, Any],
    routed: Call,
    sse_ok: bool,
    send: ASGISend,
    receive: Receive,
    cutoff: Cutoff,
) -> None:
    """A 2026-07-28 request: its notifications then its response as SSE (nothing to resume, so no ids), or one
    JSON body when nothing came before the response or the client takes only JSON."""
    events = EventStream()
    final: list[dict[str, Any] | None] = []

    async def run() -> None:
        try:
            work = engine.serve(message, routed, EventSink(events))
            final.append(await cutoff.run(work, lambda: cut_error(routed.request_id)))
        finally:
            events.finish()

    task = asyncio.ensure_future(run())
    try:
        await until_disconnect(events.first(), receive)
        if (events.done and not events.messages) or not sse_ok:
            await until_disconnect(asyncio.shield(task), receive)
            response = final[0] if final else None
            await send_json(send, http_status_for(response), response)
            return
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        await until_disconnect(_pump(events, final, send), receive)
    except Disconnected:
        pass
    finally:
        if not task.done():
            task.cancel()


async def _pump(events: EventStream, final: list[dict[str, Any] | None], send: ASGISend) -> None:
    async for _event_id, data in events.follow():
        await send({"type": "http.response.body", "body": sse_event(None, data), "more_body": True})
    if final and final[0] is not None:
        response = encode_message(final[0])
        if response is not None:
            await send({"type": "http.response.body", "body": sse_event(None, response), "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def answer_at_once(
    engine: Engine,
    entry: HTTPSession,
    message: dict[str, Any],
    routed: Call | dict[str, Any],
    sse_ok: bool,
    send: ASGISend,
    retry_ms: int,
    cutoff: Cutoff,
) -> None:
    """A session request that cannot emit anything before its response, answered inline: the whole SSE body
    (priming event and response) in one write. Like a followed stream that ended, nothing is kept for a later
    ``Last-Event-ID``: the response went out in that write."""
    with entry.attach():
        response = await cutoff.run(engine.serve(message, routed), lambda: cut_error(message["id"]))
    data = encode_message(response) if response is not None else None
    if data is None:
        await send_empty(send, 202)
        return
    if not sse_ok:
        await send_json(send, 200, response)
        return
    stream_id = secrets.token_hex(8)
    parts = []
    if supports_priming(entry.session.protocol_version):
        parts.append(sse_event(f"{stream_id}:0", b"", retry_ms=retry_ms))
    parts.append(sse_event(f"{stream_id}:1", data))
    await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
    await send({"type": "http.response.body", "body": b"".join(parts), "more_body": False})


async def answer_in_session(
    entry: HTTPSession,
    answer: Callable[[EventSink], Awaitable[Answer]],
    sse_ok: bool,
    send: ASGISend,
    receive: Receive,
    retry_ms: int,
    reconnect: float,
    cutoff: Cutoff,
    owed: list[RequestId] | RequestId,
) -> None:
    """Run ``answer`` (one request, or a batch) on a session: over SSE, everything it emits (our notifications
    and questions, then its responses) goes out as resumable events; a client that takes only JSON gets its
    answer as one body once the work is done. The work belongs to the session, not to this HTTP response: it
    goes on when the client drops the connection (a later GET resumes an SSE stream), and while nobody waits for
    it, it keeps the session from expiring no longer than an idle one. ``owed``: the id of the request, or the
    list of a batch's request ids, answered with errors if the server's shutdown deadline cuts the work."""
    events = EventStream()
    entry.keep(events)
    final: list[Answer] = []
    sink = EventSink(events, questions=sse_ok, resumable=True, session=entry.session, reconnect=reconnect)

    def answer_cut() -> Answer:
        answer = cut_answers(owed, events.messages)
        sent = {id(message) for message in events.messages}
        for message in answer if isinstance(answer, list) else [answer]:
            if id(message) not in sent:
                events.push(message)  # the errors, for whoever reads the stream; a JSON answer is the value returned
        return answer

    async def run() -> None:
        try:
            final.append(await cutoff.run(answer(sink), answer_cut))
        finally:
            events.finish()

    task = asyncio.ensure_future(run())
    with entry.attach():
        if not sse_ok:
            try:
                await until_disconnect(asyncio.shield(task), receive)
            except Disconnected:
                return  # nobody is left to take the answer, and a JSON answer cannot be resumed
            finally:
                entry.streams.pop(events.id, None)
            body = final[0] if final else None
            await send_json(send, 200 if body is not None else 202, body)
            return
        await send({"type": "http.response.start", "status": 200, "headers": SSE_HEADERS})
        if supports_priming(entry.session.protocol_version):
            priming = sse_event(events.event_id(0), b"", retry_ms=retry_ms)
            await send({"type": "http.response.body", "more_body": True, "body": priming})
        with contextlib.suppress(Disconnected):
            # From the stream's first epoch: the work may cut it before the reader's task first runs.
            await until_disconnect(follow(entry, events, send, 0, epoch=0), receive)


async def follow(entry: HTTPSession, events: EventStream, send: ASGISend, start: int, epoch: int | None = None) -> None:
    """Send ``events`` from ``start`` on until the stream ends or is cut (then the client resumes it)."""
    with events.reading():
        async for event_id, data in events.follow(start, epoch):
            await send({"type": "http.response.body", "body": sse_event(event_id, data), "more_body": True})
        if events.done:
            entry.streams.pop(events.id, None)
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def supports_priming(version: str | None) -> bool:
    # Priming events (an id with empty data) came with 2025-11-25; older clients may choke on empty data.
    return version is not None and version >= "2025-11-25"
