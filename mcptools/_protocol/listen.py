"""``subscriptions/listen`` (2026-07-28): the long-lived request on whose stream a client is told the tool list
changed.

A 2026-07-28 client holds no session, so ``notifications/tools/list_changed`` has nowhere to go unless the client
opens a listen stream: the request stays open, the server first sends ``notifications/subscriptions/acknowledged``
with the subset of the filter it honours (``toolsListChanged``: this SDK serves no prompts or resources; and,
with the Tasks extension, the ``taskIds`` the caller may follow), then one ``notifications/tools/list_changed``
per change (and ``notifications/tasks`` per change of a followed task), every frame tagged with the request's id
in ``_meta["io.modelcontextprotocol/subscriptionId"]``. It ends when the client cancels it (HTTP: closes the
stream; stdio: ``notifications/cancelled``), or, gracefully with a ``complete`` result, when the session ends
(stdio at end of input) or the server stops (``Listeners.close``).

Changes may come from any thread (a sync tool adding a tool); each stream is woken on its own event loop.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Final, Protocol, final

from .._errors import ProtocolError
from .._jsonrpc import INVALID_PARAMS, INVALID_REQUEST, RequestId
from .session import Send, Session

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Callable, Coroutine

__all__ = ["LISTEN_METHOD", "SUBSCRIPTION_ID", "Listeners", "TaskFeed"]

LISTEN_METHOD: Final = "subscriptions/listen"
SUBSCRIPTION_ID: Final = "io.modelcontextprotocol/subscriptionId"
# The filter fields this server can honour: only the tool list changes here.
_HONOURED: Final = ("toolsListChanged",)


class TaskFeed(Protocol):
    """The tasks a listen stream follows (``mcptools._tasks.methods.TaskFeed``): their ids, and ``follow``,
    which sends ``notifications/tasks`` for each change until cancelled."""

    ids: list[str]
    subscribed: asyncio.Event

    async def follow(self, send: Callable[[dict[str, Any]], Coroutine[Any, Any, None]]) -> None: ...


@final
class _Stream:
    """One open listen request: woken by a change or by the end of the server."""

    __slots__ = ("changes", "ended", "loop", "tools", "wake")

    def __init__(self, loop: asyncio.AbstractEventLoop, *, tools: bool) -> None:
        import asyncio  # lazily: asyncio is most of mcptools' import time

        self.loop = loop
        self.tools = tools  # whether the client asked for tool list changes
        self.wake = asyncio.Event()
        self.changes = 0
        self.ended = False

    def _set(self, *, end: bool) -> None:
        if end:
            self.ended = True
        else:
            self.changes += 1
        self.wake.set()

    def signal(self, *, end: bool = False) -> None:
        """Wake the stream from any thread."""
        import asyncio

        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            self._set(end=end)
        elif not self.loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nobody is listening
                self.loop.call_soon_threadsafe(lambda: self._set(end=end))


@final
class Listeners:
    """The open listen streams of one engine."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: set[_Stream] = set()

    def tools_changed(self) -> None:
        for stream in list(self._open):
            if stream.tools:
                stream.signal()

    def close(self) -> None:
        """End every open stream gracefully (the server is stopping)."""
        for stream in list(self._open):
            stream.signal(end=True)

    async def listen(
        self, request_id: RequestId, params: dict[str, Any], session: Session, send: Send, tasks: TaskFeed | None = None
    ) -> dict[str, Any]:
        """Serve one ``subscriptions/listen`` request until it ends; the result closes it gracefully (a
        cancellation propagates, and then no response is sent). ``tasks``: the tasks it follows (the Tasks
        extension's ``taskIds``), acknowledged and then sent as ``notifications/tasks`` on every change."""
        wanted = params.get("notifications")
        if type(wanted) is not dict:
            raise ProtocolError(INVALID_PARAMS, "Invalid params: 'notifications' must be an object")
        if session.tracks(request_id):
            # The id is the subscription's name on the shared stdio channel: a second stream under it could not
            # be told apart, and notifications/cancelled would reach only one of them.
            raise ProtocolError(
                INVALID_REQUEST, f"Invalid Request: id {request_id!r} is already in use by a request in flight"
            )
        import asyncio

        honoured: dict[str, Any] = {name: True for name in _HONOURED if wanted.get(name) is True}
        if tasks is not None:
            honoured["taskIds"] = list(tasks.ids)
        tag = {SUBSCRIPTION_ID: request_id}
        stream = _Stream(asyncio.get_running_loop(), tools=bool(honoured))
        # Registered before the acknowledgment goes out, so no change after it can be missed.
        self._open.add(stream)
        ending = session.on_close(lambda: stream.signal(end=True))
        task = asyncio.current_task()
        if task is not None:  # stdio: the client ends the stream with notifications/cancelled
            session.track(request_id, task, lambda: None)
        following: asyncio.Future[None] | None = None
        try:
            if tasks is not None and tasks.ids:
                following = await _following(tasks, send, tag)
            await send(
                {
                    "jsonrpc": "2.0",
                    "method": "notifications/subscriptions/acknowledged",
                    "params": {"_meta": tag, "notifications": honoured},
                }
            )
            while not stream.ended:
                await stream.wake.wait()
                stream.wake.clear()
                if stream.changes:
                    # A change is a level trigger ("refetch"): several since the last frame make one frame.
                    stream.changes = 0
                    await send(
                        {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {"_meta": tag}}
                    )
        finally:
            if following is not None:
                following.cancel()
            self._open.discard(stream)
            ending()
            session.untrack(request_id)
        return {"resultType": "complete", "_meta": tag}


async def _following(tasks: TaskFeed, send: Send, tag: dict[str, Any]) -> asyncio.Future[None]:
    """Start the feed, and return once it hears every change: the acknowledgment goes out only then, so no change
    made after it is missed. A feed that fails first (its store unreachable) ends the request with its error, not
    a stream left unacknowledged."""
    import asyncio

    async def tagged(message: dict[str, Any]) -> None:
        message["params"]["_meta"] = tag
        await send(message)

    following = asyncio.ensure_future(tasks.follow(tagged))
    ready = asyncio.ensure_future(tasks.subscribed.wait())
    try:
        await asyncio.wait((ready, following), return_when=asyncio.FIRST_COMPLETED)
        if following.done():
            following.result()
    except BaseException:
        following.cancel()  # the request ended (cancelled, or the feed failed): nothing follows the tasks any more
        raise
    finally:
        ready.cancel()
    return following
